/**
 * Values as the tool writes them into catalog files (`import`, `drift --write`): each string that
 * another reader could take for something else is quoted. YAML 1.1 tools (PyYAML, older Ruby and
 * Go libraries, many linters) read `yes`, `no`, `on`, `off`, `y`, `n`, `1_000`, `12:30` or `0777`
 * as booleans and numbers, where YAML 1.2 (this tool) reads strings; a string written bare must read
 * as the same string in both. Only the tool's own nodes are touched: the lines a person wrote stay
 * as they are, so a review sees only what the tool added.
 */
import { isScalar, parse, visit, type Document, type Node } from "yaml";

/** `value` as a node of `doc`, every string in it quoted where a YAML 1.1 or 1.2 reader would not read it back as the same string. */
export function valueNode(doc: Document, value: unknown): Node {
  const node = doc.createNode(value) as Node;
  visit(node, {
    Scalar(_key, scalar) {
      if (typeof scalar.value === "string" && !readsBack(scalar.value)) scalar.type = "QUOTE_DOUBLE";
    },
  });
  return node;
}

/** Sets `path` to `value` in `doc`: an existing value keeps its comment and quoting, and is quoted where it must be. */
export function setValue(doc: Document, path: string[], value: unknown): void {
  const node = doc.getIn(path, true);
  if (isScalar(node) && (typeof value !== "object" || value === null)) {
    node.value = value;
    if (typeof value === "string" && !readsBack(value)) node.type = "QUOTE_DOUBLE";
    return;
  }
  doc.setIn(path, valueNode(doc, value));
}

/** A key as a node of `doc`, quoted as a value is (`yes:` is `true:` to a YAML 1.1 reader). */
export function keyNode(doc: Document, key: string): Node {
  const node = doc.createNode(key) as Node;
  if (isScalar(node) && !readsBack(key)) node.type = "QUOTE_DOUBLE";
  return node;
}

/** The document's text, no line folded (a value is written on one line, as it is). */
export function documentText(doc: Document): string {
  return doc.toString({ lineWidth: 0 });
}

function readsBack(value: string): boolean {
  for (const version of ["1.1", "1.2"] as const) {
    try {
      if (parse(`v: ${value}`, { version })?.v !== value) return false;
    } catch {
      return false;
    }
  }
  return true;
}
