/**
 * `recover`: a stack a killed run left behind made usable again, without a duplicate.
 *
 * A killed `up` (SIGKILL, a lost runner, a job killed after its timeout) leaves, per stack it ran:
 * - **a lock** — cleared when the run that holds it is certainly gone: a process of this machine
 *   that no longer exists, or any holder with `--force-unlock` (another machine's run cannot be
 *   checked from here: a cancelled or lost CI job is gone, a running one is not);
 * - **pending creates** — the products whose create was in flight. A create that returned before the
 *   kill has its id somewhere: on the pending operation (the engine wrote it), in the create journal
 *   the provider writes the moment the answer arrives (`resources/journal.ts`; the work folder's
 *   journal folder, or `--journal DIR` copied from the killed runner), or in the killed run's log
 *   (`--created-log FILE`: the lines `created-lines.ts` prints). Such a create is taken into the stack
 *   with that id (then read: one empty PATCH, nothing created) and reported as adopted. A create with
 *   no id anywhere was sent and may well exist — a create sent is usually processed — and the API
 *   cannot list products: it is taken in as the placeholder of a lost create, so no later `up` creates
 *   it again by itself, and it is named with what a person searches for in the service's UI (title,
 *   slug) and both ways out (`adoptId` once found; `recover --create-anew KEY` when it is certainly
 *   not there). A later `recover` with a journal or log that has its id takes the placeholder in too;
 * - **other pending operations** (an update or delete in flight), dropped: their resources are in the state;
 * - where the run skipped Pulumi's checkpoints (a `file://` backend: `run.ts`), **a create journal
 *   beside the state** instead of pending creates: every create it names that the state lacks is
 *   taken in by a targeted `up` whose providers create nothing (`takeInJournaled`), then the journal
 *   is removed.
 * No request creates or changes a record: a targeted refresh reads the products taken in by id.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { openStateBackend, type OpenOptions, type StateResource } from "../backend";
import { isUuid } from "../contract/schemas";
import { readCreated, takeInText, TOOL_ENV } from "../resources/tool-protocol";
import { UNCONFIRMED, isUnconfirmed, placeholderId, unconfirmed } from "../resources/unconfirmed";
import { ServiceApiClient, type ClientOptions } from "../client";
import type { LockHolder, Manager, Recovery } from "./changes";
import { parseCreatedLines } from "./created-lines";
import { keyOf, type Discovery, type StackFacts } from "./discover";
import { adoptIdOf } from "./catalog";
import { kindOf } from "./kinds";
import { CatalogError } from "./errors";
import { lostCreate } from "./plan";
import { statFields } from "./reaper";
import { resolveProjects } from "./projects";
import { describeRecovery } from "./report";
import { programItem, type Output } from "./run";
import { meaningfulLines } from "./stack-run";
import type { Workspaces } from "./workspace";

export interface RecoverOptions {
  /** How to open the state backend again (to repair a stack's files). */
  backend: OpenOptions;
  stacks: string[];
  forceUnlock: boolean;
  createAnew: string[];
  /** Folders of create journals (default: the work folder's). */
  journals: string[];
  /** Logs of killed runs, read for their `created Product` lines. */
  logs: string[];
  /** The client's settings, for the reads that check an id a log gave. */
  settings: ClientOptions;
  /** The tool's work folder (the take-in files of a targeted up). */
  workDir: string;
}

/** What recover did to one stack, for the report and the exit code. */
export interface Recovered {
  stack: string;
  lines: Recovery[];
  /** Something could not be recovered here (a lock another machine holds). */
  refused: boolean;
}

/** An id found for a killed run's create: written by the run itself (its create journal), or read from a log a person gave. */
interface KnownId {
  id: string;
  /** The log it came from; none for the run's own journal. */
  log?: string;
}

/** Where the ids of a killed run's creates were found: stack → key → id (the last one recorded wins). */
type KnownIds = Map<string, Map<string, KnownId>>;

