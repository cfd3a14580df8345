/**
 * Input checks for `check()`, built from the client's zod schemas so preview refuses exactly what
 * the API would.
 *
 * Every failure is reported with an empty `property` and a reason that starts with the field's
 * name: when a failure names a property, the engine prints the property's *value* beside it
 * (`property title value {…} has a problem`), and any input may be a secret. For the same reason
 * no reason quotes a value; it says what is wrong and the limit.
 */
import { parseWithIssues } from "../contract/issues";
import { closeNames } from "./close-names";
import type { InputField, ResourceFields } from "./field-table";
import type { CheckFailure } from "./lifecycle";

/**
 * How a value not known yet (during preview) reaches a provider: Pulumi's own sentinel string,
 * `runtime.unknownValue` of `@pulumi/pulumi` (a test keeps the two equal). Written out because
 * importing `@pulumi/pulumi/runtime` loads the whole program-side SDK, TypeScript included, into
 * every plugin process.
 */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/**
 * The marker the program's Unicode guard (`program/unicode-guard.ts`) puts in place of a string
 * with a lone UTF-16 surrogate, and `check` turns into a failure: `{ [ILL_FORMED]: <1-based
 * character position of the first lone surrogate> }`.
 */
export const ILL_FORMED = "__serviceapiIllFormedString";

export class Failures {
  /** `property` is always empty (see above). */
  readonly list: CheckFailure[] = [];

  add(field: string, problem: string): void {
    this.list.push({ property: "", reason: `${field} ${problem}`, field });
  }
}

/** A value that is not known yet (preview) is checked again once it is. */
export function isUnknown(value: unknown): boolean {
  return value === UNKNOWN;
}

/**
 * The string the program declared could not be sent as it was: the resource class found a lone
 * UTF-16 surrogate before Pulumi's serializer replaced it (see `unicode-guard.ts`).
 */
function illFormed(failures: Failures, field: string, value: unknown): boolean {
  if (typeof value !== "object" || value === null || !(ILL_FORMED in value)) return false;
  const at = (value as Record<string, unknown>)[ILL_FORMED];
  failures.add(
    field,
    `must be well-formed Unicode text: it has a lone UTF-16 surrogate at character ${String(at)}, ` +
      "which Pulumi would replace or refuse before the value reaches the service",
  );
  return true;
}

/**
 * Characters refused in every string input: C0 and C1 controls (U+0080–U+009F; U+009B is a
 * terminal's CSI), invisible in a diff and able to rewrite a terminal or CI log.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/u;

function controlCharacter(failures: Failures, field: string, value: unknown): boolean {
  if (typeof value !== "string") return false;
  const match = CONTROL.exec(value);
  if (!match) return false;
  failures.add(
    field,
    `must not contain control characters (${codePoint(match[0])} at character ${position(value, match.index)}); ` +
      "only tab, line feed and carriage return are allowed",
  );
  return true;
}

/**
 * Names people read (a product's title and slug, a site's name, a task's title) must show on a
 * storefront as they show in `pulumi preview`. Unicode's default-ignorable code points are
 * invisible by definition, and the bidi embeddings, overrides and isolates (U+202A–U+202E,
 * U+2066–U+2069: "Trojan Source") reorder what follows them; a diff shows them escaped, a page
 * does not. Refused there, except those real text needs: ZWNJ and ZWJ (Persian, Indic scripts,
 * emoji sequences), the marks LRM, RLM and ALM (right-to-left text), CGJ, variation selectors
 * (emoji and CJK variants, Mongolian), and tag characters inside an emoji flag sequence (🏴 +
 * tags + CANCEL TAG). The list is in docs/resources.md.
 */
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/gu;
// eslint-disable-next-line no-misleading-character-class -- one code point at a time: the joiners and selectors are the point
const KEPT = /[\u200c-\u200f\u061c\u034f\u180b-\u180d\u180f\ufe00-\ufe0f\u{e0100}-\u{e01ef}]/u;
const FLAG_TAG_SEQUENCE = /\u{1F3F4}[\u{E0020}-\u{E007E}]+\u{E007F}/gu;

