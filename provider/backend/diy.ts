/**
 * A DIY backend read directly from its blob store (a folder, a PostgreSQL table): the layout
 * (layout.ts) and the blobs' content (checkpoint.ts) over a Bucket, which file.ts and postgres.ts
 * provide. Each method is one round trip to the store: stacks() one listing (meta.yaml with it),
 * state() one read of the checkpoint's candidates, locks() one read of the stack's lock folder.
 */
import { checkpointState, lockOf } from "./checkpoint";
import { StateBackendError } from "./errors";
import { META_KEY, STACKS_PREFIX, checkpointKeys, isDiyRef, journalKey, layoutOf, lockPrefix, stacksOf } from "./layout";
import { fullName, type PostgresTarget, type StackLock, type StackRef, type StackState, type StateBackend } from "./model";

export interface Blob {
  key: string;
  data: Buffer;
  /** Last modified, in ms since the epoch. */
  modified: number;
}

/** A blob store, keys relative to the backend's root. Each method is one round trip. */
export interface Bucket {
  /** Every key under `prefix` at any depth, and the blobs among `read` that exist. */
  list(prefix: string, read: readonly string[]): Promise<{ keys: string[]; blobs: Blob[] }>;
  /** The blobs among `keys` that exist. */
  read(keys: readonly string[]): Promise<Blob[]>;
  /** Every blob directly under `prefix` (none of a folder below it). */
  readUnder(prefix: string): Promise<Blob[]>;
  /** The keys among `keys` whose side file of attributes is empty (a `file://` backend's `.attrs`); none for other stores. */
  emptyAttributes?(keys: readonly string[]): Promise<string[]>;
  /** Removes the side files of attributes of `keys`. */
  removeAttributes?(keys: readonly string[]): Promise<void>;
  /** The file a key is, where the store is a folder (a process may append to it); none for other stores. */
  pathOf?(key: string): string;
  /** Removes the blobs `keys` (those that exist). */
  remove?(keys: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

export class DiyBackend implements StateBackend {
  readonly seesLocks = true;

  constructor(
    readonly url: string,
    readonly via: "file" | "postgres",
    private readonly bucket: Bucket,
    /** Masks a store's message (a driver's error may quote the URL). */
    private readonly mask: (text: string) => string,
    readonly postgres?: PostgresTarget,
    readonly readOnly?: string,
  ) {}

  async stacks(project?: string): Promise<StackRef[]> {
    const { keys, blobs } = await this.#do("listing the stacks", () => this.bucket.list(STACKS_PREFIX, [META_KEY]));
    const layout = this.#do("listing the stacks", () => layoutOf(blobs[0]?.data, keys));
    // A legacy stack has no project: Pulumi lists it whatever project is asked for (`stack ls --project`), and so does this.
    return stacksOf(keys, layout)
      .filter((ref) => project === undefined || ref.project === "" || ref.project === project)
      .sort((a, b) => compare(fullName(a), fullName(b)));
  }

  async state(ref: StackRef): Promise<StackState | undefined> {
    if (!isDiyRef(ref)) return undefined;
    const doing = `reading the stack ${fullName(ref)}`;
    const candidates = await this.#do(doing, () => this.bucket.read(checkpointKeys(ref)));
    // Pulumi's choice (`stackPath`): the last modified; of equal times, the later in key order (plain, .gz, .zst).
    const [latest] = candidates.sort((a, b) => b.modified - a.modified || compare(b.key, a.key));
    if (latest === undefined) return undefined;
    return this.#do(`${doing} (${latest.key})`, () => checkpointState(latest.data));
  }

  async locks(ref: StackRef): Promise<StackLock[]> {
    if (!isDiyRef(ref)) return [];
    const doing = `reading the locks of ${fullName(ref)}`;
    const blobs = await this.#do(doing, () => this.bucket.readUnder(lockPrefix(ref)));
    return this.#do(doing, () =>
      blobs
        .filter((blob) => blob.key.endsWith(".json"))
        .map((blob) => lockOf(blob.key, blob.data))
        .sort((a, b) => compare(a.timestamp, b.timestamp) || compare(a.key, b.key)),
    );
  }

  async unreadable(ref: StackRef): Promise<string[]> {
    if (!isDiyRef(ref) || this.bucket.emptyAttributes === undefined) return [];
    const bucket = this.bucket;
    const keys = await this.#do(`checking the files of ${fullName(ref)}`, () => bucket.emptyAttributes!(checkpointKeys(ref)));
    return keys.map((key) => `${key}.attrs`);
  }

  async repair(ref: StackRef): Promise<string[]> {
    const found = await this.unreadable(ref);
    if (found.length === 0) return [];
    const bucket = this.bucket;
    await this.#do(`repairing the files of ${fullName(ref)}`, () =>
      bucket.removeAttributes!(found.map((key) => key.slice(0, -".attrs".length))),
    );
    return found;
  }

  journalPath(ref: StackRef): string | undefined {
    return isDiyRef(ref) ? this.bucket.pathOf?.(journalKey(ref)) : undefined;
  }

  async journal(ref: StackRef): Promise<string | undefined> {
    // Only a folder ever holds one (`journalPath`): no read per stack of a database.
    if (!isDiyRef(ref) || this.bucket.pathOf === undefined) return undefined;
    const [blob] = await this.#do(`reading the create journal of ${fullName(ref)}`, () => this.bucket.read([journalKey(ref)]));
    return blob?.data.toString("utf8");
  }

  async removeJournal(ref: StackRef): Promise<void> {
    if (!isDiyRef(ref) || this.bucket.remove === undefined) return;
    const bucket = this.bucket;
    await this.#do(`removing the create journal of ${fullName(ref)}`, () => bucket.remove!([journalKey(ref)]));
  }

  close(): Promise<void> {
    return this.bucket.close();
  }

  /** `work`'s result, or a StateBackendError naming what was being done and why it failed. */
  #do<T>(doing: string, work: () => T): T {
    const fail = (error: unknown): never => {
      if (error instanceof StateBackendError) throw error;
      throw new StateBackendError(this.url, `${doing}: ${this.mask(describe(error))}`, { cause: error });
    };
    try {
      const result = work();
      return (result instanceof Promise ? result.catch(fail) : result) as T;
    } catch (error) {
      return fail(error);
    }
  }
}

/** An error's message, or its code when a driver left the message empty (AggregateError of a failed connect). */
export function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const { code } = error as { code?: unknown };
  const inner = error instanceof AggregateError ? error.errors.map((e: unknown) => (e instanceof Error ? e.message : String(e))) : [];
  return error.message || inner.join("; ") || (typeof code === "string" ? code : error.name);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