export async function recover(discovery: Discovery, options: RecoverOptions, workspaces: Workspaces, io: Output): Promise<Recovered[]> {
  const known = knownIds(options);
  const anew = new Set(options.createAnew);
  for (const key of anew) {
    const found = [...discovery.stacks.values()].some((s) => s.records.get(key)?.unconfirmed === true);
    if (!found)
      throw new CatalogError(`--create-anew ${key}: no stack holds ${key} as a create whose answer was lost; nothing to create anew`);
  }
  const named = new Set(options.stacks);
  for (const name of named)
    if (!discovery.stacks.has(name)) throw new CatalogError(`--stack ${name}: no such stack of the catalog in this backend`);
  const chosen = [...discovery.stacks.values()]
    .filter((s) => (named.size === 0 ? needsRecovery(s) : named.has(s.name)))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  const out: Recovered[] = [];
  for (const facts of chosen) {
    const result: Recovered = { stack: facts.name, lines: [], refused: false };
    out.push(result);
    try {
      await recoverStack(facts, result);
    } finally {
      // Each stack's lines as it is done with (a refused one included), not all at the end: a long recovery shows where it is.
      // Refused by a lock, nothing was done; by a key it could not take in, the rest was (its lines say what).
      const stuck = result.lines.some((line) => line.code === "undeclared") ? " STILL BLOCKED" : " NOT RECOVERED";
      io.out(`${result.stack}:${result.refused ? stuck : ""}`);
      for (const line of result.lines) io.out(`  ${describeRecovery(line)}`);
    }
  }
  if (out.length === 0)
    io.out("no stack of the catalog is locked or has pending operations or lost creates to take in: nothing to recover");
  return out;

  async function recoverStack(facts: StackFacts, result: Recovered): Promise<void> {
    // 0. A file beside the state that stops the CLI from loading it (a `file://` backend's empty `.attrs`): first, or `pulumi cancel` fails too.
    if (facts.damaged !== undefined) for (const file of await repair(facts, options)) result.lines.push({ code: "repaired", file });
    // 1. The lock.
    for (const lock of facts.locks) {
      const here = lock.hostname === hostname();
      const gone = here && !alive(lock.pid);
      const by: LockHolder = { username: lock.username, hostname: lock.hostname, pid: lock.pid, since: lock.timestamp };
      if (here && !gone) {
        result.lines.push({ code: "locked-running", pid: lock.pid });
        result.refused = true;
      } else if (gone || options.forceUnlock) {
        await workspaces.run(facts.name, ["cancel", "--stack", facts.name, "--yes"]);
        result.lines.push({ code: "unlocked", by, forced: !gone });
      } else {
        result.lines.push({ code: "locked-elsewhere", by, stack: facts.name });
        result.refused = true;
      }
    }
    if (result.refused) return;

    // 2. Pending creates and lost creates: each taken into the state — by its id where one was recorded, then read; or as a placeholder.
    const ids = known.get(facts.name) ?? new Map<string, KnownId>();
    // The journal beside the state (a run that skipped the checkpoints) is this stack's own, whatever runner ran it.
    for (const [key, created] of facts.journal?.created ?? []) ids.set(key, { id: created.id });
    // An id from a log a person gave is checked first: a pasted line of another stack's product must not be taken over here.
    for (const line of await vetLogIds(facts, ids, discovery, options)) result.lines.push(line);
    const lostWithId = [...facts.records.values()].filter((d) => d.unconfirmed && ids.has(d.key));
    if (facts.pending.some((p) => p.journaled !== true) || lostWithId.length > 0)
      result.lines.push(...(await takeIn(workspaces, facts, ids, discovery)));
    if (facts.pending.some((p) => p.journaled === true)) {
      const taken = await takeInJournaled(workspaces, facts, ids, discovery, options);
      result.lines.push(...taken);
      if (taken.some((line) => line.code === "undeclared")) result.refused = true;
    }
    // Everything the journal named is in the state now: the stack is whole without it.
    if (facts.journal !== undefined && !result.refused)
      result.lines.push({ code: "journal-removed", file: await removeJournal(facts, options) });
    // 3. Creates whose answer was lost, which the user checked are not on the service: forgotten, so the next up creates them.
    for (const key of anew) {
      const deployed = facts.records.get(key);
      if (deployed?.unconfirmed !== true) continue;
      await workspaces.run(facts.name, ["state", "delete", "--stack", facts.name, "--yes", deployed.urn]);
      result.lines.push({ code: "create-anew", key });
    }
    // 4. Lost creates no id turned up for: still named, as plan and preview name them, until someone adopts or re-creates them.
    for (const deployed of facts.records.values()) {
      if (!deployed.unconfirmed || ids.has(deployed.key) || anew.has(deployed.key)) continue;
      // Found and adopted in the catalog already: nothing left to do here but the next up.
      const adoptId = adoptIdOf(discovery.catalog.get(deployed.key)?.entry);
      if (adoptId !== undefined) {
        result.lines.push({ code: "adopt-next", key: deployed.key, adoptId });
        continue;
      }
      result.lines.push({
        code: "lost",
        reason: lostCreate(facts.name, deployed.key, discovery.catalog.get(deployed.key), deployed.inputs, deployed.kind),
        now: false,
      });
    }
    if (result.lines.length === 0) result.lines.push({ code: "nothing" });
  }
}

