/**
 * Stage 1 of every command: what is there. The catalog (read and checked in full), the change since
 * `--base`, and the state backend as it stands — every stack of the catalog with the products its
 * state records, its pending operations (a killed `up`) and its locks, and the products that stacks
 * outside the catalog record (another team's program, another catalog). Read from the backend
 * directly (`provider/backend`: files or PostgreSQL; other backends through `pulumi stack export`),
 * so it costs no request to the service and no `pulumi` run per stack where it can be helped.
 * Nothing here decides anything: `plan.ts` does.
 */
import {
  fullName,
  openStateBackend,
  StateBackendError,
  type StackLock,
  type StackRef,
  type StateBackend,
  type StateResource,
} from "../backend";
import { recordedProductId } from "../resources/product/recorded";
import { readJournal, type Journal } from "../resources/tool-protocol";
import { isUnconfirmed } from "../resources/unconfirmed";
import { compareCatalogs, readCatalog, readCatalogAt, type Catalog, type CatalogChange } from "./catalog";
import { CatalogError } from "./errors";
import { KIND, KINDS, kindOf, type Kind } from "./kinds";
import { parseStackName, type StackId } from "./layout";

/** A record (a product, a site, a task) as a catalog stack's state holds it. */
export interface Deployed {
  key: string;
  kind: Kind;
  urn: string;
  /** The record's id; a placeholder (`unconfirmed-create-…`) for a create whose answer was lost. */
  id: string;
  /** Recorded as an unconfirmed create: it may exist on the service under an id nobody knows. */
  unconfirmed: boolean;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
}

/** A record whose create (or update, delete) was in flight when a run was killed. */
export interface Pending {
  key: string;
  kind: Kind;
  urn: string;
  /** Pulumi's pending operation: `creating`, `updating`, `deleting`, … */
  op: string;
  inputs: Record<string, unknown>;
  /**
   * Named by the create journal beside the state, not by the state: a run that skipped Pulumi's
   * checkpoints was killed after sending the create (`recover` takes it in with a targeted up).
   */
  journaled?: true;
  /** The id the journal gives it (its answer arrived), if it does. */
  id?: string;
}

/** A catalog stack as the backend holds it. */
export interface StackFacts {
  name: string;
  /** `organization/<project>/<name>`, as other stacks' messages name it. */
  fullName: string;
  /** The stack as the backend knows it. */
  ref: StackRef;
  id: StackId;
  /** The records its state holds (products, sites, tasks), by key. */
  records: Map<string, Deployed>;
  pending: Pending[];
  locks: StackLock[];
  /** Why its state cannot be read (a checkpoint cut off by a kill), if it cannot. */
  damaged?: string;
  /** The create journal beside the state: a run that skipped Pulumi's checkpoints and did not finish (run.ts). */
  journal?: Journal;
}

/** A product another stack records: which stack, and under which name. */
export interface Elsewhere {
  stack: string;
  name: string;
}

export interface Discovery {
  catalog: Catalog;
  /** The Pulumi project of the catalog's stacks. */
  project: string;
  /** The change since `--base` (undefined without it). */
  change?: CatalogChange;
  backend: { url: string; via: StateBackend["via"]; seesLocks: boolean; postgres?: StateBackend["postgres"]; readOnly?: string };
  /** Every stack of the catalog in the backend, by name. */
  stacks: Map<string, StackFacts>;
  /** Product ids (lower case) that stacks outside the catalog record. */
  elsewhere: Map<string, Elsewhere[]>;
}

