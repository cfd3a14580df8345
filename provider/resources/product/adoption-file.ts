/**
 * What each adoption will change, as data for a tool that runs the stack: one record per adoption
 * previewed (`adopt.ts`), appended where the tool names a file (`tool-protocol.ts`, which keeps the
 * format; the catalog tool sets it per stack with adoptions). The engine's events say only that a
 * product is adopted — the live record the adoption will change is read by the provider alone — so
 * the tool's report takes each adoption's fields, live value → declared value, from here instead of
 * from the message text. A value the program marked secret (or one it cannot tell) is written as
 * `[secret]`, as the engine shows secrets.
 */
import { appendAdoption, TOOL_ENV } from "../tool-protocol";
import type { FieldChange } from "./patch";

/** Appends an adoption's changes, if a file is configured; returns a problem to warn about, or undefined. */
export function recordAdoption(
  name: string,
  id: string,
  changes: readonly FieldChange[],
  secrets: ReadonlySet<string> | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const file = env[TOOL_ENV.adoptions];
  if (file === undefined || file === "") return undefined;
  const hidden = (field: string) => secrets === undefined || secrets.has(field);
  const fields = changes.map((c) => (hidden(c.field) ? { field: c.field, from: "[secret]", to: "[secret]" } : { ...c }));
  const failed = appendAdoption(file, { name, id, fields });
  return failed === undefined
    ? undefined
    : `the adoptions file ${file} cannot be written (${failed}); the catalog's report shows this adoption without its fields (the warning above has them)`;
}
