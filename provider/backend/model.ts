/**
 * What the state-backend reader hands out: stacks, their latest checkpoint's resources and pending
 * operations, and the locks held on them, as plain data. A secret stays in the ciphertext form the
 * state holds it in (`{"4dabf18193072939515e22adb298388d": …, "ciphertext": …}`): nothing here decrypts.
 */
import type { PoolConfig } from "pg";

/** A stack of the backend. A DIY backend's organization is always "organization"; a stack of the legacy layout (no projects) has project "". */
export interface StackRef {
  organization: string;
  project: string;
  stack: string;
}

/** `organization/project/stack`, as `--stack` takes it; a legacy-layout stack (project "") is its bare name, as Pulumi names it. */
export function fullName(ref: StackRef): string {
  return ref.project === "" ? ref.stack : `${ref.organization}/${ref.project}/${ref.stack}`;
}

export interface StateResource {
  urn: string;
  type: string;
  /** Absent for a component (and for a create still pending). */
  id?: string;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
}

/** An operation a killed or crashed command began and never recorded the end of: `creating`, `updating`, `deleting`, `reading`, … */
export interface PendingOperation {
  type: string;
  resource: StateResource;
}

export interface StackState {
  resources: StateResource[];
  pending: PendingOperation[];
}

/** A lock file a DIY backend holds for a running (or killed) command; `key` is where it lies in the backend (`.pulumi/locks/…/<id>.json`). */
export interface StackLock {
  key: string;
  pid: number;
  username: string;
  hostname: string;
  /** As Pulumi wrote it (RFC 3339, nanoseconds). */
  timestamp: string;
}

export interface StateBackend {
  /** The backend's URL with any password masked (`postgres://pulumi:****@host/db`). */
  readonly url: string;
  /** How it is read. */
  readonly via: "file" | "postgres" | "cli";
  /** false for "cli": locks cannot be seen there. */
  readonly seesLocks: boolean;
  /** For "postgres": how to connect to its database (in memory only; its password is never printed). */
  readonly postgres?: PostgresTarget;
  /**
   * Why the state can be read here but never written, when it cannot (a read-only role's materialized
   * view of a PostgreSQL backend: examples/catalog-tool/read-only-role.sql), so that a command that
   * writes can refuse before it starts.
   */
  readonly readOnly?: string;
  /** Every stack, or those of one project (a legacy-layout stack has none, and is listed for every project, as `pulumi stack ls` does), sorted by full name. */
  stacks(project?: string): Promise<StackRef[]>;
  /** The stack's latest checkpoint; undefined when the stack does not exist. An existing stack with no deployment yet: empty lists. */
  state(ref: StackRef): Promise<StackState | undefined>;
  /** Locks held on the stack ([] when none; [] always for "cli"). */
  locks(ref: StackRef): Promise<StackLock[]>;
  /**
   * Files beside the stack's state that stop Pulumi's CLI from reading it although its state is
   * whole: a `file://` backend's empty `.attrs` file, which a kill during a write can leave
   * (`failed to load checkpoint: EOF`). Keys relative to the backend's root; [] for other backends.
   */
  unreadable(ref: StackRef): Promise<string[]>;
  /**
   * The file a stack's create journal is appended to while the catalog tool's `up` skips Pulumi's
   * intermediate checkpoints (`layout.ts`: `journalKey`): only where the backend is a folder.
   * Elsewhere undefined, and the tool keeps the checkpoints.
   */
  journalPath(ref: StackRef): string | undefined;
  /** That journal's text, if there is one (a run that skipped the checkpoints did not finish). */
  journal(ref: StackRef): Promise<string | undefined>;
  /** Removes it (the run's creates are in the state, or `recover` took them in). */
  removeJournal(ref: StackRef): Promise<void>;
  /** Removes what `unreadable` found (an `.attrs` file only holds a content type and an MD5, which Pulumi does without); returns the keys removed. */
  repair(ref: StackRef): Promise<string[]>;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** The backend URL; when absent, the CLI is asked which backend it is logged in to (`pulumi whoami --verbose --json`, its `url`). */
  url?: string;
  /** Environment for the CLI fallback and for PG* variables (PGPASSWORD etc.). Defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** The `pulumi` command for the fallback and for `whoami` (default "pulumi" on PATH). */
  pulumi?: string;
  /** Working directory for CLI calls (and what a relative `file://` path is relative to). */
  cwd?: string;
  /** "cli": read through the CLI even where the backend could be read directly (to compare the two, or to measure). */
  via?: "cli";
}

/** Where and how to connect to a `postgres://` backend's database (`postgres.ts`), from its URL and the PG* variables. */
export interface PostgresTarget {
  table: string;
  /** What every key starts with: the URL's path and "/" ("" for none). */
  prefix: string;
  config: PoolConfig;
  /** "negotiate": TLS if the server offers it (sslmode absent, prefer, allow). */
  tls: "negotiate" | "as-configured";
}
