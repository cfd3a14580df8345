/**
 * What each adoption will change, as data for a tool that runs the stack: one JSON line per adoption
 * previewed (`adopt.ts`), appended where `SERVICEAPI_ADOPTIONS_FILE` names a file (the catalog tool
 * sets it per stack with adoptions). The engine's events say only that a product is adopted — the
 * live record the adoption will change is read by the provider alone — so the tool's report takes
 * each adoption's fields, live value → declared value, from here instead of from the message text.
 * A value the program marked secret (or one it cannot tell) is written as `[secret]`, as the engine
 * shows secrets.
 */
import { appendFileSync } from "node:fs";
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
  try {
    appendFileSync(file, `${JSON.stringify({ name, id, fields } satisfies AdoptionEntry)}\n`);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    return `the adoptions file ${file} cannot be written (${code}); the catalog's report shows this adoption without its fields (the warning above has them)`;
  }
}

/** The adoptions of a file's text, the last line of each name winning (the engine may preview one twice). */
export function readAdoptions(text: string): Map<string, AdoptionEntry> {
  const out = new Map<string, AdoptionEntry>();
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const entry = JSON.parse(line) as AdoptionEntry;
      if (typeof entry.name === "string" && Array.isArray(entry.fields)) out.set(entry.name, entry);
    } catch {
      // a line cut by a kill
    }
  }
  return out;
}
