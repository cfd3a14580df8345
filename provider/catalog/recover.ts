/**
 * `recover`: a stack a killed run left behind made usable again, without a duplicate.
 *
 * A killed `up` (SIGKILL, a lost runner, a job killed after its timeout) leaves, per stack it ran:
 * - **a lock** — cleared when the run that holds it is certainly gone: a process of this machine
 *   that no longer exists, or any holder with `--force-unlock` (another machine's run cannot be
 *   checked from here: a cancelled or lost CI job is gone, a running one is not);
 * - **pending creates** — the products whose create was in flight. Each one whose answer the
 *   provider wrote into the create journal (`resources/journal.ts`; the work folder's journal folder, or
 *   `--journal DIR` copied from the killed runner) is taken into the stack with that id (then read:
 *   one empty PATCH, nothing created) and reported as adopted.
 *   Each one without an answer may or may not exist on the service, which cannot list products: it
 *   is taken in as the placeholder of a lost create, so no later `up` creates it again by itself, and
 *   it is named with what a person searches for in the service's UI (title, slug) and both ways out
 *   (`adoptId` once found; `recover --create-anew KEY` when it is not there);
 * - **other pending operations** (an update or delete in flight), dropped: their resources are in the state.
 * No request creates or changes a record: a targeted refresh reads the products taken in by id.
 */
