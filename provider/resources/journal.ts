/**
 * The create journal: one JSON line per record created, appended by the provider process the moment
 * the service's answer arrives — before the engine has recorded it. A `pulumi up` killed between the
 * two (a SIGKILL, a lost runner) leaves the create pending in the state with no id; the journal
 * still has it, so the catalog tool's `recover` takes the record into the stack instead of creating
 * it a second time. Written only where `SERVICEAPI_CREATED_JOURNAL` names a file (the catalog tool
 * sets it per stack); the run's output line (`messages.ts`) is the trace for everyone else.
 */
import { appendFileSync } from "node:fs";

export const CREATED_JOURNAL_ENV = "SERVICEAPI_CREATED_JOURNAL";

/** One line of the journal. */
export interface JournalEntry {
  type: string;
  /** The resource's logical name (the catalog's key). */
  name: string;
  id: string;
  /** The resource's URN, where the face knows it. */
  urn?: string;
  at: string;
}

/** Appends a create to the journal, if one is configured; returns a problem to warn about, or undefined. */
export function journalCreate(entry: JournalEntry, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const file = env[CREATED_JOURNAL_ENV];
  if (file === undefined || file === "") return undefined;
  try {
    // Synchronous: the line is on disk before the create returns to the engine.
    appendFileSync(file, `${JSON.stringify(entry)}\n`);
    return undefined;
  } catch (error) {
    return `the create journal ${file} cannot be written (${(error as NodeJS.ErrnoException).code ?? String(error)}); the run's output still names each create`;
  }
}

/** The entries of a journal file's text; lines that do not parse (a line cut by a kill) are skipped. */
export function readJournal(text: string): JournalEntry[] {
  const out: JournalEntry[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const entry = JSON.parse(line) as JournalEntry;
      if (typeof entry.name === "string" && typeof entry.id === "string") out.push(entry);
    } catch {
      // a partial last line
    }
  }
  return out;
}
