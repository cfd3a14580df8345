/**
 * Input checks for `check()`, built from the client's zod schemas so preview refuses exactly what
 * the API would.
 *
 * Every failure is reported with an empty `property` and a reason that starts with the field's
 * name: when a failure names a property, the engine prints the property's *value* beside it
 * (`property title value {…} has a problem`), and any input may be a secret. For the same reason
 * no reason quotes a value; it says what is wrong and the limit.
 */
import type * as pulumi from "@pulumi/pulumi";
import { closest, distance } from "fastest-levenshtein";
import type { z } from "zod";
import { parseWithIssues } from "../contract/issues";
import { ILL_FORMED } from "../ill-formed-marker";
import type { InputField, ResourceFields } from "./fields";

/**
 * How a value not known yet (during preview) reaches a provider: Pulumi's own sentinel string,
 * `runtime.unknownValue` of `@pulumi/pulumi` (a test keeps the two equal). Written out because
 * importing `@pulumi/pulumi/runtime` loads the whole program-side SDK, TypeScript included, into
 * every plugin process.
 */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export class Failures {
  /** `property` is always empty (see above). */
  readonly list: pulumi.dynamic.CheckFailure[] = [];

  add(field: string, problem: string): void {
    this.list.push({ property: "", reason: `${field} ${problem}` });
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
  failures.add(field, `must be well-formed Unicode text: it has a lone UTF-16 surrogate at character ${String(at)}, ` +
    "which Pulumi would replace or refuse before the value reaches the service");
  return true;
}

/** Characters refused in every string input: invisible in a diff, and able to rewrite a terminal or CI log. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/u;

function controlCharacter(failures: Failures, field: string, value: unknown): boolean {
  if (typeof value !== "string") return false;
  const match = CONTROL.exec(value);
  if (!match) return false;
  const at = [...value.slice(0, match.index)].length + 1;
  const code = match[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
  failures.add(field, `must not contain control characters (U+${code} at character ${at}); only tab, line feed and carriage return are allowed`);
  return true;
}

/** Checks one input against the schema the client will send it with. `undefined` passes (see `required`). */
function checkField(failures: Failures, field: string, schema: z.ZodType, value: unknown, hint = ""): void {
  if (value === undefined || isUnknown(value)) return;
  if (illFormed(failures, field, value) || controlCharacter(failures, field, value)) return;
  const result = parseWithIssues(schema, value);
  if (result.success) return;
  for (const issue of result.issues) failures.add(field, `${issue.message}${hint}`);
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
    else checkField(failures, name, field.schema, value, field.hint);
  }
}

/**
 * Keys the program set that are not inputs of this resource: a typo (`descripton`), or an output
 * the service sets. JavaScript programs and spread objects (YAML, JSON) reach here unchecked by
 * TypeScript, and a dropped key would silently leave the field unmanaged.
 */
function checkKnownKeys(
  failures: Failures, resource: string, news: Record<string, unknown>, inputs: readonly string[], outputsOnly: readonly string[],
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
  const near = closest(key.toLowerCase(), known.map((k) => k.toLowerCase()));
  const match = known.find((k) => k.toLowerCase() === near)!;
  // Close enough to be a typo: a third of the name, and at least two edits for short names.
  if (distance(key.toLowerCase(), near) <= Math.max(2, Math.floor(match.length / 3))) return `; did you mean ${match}?`;
  return ` (its inputs are ${known.join(", ")})`;
}
