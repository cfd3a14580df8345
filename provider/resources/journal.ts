/**
 * The create journal: one JSON line per record created, appended by the provider process the moment
 * the service's answer arrives — before the engine has recorded it. A `pulumi up` killed between the
 * two (a SIGKILL, a lost runner) leaves the create pending in the state with no id; the journal
 * still has it, so the catalog tool's `recover` takes the record into the stack instead of creating
 * it a second time. Written only where `SERVICEAPI_CREATED_JOURNAL` names a file (the catalog tool
 * sets it per stack); the run's output line (`messages.ts`) is the trace for everyone else, and for a
 * catalog stack whose journal cannot be written.
 */
import { appendJsonLine, readJsonLines } from "./json-lines";

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

/** What became of a create's journal line: written, no journal configured, or a problem to warn about. */
export type JournalOutcome = { written: true } | { written: false; problem?: string };

/** Appends a create to the journal, if one is configured. */
export function journalCreate(entry: JournalEntry, env: NodeJS.ProcessEnv = process.env): JournalOutcome {
  const file = env[CREATED_JOURNAL_ENV];
  if (file === undefined || file === "") return { written: false };
  // Synchronous: the line is on disk before the create returns to the engine.
  const failed = appendJsonLine(file, entry);
  if (failed === undefined) return { written: true };
  return {
    written: false,
    problem: `the create journal ${file} cannot be written (${failed}); the run's output names each create instead`,
  };
}

/** The entries of a journal file's text; lines that do not parse (a line cut by a kill) are skipped. */
export function readJournal(text: string): JournalEntry[] {
  return readJsonLines<JournalEntry>(text, (entry) => typeof entry.name === "string" && typeof entry.id === "string");
}
