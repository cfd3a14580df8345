/**
 * `drift --write`: the live values of the drifted fields written into the catalog files, so that
 * accepting a change made in the service's UI is a pull request like any other (review the `git
 * diff`, merge; the deploy after it then has nothing to send). YAML files are edited as documents —
 * comments, order and the other entries stay as they are; JSON files are rewritten with their own
 * indentation. A field the service cleared is removed from the entry (leaving it out means "no
 * value"); a product archived behind Pulumi's back gets `status: archived`. A value the engine showed
 * as `[secret]` is not known here and is not written (the line says so).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseDocument } from "yaml";
import type { Catalog } from "./catalog";
import { shown } from "./report";
import { documentText, setValue } from "./yaml-text";
import type { PlannedChange } from "./changes";

/** Writes the drifted values into the catalog's files; returns one line per field written (or not). */
export function writeDrift(catalogDir: string, catalog: Catalog, drifted: PlannedChange[]): string[] {
  const lines: string[] = [];
  const byFile = new Map<string, PlannedChange[]>();
  for (const line of drifted) {
    const product = catalog.get(line.key);
    if (product === undefined) {
      lines.push(`${line.key}: not in the catalog any more; nothing written`);
      continue;
    }
    byFile.set(product.file, [...(byFile.get(product.file) ?? []), line]);
  }
  for (const [file, products] of [...byFile].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const path = join(catalogDir, file);
    const text = readFileSync(path, "utf8");
    const json = /\.json$/i.test(file);
    const doc = json ? undefined : parseDocument(text);
    const data = json ? (JSON.parse(text) as Record<string, Record<string, unknown>>) : undefined;
    for (const { key, fields } of [...products].sort((a, b) => (a.key < b.key ? -1 : 1))) {
      for (const { field, from, to } of fields) {
        const where = `${file}: ${key}: ${field}`;
        if (to === "[secret]") {
          lines.push(`${where}: a secret value, not written (set it by hand)`);
          continue;
        }
        if (to === null) {
          doc?.deleteIn([key, field]);
          if (data !== undefined) delete data[key]![field];
        } else {
          if (doc !== undefined) setValue(doc, [key, field], to);
          if (data !== undefined) data[key]![field] = to;
        }
        lines.push(`${where}: ${shown(from)} → ${shown(to)}${to === null ? " (removed: no value)" : ""}`);
      }
    }
    writeFileSync(path, json ? `${JSON.stringify(data, null, indentOf(text))}\n` : documentText(doc!));
  }
  return lines;
}

/** The indentation a JSON file uses (its first indented line), two spaces when it has none. */
function indentOf(text: string): string | number {
  const match = /\n([ \t]+)\S/.exec(text);
  return match?.[1] ?? 2;
}
