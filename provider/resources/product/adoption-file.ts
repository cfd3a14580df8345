/**
 * What each adoption will change, as data for a tool that runs the stack: one JSON line per adoption
 * previewed (`adopt.ts`), appended where `SERVICEAPI_ADOPTIONS_FILE` names a file (the catalog tool
 * sets it per stack with adoptions). The engine's events say only that a product is adopted — the
 * live record the adoption will change is read by the provider alone — so the tool's report takes
 * each adoption's fields, live value → declared value, from here instead of from the message text.
 * A value the program marked secret (or one it cannot tell) is written as `[secret]`, as the engine
 * shows secrets.
 */
import { appendJsonLine, readJsonLines } from "../json-lines";
import type { FieldChange } from "./patch";

export const ADOPTIONS_FILE_ENV = "SERVICEAPI_ADOPTIONS_FILE";

/** One adoption: the resource's logical name (a catalog key), the product it adopts, and what `up` sends to it. */
export interface AdoptionEntry {
  name: string;
  id: string;
  fields: { field: string; from: unknown; to: unknown }[];
}

/** Appends an adoption's changes, if a file is configured; returns a problem to warn about, or undefined. */
export function recordAdoption(
  name: string,
  id: string,
  changes: readonly FieldChange[],
  secrets: ReadonlySet<string> | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const file = env[ADOPTIONS_FILE_ENV];
  if (file === undefined || file === "") return undefined;
  const hidden = (field: string) => secrets === undefined || secrets.has(field);
  const fields = changes.map((c) => (hidden(c.field) ? { field: c.field, from: "[secret]", to: "[secret]" } : { ...c }));
  const failed = appendJsonLine(file, { name, id, fields } satisfies AdoptionEntry);
  return failed === undefined
    ? undefined
    : `the adoptions file ${file} cannot be written (${failed}); the catalog's report shows this adoption without its fields (the warning above has them)`;
}

/** The adoptions of a file's text, the last line of each name winning (the engine may preview one twice). */
export function readAdoptions(text: string): Map<string, AdoptionEntry> {
  const entries = readJsonLines<AdoptionEntry>(text, (entry) => typeof entry.name === "string" && Array.isArray(entry.fields));
  return new Map(entries.map((entry) => [entry.name, entry]));
}