const NAMES: Record<number, string> = {
  0x00ad: "SOFT HYPHEN",
  0x115f: "HANGUL CHOSEONG FILLER",
  0x1160: "HANGUL JUNGSEONG FILLER",
  0x180e: "MONGOLIAN VOWEL SEPARATOR",
  0x200b: "ZERO WIDTH SPACE",
  0x202a: "LEFT-TO-RIGHT EMBEDDING",
  0x202b: "RIGHT-TO-LEFT EMBEDDING",
  0x202c: "POP DIRECTIONAL FORMATTING",
  0x202d: "LEFT-TO-RIGHT OVERRIDE",
  0x202e: "RIGHT-TO-LEFT OVERRIDE",
  0x2060: "WORD JOINER",
  0x2066: "LEFT-TO-RIGHT ISOLATE",
  0x2067: "RIGHT-TO-LEFT ISOLATE",
  0x2068: "FIRST STRONG ISOLATE",
  0x2069: "POP DIRECTIONAL ISOLATE",
  0x3164: "HANGUL FILLER",
  0xfeff: "ZERO WIDTH NO-BREAK SPACE",
  0xffa0: "HALFWIDTH HANGUL FILLER",
};

function invisibleCharacter(failures: Failures, field: string, value: unknown): boolean {
  if (typeof value !== "string") return false;
  // Flag sequences are kept: blank them out with as many (visible) code points, so positions stay right.
  const scanned = value.replace(FLAG_TAG_SEQUENCE, (sequence) => "x".repeat([...sequence].length));
  for (const match of scanned.matchAll(INVISIBLE)) {
    if (KEPT.test(match[0])) continue;
    const code = match[0].codePointAt(0)!;
    const kind = (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069) ? "direction-overriding" : "invisible";
    const name = NAMES[code] === undefined ? "" : ` ${NAMES[code]}`;
    const rtl = kind === "direction-overriding" ? "; right-to-left text may use U+200E, U+200F and U+061C" : "";
    failures.add(
      field,
      `must not contain ${kind} characters (${codePoint(match[0])}${name} at character ${position(scanned, match.index)}): ` +
        `a storefront shows the text differently than the diff does${rtl}`,
    );
    return true;
  }
  return false;
}

/** `U+202E`. */
function codePoint(char: string): string {
  return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** The 1-based character (code point) position of a UTF-16 index. */
function position(value: string, index: number): number {
  return [...value.slice(0, index)].length + 1;
}

/** Checks one input against the schema the client will send it with. `undefined` passes (see `required`). */
function checkField(failures: Failures, name: string, field: InputField, value: unknown): void {
  if (value === undefined || isUnknown(value)) return;
  if (illFormed(failures, name, value) || controlCharacter(failures, name, value)) return;
  if (field.shownToPeople && invisibleCharacter(failures, name, value)) return;
  const result = parseWithIssues(field.schema, value);
  if (result.success) return;
  for (const issue of result.issues) failures.add(name, `${issue.message}${field.hint ?? ""}`);
}

function checkOneOf(failures: Failures, field: string, allowed: readonly unknown[], value: unknown): void {
  if (value === undefined || isUnknown(value) || allowed.includes(value)) return;
  if (illFormed(failures, field, value)) return;
  failures.add(field, `must be one of ${allowed.map((a) => JSON.stringify(a)).join(", ")}`);
}

/** Every check a resource's field table asks for, in the table's order, after the unknown-key check. */
export function checkInputs<I>(failures: Failures, fields: ResourceFields<I>, news: Record<string, unknown>): void {
  checkKnownKeys(failures, fields.resource, news, Object.keys(fields.inputs), Object.keys(fields.outputs));
  for (const [name, field] of Object.entries(fields.inputs) as [string, InputField][]) {
    const value = news[name];
    if (field.required && (value === undefined || value === null)) failures.add(name, "is required");
    else if (field.oneOf) checkOneOf(failures, name, field.oneOf, value);
    else checkField(failures, name, field, value);
  }
}

/**
 * Keys the program set that are not inputs of this resource: a typo (`descripton`), or an output
 * the service sets. JavaScript programs and spread objects (YAML, JSON) reach here unchecked by
 * TypeScript, and a dropped key would silently leave the field unmanaged.
 */
function checkKnownKeys(
  failures: Failures,
  resource: string,
  news: Record<string, unknown>,
  inputs: readonly string[],
  outputsOnly: readonly string[],
): void {
  for (const key of Object.keys(news).sort()) {
    if (key.startsWith("__") || inputs.includes(key)) continue;
    if (outputsOnly.includes(key)) {
      failures.add(key, `is an output of ${resource}, set by the service; it cannot be set`);
      continue;
    }
    failures.add(key, `is not an input of ${resource}${suggestion(key, inputs)}`);
  }
}

function suggestion(key: string, known: readonly string[]): string {
  const [match] = closeNames(key, known, 1);
  if (match !== undefined) return `; did you mean ${match}?`;
  return ` (its inputs are ${known.join(", ")})`;
}