/**
 * The killed run's pending operations, and lost creates whose id has turned up, resolved in the
 * state itself (`pulumi stack export`, edit, `pulumi stack import`): Pulumi 3.248's
 * `refresh --import-pending-creates` only drops the pending creates it is given (seen here: the
 * records were neither read nor recorded), so the tool writes each into the state as the resource it
 * is — the record its id names, read at once with a targeted refresh (one empty PATCH each, nothing
 * created), or the placeholder of a lost create — and drops the other pending operations (their
 * resources are in the state already).
 */
async function takeIn(workspaces: Workspaces, facts: StackFacts, ids: Map<string, KnownId>, discovery: Discovery): Promise<Recovery[]> {
  const lines: Recovery[] = [];
  const stack = await workspaces.stack(facts.name);
  const exported = await stack.exportStack();
  const deployment = exported.deployment as {
    resources?: StateResource[];
    pending_operations?: { type: string; resource: StateResource }[];
  };
  const resources = deployment.resources ?? [];
  const read: string[] = [];
  const others: string[] = [];
  const idOf = (resource: StateResource): KnownId | undefined =>
    isUuid(resource.id ?? "") ? { id: resource.id! } : ids.get(keyOf(resource.urn));
  // Lost creates (placeholders) whose id a journal or log now gives.
  for (const resource of resources) {
    const known = isUnconfirmed(resource.outputs) ? ids.get(keyOf(resource.urn)) : undefined;
    if (known === undefined) continue;
    const { [UNCONFIRMED]: _marker, ...outputs } = resource.outputs;
    Object.assign(resource, { id: known.id, outputs: { ...resource.inputs, ...outputs } });
    read.push(resource.urn);
    lines.push({ code: "taken-in", key: keyOf(resource.urn), id: known.id, was: "lost", source: known.log === undefined ? "run" : "log" });
  }
  for (const op of deployment.pending_operations ?? []) {
    const key = keyOf(op.resource.urn);
    // A product's or a task's create in flight may have made a record (a site is never created: taking it over again is harmless).
    const kind = kindOf(op.resource);
    if (op.type !== "creating" || (kind !== "product" && kind !== "task")) {
      others.push(`${key}: ${op.type}`);
      continue;
    }
    const known = idOf(op.resource);
    const inputs = op.resource.inputs ?? {};
    if (known !== undefined) {
      resources.push({ ...op.resource, id: known.id, outputs: { ...inputs } });
      read.push(op.resource.urn);
      lines.push({ code: "taken-in", key, id: known.id, was: "pending", source: known.log === undefined ? "run" : "log" });
      continue;
    }
    resources.push({
      ...op.resource,
      id: placeholderId(),
      outputs: { ...inputs, ...unconfirmed(kind === "task" ? "tasks.create" : "products.create", new Date(), true) },
    });
    lines.push({ code: "lost", reason: lostCreate(facts.name, key, discovery.catalog.get(key), inputs, kind), now: true });
  }
  deployment.resources = resources;
  deployment.pending_operations = [];
  await stack.importStack(exported);
  if (read.length > 0) await stack.refresh({ target: read });
  if (others.length > 0) lines.push({ code: "cleared", operations: others });
  return lines;
}

