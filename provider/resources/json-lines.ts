/**
 * Files of one JSON value per line, appended to by a process that may be killed mid-line and read
 * back by another: the create journal (`journal.ts`), the writes file for the catalog's report
 * (`product/write-file.ts`: each adoption's and give-back's fields) and the catalog import's reads (`catalog/import.ts`).
 */
import { appendFileSync } from "node:fs";

/** Appends `value` as one line, synchronously (on disk before the caller goes on); the error's code when it cannot. */
export function appendJsonLine(file: string, value: unknown): string | undefined {
  try {
    appendFileSync(file, `${JSON.stringify(value)}\n`);
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? String(error);
  }
}

/** The values of a file's text that `accept` takes, in order; a line that does not parse (cut by a kill) is skipped. */
export function readJsonLines<T>(text: string, accept: (value: Partial<T>) => boolean): T[] {
  const out: T[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof value === "object" && value !== null && accept(value as Partial<T>)) out.push(value as T);
  }
  return out;
}
