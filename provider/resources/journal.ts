/**
 * The create journal, the provider's side: a line before each create is sent, and a line the moment
 * the service's answer arrives — before the engine has recorded it. A `pulumi up` killed between the
 * two (a SIGKILL, a lost runner) leaves the create pending in the state with no id; the journal
 * still has it, so the catalog tool's `recover` takes the record into the stack instead of creating
 * it a second time. Where the tool's `up` skips Pulumi's intermediate checkpoints
 * (`PULUMI_SKIP_CHECKPOINTS`), the state records nothing of the run until it ends, and the journal —
 * then kept beside the state — is the only record of what the run sent: a create whose line cannot
 * be written is not sent. Written only where the tool names a file (`tool-protocol.ts`, which keeps
 * the format); the run's output line (`messages.ts`) is the trace for everyone else, and for a
 * catalog stack whose journal cannot be written.
 */
import { readFileSync } from "node:fs";
import { UserError } from "./errors";
import {
  appendCreated,
  appendCreating,
  appendNotCreated,
  parseTakeIn,
  TOOL_ENV,
  type CreatedRecord,
  type CreatingRecord,
} from "./tool-protocol";

/** What became of a create's journal line: written, no journal configured, or a problem to warn about. */
export type JournalOutcome = { written: true } | { written: false; problem?: string };

/** Appends a create to the journal, if one is configured. */
export function journalCreate(entry: Omit<CreatedRecord, "v" | "op">, env: NodeJS.ProcessEnv = process.env): JournalOutcome {
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

/**
 * Journals a create about to be sent, if a journal is configured. Where the run skips Pulumi's
 * checkpoints, a line that cannot be written stops the create before it is sent (a UserError):
 * nothing else would record that it was.
 */
export function journalCreating(entry: Omit<CreatingRecord, "v" | "op">, env: NodeJS.ProcessEnv = process.env): void {
  const file = env[TOOL_ENV.createdJournal];
  if (file === undefined || file === "") return;
  const failed = appendCreating(file, entry);
  if (failed === undefined || !skipsCheckpoints(env)) return;
  throw new UserError(
    `${entry.type} ${JSON.stringify(entry.name)}: not created, nothing sent: the create journal ${file} cannot be written (${failed}), ` +
      "and this run skips Pulumi's checkpoints, so nothing else would record the create. Free the disk or fix the folder's permissions, then run the up again.",
  );
}

/**
 * Journals that a create journaled as being sent was certainly refused (an error that leaves
 * nothing made: `mayHaveSucceeded` false), so that a kill later in the run does not leave it named
 * as a create whose answer was lost. Best effort: without the line it is only named for a person to check.
 */
export function journalNotCreated(name: string, env: NodeJS.ProcessEnv = process.env): void {
  const file = env[TOOL_ENV.createdJournal];
  if (file !== undefined && file !== "") appendNotCreated(file, { name, at: new Date().toISOString() });
}

/** Whether this run writes the state only at its end (the CLI reads the variable as a boolean). */
function skipsCheckpoints(env: NodeJS.ProcessEnv): boolean {
  return /^(1|true)$/i.test(env.PULUMI_SKIP_CHECKPOINTS ?? "");
}

/**
 * `recover`'s take-in (`SERVICEAPI_TAKE_IN`): for a create of its targeted up, the killed run's
 * record of that key — its id, or null where the create was sent and its answer lost. Undefined
 * when no take-in is configured (an ordinary create). A key the file does not name is refused:
 * a take-in never sends a create.
 */
export function takenIn(type: string, name: string, env: NodeJS.ProcessEnv = process.env): { id: string | null } | undefined {
  const file = env[TOOL_ENV.takeIn];
  if (file === undefined || file === "") return undefined;
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new UserError(
      `${type} ${JSON.stringify(name)}: nothing sent: recover's take-in file ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? error}).`,
    );
  }
  const parsed = parseTakeIn(text);
  if ("problem" in parsed)
    throw new UserError(`${type} ${JSON.stringify(name)}: nothing sent: recover's take-in file ${file} is ${parsed.problem}.`);
  if (!Object.hasOwn(parsed.records, name))
    throw new UserError(
      `${type} ${JSON.stringify(name)}: nothing sent: recover takes in only what the killed run created, and that run did not create it.`,
    );
  return { id: parsed.records[name] ?? null };
}