/**
 * The creates a killed run that skipped Pulumi's checkpoints sent (`run.ts`): its journal beside the
 * state names them, the state does not. Taken in by a targeted `up` of exactly those records —
 * the engine writes each as the resource it is (the stack and its provider too, for a stack whose
 * first up was killed) — whose providers create nothing: each record is taken in by the id the
 * journal gives, and read (one empty PATCH), or as the placeholder of a create whose answer was lost
 * (`SERVICEAPI_TAKE_IN`, resources/journal.ts). A key the catalog no longer declares cannot be
 * declared to the engine: it is named, and the stack stays blocked.
 */
async function takeInJournaled(
  workspaces: Workspaces,
  facts: StackFacts,
  ids: Map<string, KnownId>,
  discovery: Discovery,
  options: RecoverOptions,
): Promise<Recovery[]> {
  const lines: Recovery[] = [];
  const pending = facts.pending.filter((p) => p.journaled === true);
  const declared = pending.filter((p) => discovery.catalog.get(p.key)?.kind === p.kind);
  for (const p of pending) {
    if (declared.includes(p)) continue;
    const id = ids.get(p.key)?.id;
    lines.push({ code: "undeclared", key: p.key, stack: facts.name, ...(id !== undefined && { id }) });
  }
  if (declared.length === 0) return lines;
  const part = new Map(declared.map((p) => [p.key, discovery.catalog.get(p.key)!]));
  // The projects by name, as the up resolved them (one listing); no record here is a site.
  const projects = await resolveProjects(part, options.settings);
  const items = declared.map((p) => programItem(part.get(p.key)!, { projects: projects.ids, sites: projects.sites }));
  const file = join(options.workDir, "take-in", `${facts.name}.json`);
  mkdirSync(join(options.workDir, "take-in"), { recursive: true });
  writeFileSync(file, takeInText(Object.fromEntries(declared.map((p) => [p.key, ids.get(p.key)?.id ?? null]))));
  const stack = await workspaces.stack(facts.name, items, { [TOOL_ENV.takeIn]: file }, true);
  try {
    await stack.up({ target: declared.map((p) => p.urn) });
  } catch (error) {
    throw new CatalogError(
      `${facts.name}: taking in the killed run's creates failed (${meaningfulLines(error).join(" ")}); what was taken in stays, ` +
        "and the journal beside the state still names the rest: run recover again",
    );
  }
  for (const p of declared) {
    const known = ids.get(p.key);
    lines.push(
      known !== undefined
        ? { code: "taken-in", key: p.key, id: known.id, was: "pending", source: known.log === undefined ? "run" : "log" }
        : { code: "lost", reason: lostCreate(facts.name, p.key, part.get(p.key), {}, p.kind), now: true },
    );
  }
  return lines;
}

/** Removes the journal beside the stack's state; its key, as the line names it. */
async function removeJournal(facts: StackFacts, options: RecoverOptions): Promise<string> {
  const backend = await openStateBackend(options.backend);
  try {
    await backend.removeJournal(facts.ref);
    return backend.journalPath(facts.ref) ?? "the create journal";
  } finally {
    await backend.close();
  }
}

/**
 * The ids a log gave for this stack's creates, checked before any is taken in (and dropped from
 * `ids` when one is refused): a product another stack already records (a line of another stack's
 * log, pasted) is not taken over; nor one whose title or slug is not what the entry declared (one
 * read each, the empty PATCH the take-in makes anyway; a task cannot be read, so only the first check
 * holds for it). The run's own journal needs no such check.
 */