export interface DiscoverOptions {
  catalogDir: string;
  base?: string;
  project: string;
  stackPrefix: string;
  /** Read the stacks outside the catalog too (every project of the backend): for the checks of who else manages a product. */
  elsewhere: boolean;
  /** The `pulumi` command and a folder to run it in, for backends read through the CLI. */
  pulumi: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** Stacks read at once: a backend read is I/O-bound, and the CLI fallback starts a process per stack. */
const READERS = 8;

export async function discover(options: DiscoverOptions, note: (line: string) => void): Promise<Discovery> {
  const catalog = readCatalog(options.catalogDir);
  const change = options.base === undefined ? undefined : compareCatalogs(readCatalogAt(options.base, options.catalogDir, note), catalog);
  let backend: StateBackend;
  try {
    backend = await openStateBackend({ env: options.env, pulumi: options.pulumi, cwd: options.cwd });
  } catch (error) {
    throw asRefusal(error);
  }
  try {
    const refs = await backend.stacks();
    const stacks = new Map<string, StackFacts>();
    const elsewhere = new Map<string, Elsewhere[]>();
    await each(refs, READERS, async (ref) => {
      const id = ref.project === options.project ? parseStackName(options.stackPrefix, ref.stack) : undefined;
      if (id === undefined && !options.elsewhere) return;
      let state: Awaited<ReturnType<StateBackend["state"]>>;
      try {
        state = await backend.state(ref);
      } catch (error) {
        // One stack's unreadable state (a checkpoint cut off by a kill) stops that stack, not the run.
        if (id === undefined || !(error instanceof StateBackendError)) throw error;
        const damaged = String(error.message);
        stacks.set(ref.stack, {
          name: ref.stack,
          fullName: fullName(ref),
          ref,
          id,
          records: new Map(),
          pending: [],
          locks: await backend.locks(ref),
          damaged,
        });
        return;
      }
      if (state === undefined) return;
      if (id === undefined) {
        for (const resource of state.resources) {
          const productId = recordedProductId(resource);
          if (productId === undefined) continue;
          const list = elsewhere.get(productId) ?? [];
          list.push({ stack: fullName(ref), name: keyOf(resource.urn) });
          elsewhere.set(productId, list);
        }
        return;
      }
      // A file beside the state that stops the CLI from reading it (a `file://` backend's empty `.attrs`).
      const unreadable = await backend.unreadable(ref);
      const records = new Map<string, Deployed>();
      for (const r of state.resources) {
        const kind = kindOf(r);
        if (kind === undefined || r.id === undefined || (r as StateResource & { delete?: boolean }).delete === true) continue;
        records.set(keyOf(r.urn), {
          key: keyOf(r.urn),
          kind,
          urn: r.urn,
          id: r.id,
          unconfirmed: isUnconfirmed(r.outputs),
          inputs: r.inputs,
          outputs: r.outputs,
        });
      }
      const pending: Pending[] = state.pending.flatMap((op) => {
        const kind = kindOf(op.resource);
        return kind === undefined
          ? []
          : [{ key: keyOf(op.resource.urn), kind, urn: op.resource.urn, op: op.type, inputs: op.resource.inputs }];
      });
      const text = await backend.journal(ref);
      const journal = text === undefined ? undefined : readJournal(text);
      if (journal !== undefined) pending.push(...journaledCreates(ref, journal, records, pending));
      stacks.set(ref.stack, {
        name: ref.stack,
        fullName: fullName(ref),
        ref,
        id,
        records,
        pending,
        locks: await backend.locks(ref),
        ...(journal !== undefined && { journal }),
        ...(unreadable.length > 0 && {
          damaged: `${unreadable.join(", ")} is empty, and Pulumi's CLI fails with "failed to load checkpoint: EOF"`,
        }),
      });
    });
    return {
      catalog,
      project: options.project,
      change,
      backend: {
        url: backend.url,
        via: backend.via,
        seesLocks: backend.seesLocks,
        postgres: backend.postgres,
        ...(backend.readOnly !== undefined && { readOnly: backend.readOnly }),
      },
      stacks,
      elsewhere,
    };
  } catch (error) {
    throw asRefusal(error);
  } finally {
    await backend.close();
  }
}

/**
 * The creates a killed run that skipped the checkpoints sent and the state does not record: each
 * key its journal names (sent, or answered) that the state holds no record of. A key the state
 * holds was recorded after all (the run ended, and the tool was killed before it removed the journal).
 */
function journaledCreates(ref: StackRef, journal: Journal, records: Map<string, Deployed>, pending: Pending[]): Pending[] {
  const out: Pending[] = [];
  const types = new Map([...journal.creating.values(), ...journal.created.values()].map((r) => [r.name, r.type]));
  for (const [key, type] of types) {
    const kind = KINDS.find((k) => KIND[k].resource === type);
    if (kind === undefined || records.has(key) || pending.some((p) => p.key === key)) continue;
    out.push({
      key,
      kind,
      urn: `urn:pulumi:${ref.stack}::${ref.project}::${KIND[kind].type}::${key}`,
      op: "creating",
      inputs: {},
      journaled: true,
      ...(journal.created.has(key) && { id: journal.created.get(key)!.id }),
    });
  }
  return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** A product's key: the last part of its URN (its logical name). */
export function keyOf(urn: string): string {
  return urn.split("::").pop()!;
}

function asRefusal(error: unknown): unknown {
  if (!(error instanceof StateBackendError)) return error;
  const where = process.env.PULUMI_BACKEND_URL ? "PULUMI_BACKEND_URL" : "the backend of `pulumi login`";
  return new CatalogError(`${error.message} (check ${where})`);
}

async function each<T>(items: T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, worker));
}