import { readdirSync, readFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { openStateBackend, type OpenOptions, type StateResource } from "../backend";
import { readJournal, type JournalEntry } from "../resources/journal";
import { isProductResource } from "../resources/product/recorded";
import { placeholderId, unconfirmed } from "../resources/unconfirmed";
import { keyOf, type Discovery, type StackFacts } from "./discover";
import { CatalogError } from "./errors";
import type { Output } from "./run";
import type { Workspaces } from "./workspace";

export interface RecoverOptions {
  /** How to open the state backend again (to repair a stack's files). */
  backend: OpenOptions;
  stacks: string[];
  forceUnlock: boolean;
  createAnew: string[];
  /** Folders of create journals (default: the work folder's). */
  journals: string[];
}

/** What recover did to one stack, for the report and the exit code. */
export interface Recovered {
  stack: string;
  lines: string[];
  /** Something could not be recovered here (a lock another machine holds). */
  refused: boolean;
}

export async function recover(discovery: Discovery, options: RecoverOptions, workspaces: Workspaces, io: Output): Promise<Recovered[]> {
  const journal = readJournals(options.journals);
  const anew = new Set(options.createAnew);
  for (const key of anew) {
    const found = [...discovery.stacks.values()].some((s) => s.products.get(key)?.unconfirmed === true);
    if (!found)
      throw new CatalogError(`--create-anew ${key}: no stack holds ${key} as a create whose answer was lost; nothing to create anew`);
  }
  const named = new Set(options.stacks);
  for (const name of named)
    if (!discovery.stacks.has(name)) throw new CatalogError(`--stack ${name}: no such stack of the catalog in this backend`);
  const chosen = [...discovery.stacks.values()]
    .filter((s) => (named.size === 0 ? needsRecovery(s, anew) : named.has(s.name)))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  const out: Recovered[] = [];
  for (const facts of chosen) {
    const result: Recovered = { stack: facts.name, lines: [], refused: false };
    out.push(result);
    // 0. A file beside the state that stops the CLI from loading it (a `file://` backend's empty `.attrs`): first, or `pulumi cancel` fails too.
    if (facts.damaged !== undefined) {
      for (const key of await repair(facts, options))
        result.lines.push(`repaired: removed ${key}, an empty attributes file the kill left, which stopped Pulumi from loading the state`);
    }
    // 1. The lock.
    for (const lock of facts.locks) {
      const here = lock.hostname === hostname();
      const gone = here && !alive(lock.pid);
      if (here && !gone) {
        result.lines.push(
          `locked by pid ${lock.pid}, a process still running on this machine: left as it is (let it end, or stop it first)`,
        );
        result.refused = true;
      } else if (gone || options.forceUnlock) {
        await workspaces.run(facts.name, ["cancel", "--stack", facts.name, "--yes"]);
        result.lines.push(
          `unlocked: the lock of ${lock.username}@${lock.hostname} (pid ${lock.pid}) since ${lock.timestamp} ` +
            (gone ? "(that process is gone)" : "(--force-unlock)"),
        );
      } else {
        result.lines.push(
          `locked by ${lock.username}@${lock.hostname} (pid ${lock.pid}) since ${lock.timestamp}, another machine this tool cannot check: ` +
            `if that run is gone (a cancelled, killed or lost job), run \`serviceapi-catalog recover --force-unlock --stack ${facts.name}\``,
        );
        result.refused = true;
      }
    }
    if (result.refused) continue;

    // 2. Pending operations: each create taken into the state — with its id (from the journal), then read; or as a placeholder.
    if (facts.pending.length > 0) result.lines.push(...(await takeInPending(workspaces, facts, journal)));
    // 3. Creates whose answer was lost, which the user checked are not on the service: forgotten, so the next up creates them.
    for (const key of anew) {
      const deployed = facts.products.get(key);
      if (deployed?.unconfirmed !== true) continue;
      await workspaces.run(facts.name, ["state", "delete", "--stack", facts.name, "--yes", deployed.urn]);
      result.lines.push(`+ ${key}: forgotten as a lost create (--create-anew): the next up creates it`);
    }
    if (result.lines.length === 0) result.lines.push("nothing to recover");
  }
  for (const r of out) {
    io.out(`${r.stack}:${r.refused ? " NOT RECOVERED" : ""}`);
    for (const line of r.lines) io.out(`  ${line}`);
  }
  if (out.length === 0) io.out("no stack of the catalog is locked or has pending operations: nothing to recover");
  return out;
}

/**
 * The killed run's pending operations resolved in the state itself (`pulumi stack export`, edit,
 * `pulumi stack import`): Pulumi 3.248's `refresh --import-pending-creates` only drops the pending
 * creates it is given (seen here: the records were neither read nor recorded), so the tool writes
 * each pending create into the state as the resource it is — the record the journal names, read
 * at once with a targeted refresh (one empty PATCH each, nothing created), or the placeholder of a
 * lost create — and drops the other pending operations (their resources are in the state already).
 */
async function takeInPending(workspaces: Workspaces, facts: StackFacts, journal: JournalEntry[]): Promise<string[]> {
  const lines: string[] = [];
  const stack = await workspaces.stack(facts.name);
  const exported = await stack.exportStack();
  const deployment = exported.deployment as {
    resources?: StateResource[];
    pending_operations?: { type: string; resource: StateResource }[];
  };
  const resources = deployment.resources ?? [];
  const known: string[] = [];
  const others: string[] = [];
  for (const op of deployment.pending_operations ?? []) {
    const key = keyOf(op.resource.urn);
    if (op.type !== "creating" || !isProductResource(op.resource)) {
      others.push(`${key}: ${op.type}`);
      continue;
    }
    // The id of a create that returned: the engine may have written it on the pending operation already; else the
    // journal has it (truncated when an up of the stack starts, so its last line for the key is this run's).
    const id = UUID.test(op.resource.id ?? "")
      ? op.resource.id
      : journal.findLast((e) => (e.urn !== undefined ? e.urn === op.resource.urn : e.name === key))?.id;
    const inputs = op.resource.inputs ?? {};
    if (id !== undefined) {
      resources.push({ ...op.resource, id, outputs: { ...inputs } });
      known.push(op.resource.urn);
      lines.push(`= ${key} (adopted ${id}: its create returned before the kill, and the run recorded its id; read, nothing created)`);
      continue;
    }
    resources.push({ ...op.resource, id: placeholderId(), outputs: { ...inputs, ...unconfirmed("products.create", new Date(), true) } });
    const title = typeof inputs.title === "string" ? inputs.title : "";
    const slug = typeof inputs.slug === "string" ? `, slug ${JSON.stringify(inputs.slug)}` : "";
    lines.push(
      `? ${key}: in flight, find and adopt — its create was sent and its answer never came, so it may exist on the service ` +
        `(title ${JSON.stringify(title)}${slug}). Find it in the service's UI and add \`adoptId: <its id>\` to its entry; ` +
        `if it is not there, \`serviceapi-catalog recover --create-anew ${key}\`. Until then no up creates it`,
    );
  }
  deployment.resources = resources;
  deployment.pending_operations = [];
  await stack.importStack(exported);
  if (known.length > 0) await stack.refresh({ target: known });
  if (others.length > 0)
    lines.push(`cleared ${others.length} other pending operation(s) (${others.join(", ")}): their resources are in the state`);
  return lines;
}

/** Removes what stops the CLI from loading the stack's state (`provider/backend`: `repair`). */
async function repair(facts: StackFacts, options: RecoverOptions): Promise<string[]> {
  const backend = await openStateBackend(options.backend);
  try {
    return await backend.repair(facts.ref);
  } finally {
    await backend.close();
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function needsRecovery(facts: StackFacts, anew: Set<string>): boolean {
  return (
    facts.damaged !== undefined ||
    facts.locks.length > 0 ||
    facts.pending.length > 0 ||
    [...anew].some((key) => facts.products.get(key)?.unconfirmed === true)
  );
}

/** Every create journal in the folders (one `<stack>.jsonl` per stack). */
function readJournals(dirs: string[]): JournalEntry[] {
  const out: JournalEntry[] = [];
  for (const dir of dirs) {
    let files: string[];
    try {
      files = readdirSync(dir).filter((f) => f.endsWith(".jsonl"));
    } catch {
      continue;
    }
    for (const file of files) out.push(...readJournal(readFileSync(join(dir, file), "utf8")));
  }
  return out;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