async function vetLogIds(facts: StackFacts, ids: Map<string, KnownId>, discovery: Discovery, options: RecoverOptions): Promise<Recovery[]> {
  const fromLogs = [...ids].filter(([key, known]) => known.log !== undefined && isUuid(known.id) && wantsId(facts, key));
  if (fromLogs.length === 0) return [];
  const recordedBy = new Map<string, Manager[]>();
  for (const [id, list] of discovery.elsewhere) recordedBy.set(id, [...list]);
  for (const other of discovery.stacks.values()) {
    for (const record of other.records.values()) {
      if (other.name === facts.name && record.unconfirmed) continue;
      const id = record.id.toLowerCase();
      recordedBy.set(id, [...(recordedBy.get(id) ?? []), { stack: other.fullName, name: record.key }]);
    }
  }
  const lines: Recovery[] = [];
  const client = new ServiceApiClient(options.settings);
  try {
    for (const [key, known] of fromLogs) {
      const managers = recordedBy.get(known.id.toLowerCase());
      const refuse = (more: Partial<Extract<Recovery, { code: "id-refused" }>>) => {
        ids.delete(key);
        lines.push({ code: "id-refused", key, id: known.id, log: known.log!, ...more });
      };
      if (managers !== undefined) {
        refuse({ managers });
        continue;
      }
      // The API cannot read a task: its id from a log is taken on trust, as an adoptId is.
      if (discovery.catalog.get(key)?.kind === "task") continue;
      const declared = declaredInputs(facts, key);
      const live = (await client.updateProduct(known.id, {})) as unknown as Record<string, unknown>;
      const differs = ["title", "slug"].find(
        (field) => declared[field] !== undefined && declared[field] !== null && live[field] !== declared[field],
      );
      if (differs !== undefined) refuse({ differs: { field: differs, live: live[differs] ?? null, declared: declared[differs] } });
    }
  } finally {
    await client.close();
  }
  return lines;
}

/** Whether the stack waits for an id for `key`: a pending create, or a lost create. */
function wantsId(facts: StackFacts, key: string): boolean {
  return facts.pending.some((p) => p.key === key && p.op === "creating") || facts.records.get(key)?.unconfirmed === true;
}

/** What the killed run declared for `key`'s create. */
function declaredInputs(facts: StackFacts, key: string): Record<string, unknown> {
  return facts.pending.find((p) => p.key === key)?.inputs ?? facts.records.get(key)?.inputs ?? {};
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

function needsRecovery(facts: StackFacts): boolean {
  return (
    facts.damaged !== undefined ||
    facts.journal !== undefined ||
    facts.locks.length > 0 ||
    facts.pending.length > 0 ||
    // Every lost create: taken in when an id turned up, named again when none did (plan and preview name it too).
    [...facts.records.values()].some((d) => d.unconfirmed)
  );
}

/** The ids the killed runs recorded: every create journal in the folders (`<stack>.jsonl`), then every log's created lines. */
function knownIds(options: RecoverOptions): KnownIds {
  const known: KnownIds = new Map();
  const add = (stack: string, key: string, id: KnownId) => {
    const ids = known.get(stack) ?? new Map<string, KnownId>();
    ids.set(key, id);
    known.set(stack, ids);
  };
  for (const dir of options.journals) {
    let files: string[];
    try {
      files = readdirSync(dir).filter((f) => f.endsWith(".jsonl"));
    } catch {
      continue;
    }
    for (const file of files)
      for (const e of readCreated(readFileSync(join(dir, file), "utf8"))) add(file.slice(0, -".jsonl".length), e.name, { id: e.id });
  }
  for (const log of options.logs) {
    let text: string;
    try {
      text = readFileSync(log, "utf8");
    } catch (error) {
      throw new CatalogError(`--created-log ${log}: cannot be read (${(error as NodeJS.ErrnoException).code ?? error})`);
    }
    for (const line of parseCreatedLines(text)) add(line.stack, line.key, { id: line.id, log });
  }
  return known;
}

/**
 * Whether the process that holds a lock still runs. A zombie does not: a killed run's `pulumi`,
 * reparented to a PID 1 that does not collect its children (a container without an init), stays
 * one for good, and a lock it held would never be cleared (seen in the random-kill test).
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  const state = process.platform === "linux" ? statFields(pid)?.[0] : undefined;
  return state !== "Z" && state !== "X";
}
