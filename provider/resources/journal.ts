/**
 * The create journal, the provider's side: each record created is appended the moment the
 * service's answer arrives — before the engine has recorded it. A `pulumi up` killed between the
 * two (a SIGKILL, a lost runner) leaves the create pending in the state with no id; the journal
 * still has it, so the catalog tool's `recover` takes the record into the stack instead of creating
 * it a second time. Written only where the tool names a file (`tool-protocol.ts`, which keeps the
 * format); the run's output line (`messages.ts`) is the trace for everyone else, and for a catalog
 * stack whose journal cannot be written.
 */
import { appendCreated, TOOL_ENV, type CreatedRecord } from "./tool-protocol";

/** What became of a create's journal line: written, no journal configured, or a problem to warn about. */
export type JournalOutcome = { written: true } | { written: false; problem?: string };

/** Appends a create to the journal, if one is configured. */
export function journalCreate(entry: Omit<CreatedRecord, "v">, env: NodeJS.ProcessEnv = process.env): JournalOutcome {
  const file = env[TOOL_ENV.createdJournal];
  if (file === undefined || file === "") return { written: false };
  // Synchronous: the line is on disk before the create returns to the engine.
  const failed = appendCreated(file, entry);
  if (failed === undefined) return { written: true };
  return {
    written: false,
    problem: `the create journal ${file} cannot be written (${failed}); the run's output names each create instead`,
  };
}
