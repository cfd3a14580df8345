/**
 * What only the provider's read of the live record decides, as data for a tool that runs the stack:
 * each adoption previewed (`adopt.ts`) and each give-back made (`taken-over.ts`), one record each,
 * appended where the tool names a file (`tool-protocol.ts`, which keeps the format; the catalog tool
 * sets it per stack). The engine's events say only that a product is adopted or deleted, so the
 * tool's report takes an adoption's fields (live value → declared value) and the fields a give-back
 * sent or left from here instead of from the message text. An adoption's value the program marked
 * secret (or one it cannot tell) is written as `[secret]`, as the engine shows secrets; a give-back
 * names its fields only.
 */
import { appendWrite, TOOL_ENV, type GiveBackRecord } from "../tool-protocol";
import type { FieldChange } from "./patch";

/** Appends an adoption's changes, if a file is configured; returns a problem to warn about, or undefined. */
export function recordAdoption(
  name: string,
  id: string,
  changes: readonly FieldChange[],
  secrets: ReadonlySet<string> | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const hidden = (field: string) => secrets === undefined || secrets.has(field);
  const fields = changes.map((c) => (hidden(c.field) ? { field: c.field, from: "[secret]", to: "[secret]" } : { ...c }));
  return record(env, { op: "adopt", name, id, fields }, "this adoption without its fields (the warning above has them)");
}

/** Appends what a give-back sent and left, if a file is configured; returns a problem to warn about, or undefined. */
export function recordGiveBack(give: Omit<GiveBackRecord, "v" | "op">, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return record(
    env,
    { op: "give-back", ...give },
    "this give-back with the fields its preview listed (the message above says what was sent)",
  );
}

function record(env: NodeJS.ProcessEnv, line: Parameters<typeof appendWrite>[1], without: string): string | undefined {
  const file = env[TOOL_ENV.writes];
  if (file === undefined || file === "") return undefined;
  const failed = appendWrite(file, line);
  return failed === undefined ? undefined : `the writes file ${file} cannot be written (${failed}); the catalog's report shows ${without}`;
}
