/**
 * Stage 3: running the planned stacks — `--parallel` at a time, through the Automation API, with one
 * rate-limit pacer shared by every process of every stack (the limit is the token's), the create
 * journal per stack (for `recover`), a log file per stack (everything the engine printed), and
 * resume: after a run with failures, the same command skips the stacks it finished with the same
 * products and settings. A stack that must not run (a lock, pending creates: `plan.ts`) is reported
 * as blocked with the way out, and never hides another stack's result.
 *
 * **Checkpoints.** Pulumi's DIY backends write the whole state after every step, so a stack's `up`
 * costs the square of its size (docs/scale.md); `PULUMI_SKIP_CHECKPOINTS` writes it once, at the
 * end — and a run killed before then leaves no trace in the state of what it sent. On a `file://`
 * backend the tool's `up` skips them, because the create journal then lies beside the state
 * (`.pulumi/serviceapi/journal/…`, `journalKey`) and holds, for every create, a line written before
 * the request and one when its answer arrives: a killed run's stack is blocked until `recover`
 * takes its creates in (nothing is created twice, whatever runner recovers it), and the updates and
 * deletes it sent are sent again by the next up, which its preview shows (the same values: no value
 * changes twice). Where a repeated step would not be harmless — taking a product or site over (the
 * state keeps what it was when taken over, for the give-back), a replacement, a give-back — the
 * stack keeps the checkpoints (`skipsCheckpoints`). Elsewhere (PostgreSQL, buckets) they are kept,
 * and so they are everywhere with `PULUMI_SKIP_CHECKPOINTS=false` in the environment.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { dirname, join } from "node:path";
import { DIY_ORGANIZATION, openStateBackend, type StackRef, type StateBackend } from "../backend";
import { startSharedPacer } from "../client/shared-pacer";
import { TAKEN_OVER } from "../resources/product";
import { otherStacksText, readWrites, runRecordText, TOOL_ENV, type Manager } from "../resources/tool-protocol";
import { adoptIdOf, type CatalogItem } from "./catalog";
import type { PlannedChange } from "./changes";
import type { StackFacts } from "./discover";
import type { Plan, StackRun } from "./plan";
import type { FoundSite } from "./projects";
import { createdLine } from "./created-lines";
import { CatalogError } from "./errors";
import { retire } from "./moves";
import { Progress } from "./progress";
import { openRateLimitStore, RATE_LIMIT_STORE_ENV, type StoreChoice } from "./rate-limit-store";
import type { ProgramItem } from "./stack-program";
import type { RateLimitReport } from "./report";
import { emptyReport, meaningfulLines, runOnStack, type RunCommand, type StackReport } from "./stack-run";
import { takenOverRecords, Workspaces } from "./workspace";

export interface RunOptions {
  command: RunCommand;
  workDir: string;
  parallel: number;
  /** `--all`: run every stack even after a failed run. */
  all: boolean;
  /** `up --refresh`. */
  refresh: boolean;
  /** Settings that decide what a stack does besides its products (part of the resume key). */
  settings: Record<string, string>;
  /** The ids the tool found: each project's by name, each site entry's site. */
  found: Found;
  json: boolean;
  /** Where the runners of this deploy share the rate limit (`rate-limit-store.ts`). */
  rateLimit: StoreChoice;
  /** The preview an up runs for its policies first (tool.ts): its stack lines say so, apart from the up's. */
  policyCheck?: true;
}

export interface Output {
  out: (text: string) => void;
  err: (text: string) => void;
  /** stderr, when it is a terminal: the progress is one live line there (`progress.ts`). */
  terminal?: NodeJS.WriteStream;
}

/**
 * What the stack's providers decided against the live record (`tool-protocol.ts`), into the report:
 * each adoption — an entry's `adoptId`, or a replacement that adopts — with the fields its PATCH sets
 * (live → declared); each give-back with the fields it sent, those it left (changed on the service
 * since the state last saw them: a preview without `--refresh` could not know) and a product gone.
 * None written (a kill): as the plan had it.
 */
export function withProviderWrites(report: StackReport, file: string): void {
  const { adoptions, giveBacks } = readWrites(existsSync(file) ? readFileSync(file, "utf8") : "");
  for (const change of report.changes) {
    const fields = adoptions.get(change.key)?.fields;
    if (fields !== undefined && change.op === "adopt") change.fields = fields;
    else if (fields !== undefined && change.op === "replace" && change.adoptId !== undefined)
      change.fields = [...change.fields.filter((f) => f.stackOnly), ...fields];
    const given = giveBacks.get(change.key);
    if (given === undefined || change.op !== "give-back") continue;
    const left = change.fields.filter((f) => !given.sent.includes(f.field)).map((f) => f.field);
    change.fields = change.fields.filter((f) => given.sent.includes(f.field));
    const since = [...new Set([...change.reasons.flatMap((r) => (r.code === "changed-since" ? r.fields : [])), ...given.since])];
    change.reasons = change.reasons.filter((r) => r.code !== "changed-since" && r.code !== "give-back-unread");
    if (given.gone === true) change.reasons.push({ code: "already-gone" });
    else if (since.length > 0) change.reasons.push({ code: "changed-since", fields: since });
    // A field the plan listed that was neither sent nor left as changed since was already as found.
    if (given.gone !== true && left.some((f) => !since.includes(f)))
      change.reasons.push({ code: "already-as-found", fields: left.filter((f) => !since.includes(f)) });
  }
}

/** The folder of each stack's create journal (`recover` reads it). */
export function journalDir(workDir: string): string {
  return join(workDir, "journal");
}

export async function runPlanned(
  plan: Plan,
  options: RunOptions,
  workspaces: Workspaces,
  io: Output,
  signal: AbortSignal,
): Promise<{ reports: StackReport[]; rateLimit: RateLimitReport }> {
  const mutating = options.command === "up" || options.command === "destroy" || options.command === "refresh";
  const inputs = new Map(plan.runs.map((run) => [run.name, programItems(run, options.found)]));
  const reports = plan.runs.map((run) => {
    const report = emptyReport(run.name, options.command, run.size, fingerprint(inputs.get(run.name)!, options));
    report.blocked.push(...run.blocked);
    report.notes.push(...run.notes);
    if (!run.exists && options.command !== "up") report.new = true;
    if (run.exclude.length > 0) report.leftOut = run.exclude.length;
    // A preview or drift still runs it (what it shows is true), and says the deploy will not: the check fails the same way.
    // An up's preview for the policies leaves out what the up will not run: nothing there to judge, and a
    // blocked stack's state may not even load (a kill's empty `.attrs`), which would refuse the whole up.
    if ((mutating || options.policyCheck === true) && run.blocked.length > 0) report.status = "blocked";
    report.changes.push(...movesOf(plan, run, options.command));
    return report;
  });
  // Resume: after a run with failures, a re-run of the same command skips the stacks it finished with the same products and
  // settings — for the commands that change things only. A preview or drift is a report (what a reviewer approves, what
  // the nightly check exits with): a stack it skipped would show none of its changes, denials or drift.
  const last = mutating ? readLast(options.workDir, options.command) : undefined;
  if (last !== undefined && !options.all && Object.values(last).some((r) => r.status !== "ok")) {
    for (const report of reports) {
      if (report.status === "ok" && last[report.stack]?.status === "ok" && last[report.stack]?.fingerprint === report.fingerprint)
        report.status = "skipped";
    }
  }
  const runs = new Map(plan.runs.map((run) => [run.name, run]));
  // A preview of a stack that does not exist yet runs in a throw-away backend: a preview writes nothing to yours.
  const scratch = join(options.workDir, "scratch-backend");
  const scratchSpaces = new Workspaces({
    ...workspaces.options,
    folder: "scratch-stacks",
    env: {
      ...workspaces.options.env,
      PULUMI_BACKEND_URL: `file://${scratch}`,
      PULUMI_CONFIG_PASSPHRASE: process.env.PULUMI_CONFIG_PASSPHRASE ?? "",
    },
  });
  rmSync(scratch, { recursive: true, force: true });
  // One pacer for every process of every stack (the limit is the token's); each stack's URL carries its name, so it also counts each stack's requests.
  // With a store, the pacers of the other runners of this deploy (matrix jobs on other machines) pace together with it.
  // Said once per command: an up's preview for the policies leaves the store's notice and warning to the up after it.
  const warn = (message: string) => (options.policyCheck === true ? undefined : io.err(`serviceapi-catalog: warning: ${message}`));
  const choice = options.rateLimit;
  const store = choice.kind === "postgres" ? await openRateLimitStore(choice, warn) : undefined;
  if (store && !options.json && options.policyCheck !== true)
    io.err(`rate limit: shared with the other runners through ${store.name}; ${RATE_LIMIT_STORE_ENV}=off turns it off`);
  // After the scratch backend took its copy of the environment: only the team's backend's checkpoints are compressed.
  await workspaces.compressCheckpoints(plan.discovery.backend.postgres !== undefined);
  // Before two stacks' processes open a PostgreSQL backend at once (Workspaces.openBackend says why).
  if (plan.discovery.backend.postgres !== undefined) {
    await workspaces.openBackend().catch((error: unknown) => {
      throw new CatalogError(`the state backend ${plan.discovery.backend.url} could not be opened: ${meaningfulLines(error)[0]}`);
    });
  }
  // An up on a folder backend keeps each stack's create journal beside its state, and skips Pulumi's checkpoints (the header says why).
  const backend =
    options.command === "up" && options.policyCheck !== true && plan.discovery.backend.via === "file"
      ? await openStateBackend({ env: { ...process.env, ...workspaces.options.env }, cwd: await workspaces.projectDir() })
      : undefined;
  const pacer = await startSharedPacer({ store, warn });
  const toRun = reports.filter((r) => r.status === "ok");
  // Decided before any stack runs, and said once: which stacks write the state only at their end (the header).
  const refOf = (stack: string): StackRef => ({ organization: DIY_ORGANIZATION, project: plan.discovery.project, stack });
  const besides = new Map<string, string>();
  for (const report of toRun) {
    const run = runs.get(report.stack)!;
    const path =
      backend !== undefined &&
      !keepsCheckpoints(process.env) &&
      skipsCheckpoints(inputs.get(report.stack)!, plan.discovery.stacks.get(report.stack), givenBack(plan, run, options.command))
        ? backend.journalPath(refOf(report.stack))
        : undefined;
    if (path !== undefined) besides.set(report.stack, path);
  }
  if (backend !== undefined && !options.json && toRun.length > 0) io.err(checkpointsNotice(besides.size, toRun.length));
  const progress = options.json
    ? undefined
    : new Progress({
        command: options.command,
        ...(options.policyCheck && { policyCheck: true }),
        stacks: toRun.map((r) => ({ name: r.stack, records: Object.values(r.size).reduce((n: number, k) => n + (k ?? 0), 0) })),
        requests: () => {
          const { passed, limited } = pacer.stats();
          return { answered: passed + limited, refused: limited };
        },
        err: io.err,
        ...(io.terminal !== undefined && { terminal: io.terminal }),
      });
  /** A line while the stacks run: above the live progress line on a terminal. */
  const say = (text: string) => (progress !== undefined ? progress.say(text) : io.err(text));
  try {
    await pool(toRun, options.parallel, async (report) => {
      if (signal.aborted) {
        report.status = "cancelled";
        return;
      }
      const run = runs.get(report.stack)!;
      const spaces = run.exists || options.command === "up" ? workspaces : scratchSpaces;
      if (!run.exists && spaces === scratchSpaces) mkdirSync(scratch, { recursive: true });
      // What this stack's provider processes are handed (the protocol between the tool and them: resources/tool-protocol.ts).
      const env: Record<string, string> = { [TOOL_ENV.sharedPacer]: pacer.urlFor(report.stack) };
      // An adoption checks that no other stack manages the product: the tool read every stack already, so its providers read this instead.
      const adopts = run.items.some((p) => p.kind === "product" && adoptIdOf(p.entry) !== undefined);
      if (adopts) env[TOOL_ENV.otherStacks] = writeOtherStacks(plan, report.stack, options.workDir);
      // …and an adoption's or a give-back's provider writes what it reads and sends, for the report (write-file.ts says why).
      const givesBack = givenBack(plan, run, options.command);
      const writes = adopts || givesBack ? join(options.workDir, "writes", options.command, `${report.stack}.jsonl`) : undefined;
      if (writes !== undefined) {
        mkdirSync(dirname(writes), { recursive: true });
        writeFileSync(writes, "");
        env[TOOL_ENV.writes] = writes;
      }
      const ref = refOf(report.stack);
      const beside = besides.get(report.stack);
      // Set either way: a PULUMI_SKIP_CHECKPOINTS=true of the environment must not reach a stack the journal cannot make whole.
      if (options.command === "up") env.PULUMI_SKIP_CHECKPOINTS = beside !== undefined ? "true" : "false";
      if (beside !== undefined) {
        env[TOOL_ENV.createdJournal] = beside;
      } else if (options.command === "up") {
        // This run's creates only: `recover` must not take an id an earlier run journaled for the same key.
        mkdirSync(journalDir(options.workDir), { recursive: true });
        const journal = join(journalDir(options.workDir), `${report.stack}.jsonl`);
        writeFileSync(journal, "");
        env[TOOL_ENV.createdJournal] = journal;
      }
      try {
        if (beside !== undefined) startJournal(beside);
        const stack = await spaces.stack(report.stack, inputs.get(report.stack)!, env, run.exists);
        // What each product taken over and now removed was when taken over: only the state's secrets have it (taken-over.ts).
        const takenOver = givesBack ? await takenOverRecords(spaces, report.stack) : undefined;
        await runOnStack(stack, report, {
          signal,
          refresh: options.refresh,
          exclude: run.exclude,
          sites: options.found.sites,
          ...(takenOver !== undefined && { takenOver }),
          log: join(options.workDir, "logs", options.command, `${report.stack}.log`),
          // On stderr at once: a killed run's log then still names every record it made (docs/catalog.md, "After a kill").
          onCreated: (key, id, resource) => say(createdLine({ stack: report.stack, key, id, ...(resource === "Task" && { resource }) })),
          ...(progress !== undefined && { onStep: (urn: string) => progress.record(report.stack, urn) }),
        });
        report.requests = pacer.stats().acquiredBy[report.stack] ?? 0;
        if (writes !== undefined) withProviderWrites(report, writes);
        if (report.status === "ok" && options.command === "destroy") await stack.workspace.removeStack(report.stack);
        if (report.status === "ok" && options.command === "up" && plan.retired.includes(report.stack)) {
          if (await retire(workspaces, report.stack)) report.notes.push({ code: "stack-removed", stack: report.stack });
        }
      } catch (error) {
        report.status = signal.aborted ? "cancelled" : "failed";
        // Setting the stack up (select or create, its config) fails as a CLI run does: its error lines, not the first.
        report.errors.push(...meaningfulLines(error));
      }
      if (beside !== undefined) await closeJournal(backend!, ref);
      // As the report words it: a preview or drift of a blocked stack ran, but an up would not run it.
      const status = report.status === "ok" && report.blocked.length > 0 ? "ok, but BLOCKED (an up would not run it)" : report.status;
      progress?.stackDone(report.stack);
      if (!options.json)
        say(`${report.stack}: ${options.policyCheck ? "previewed for the policies, " : ""}${status} (${report.seconds.toFixed(1)} s)`);
    });
  } finally {
    progress?.stop();
    await backend?.close();
    await pacer.close();
    rmSync(scratch, { recursive: true, force: true });
  }
  if (mutating) writeLast(options.workDir, options.command, reports);
  const stats = pacer.stats();
  const rateLimit: RateLimitReport = {
    shared: store ? "postgres" : "none",
    where: choice.kind === "postgres" ? choice.where : choice.why,
    transactions: stats.store?.transactions ?? 0,
    attempts: stats.acquired,
    alone: choice.kind === "postgres" && (store === undefined || stats.store?.alone === true),
  };
  return { reports, rateLimit };
}

/**
 * Whether a stack's up may skip Pulumi's checkpoints (the header): when each step a killed run took
 * is either in the journal (a create) or harmless to take again (an update or an archive sends the
 * same values). Not when the run takes a record over — an `adoptId` the state does not hold yet, a
 * site not yet in the state — because the state keeps what the record was when first taken over,
 * and a second take-over would find the first one's values; nor when it may replace a record (a
 * product's project changed; a task, whose changes replace it), whose new record's create the
 * journal names under a key the state already holds; nor when it gives a record back.
 */
function skipsCheckpoints(items: readonly ProgramItem[], facts: StackFacts | undefined, givesBack: boolean): boolean {
  if (givesBack) return false;
  return items.every((item) => {
    const held = facts?.records.get(item.aliases?.[0] ?? item.key);
    // An adoptId the state already holds the record of (an imported catalog keeps them) takes nothing over.
    const adoptId = item.entry.adoptId;
    if (typeof adoptId === "string" && held?.id.toLowerCase() !== adoptId.toLowerCase()) return false;
    if (item.kind === "site") return held !== undefined;
    if (item.kind === "task") return held === undefined;
    return held === undefined || held.inputs.projectId === item.entry.projectId;
  });
}

/**
 * The journal beside the state, begun before the stack's first process: from here until it is
 * removed, the stack is not whole without it. One that cannot be written (a read-only backend)
 * fails the stack before anything runs.
 */
function startJournal(file: string): void {
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, runRecordText({ command: "up", at: new Date().toISOString(), hostname: hostname(), pid: process.pid }));
  } catch (error) {
    throw new CatalogError(
      `the create journal beside the state, ${file}, cannot be written (${(error as Error).message}): nothing was run`,
    );
  }
}

/** The up's one line on the checkpoints (stderr, before the stacks run), so that a team sees which way its stacks write the state. */
function checkpointsNotice(skipped: number, stacks: number): string {
  const kept = stacks - skipped;
  if (skipped === 0)
    return `checkpoints: Pulumi's, after every step, on all ${stacks} stack(s) (docs/catalog.md#settings says when they are skipped)`;
  return (
    `checkpoints: skipped on ${skipped} of ${stacks} stack(s), each with its create journal beside the state` +
    `${kept > 0 ? `; kept on ${kept} that take records over or may replace one` : ""} (PULUMI_SKIP_CHECKPOINTS=false keeps them all; docs/catalog.md#settings)`
  );
}

/** `PULUMI_SKIP_CHECKPOINTS=false` (or 0) in the environment: the team keeps Pulumi's checkpoints everywhere (docs/catalog.md, settings). */
function keepsCheckpoints(env: NodeJS.ProcessEnv): boolean {
  return /^(0|false)$/i.test(env.PULUMI_SKIP_CHECKPOINTS ?? "");
}

/**
 * After a stack's up that skipped the checkpoints: the journal is removed once the state records the
 * run — the CLI ended and released the stack's lock (it writes the state before that). A lock still
 * there (the CLI killed) keeps it: the stack is blocked until `recover` takes its creates in.
 */
async function closeJournal(backend: StateBackend, ref: StackRef): Promise<void> {
  // The backend cannot be read now: the journal is kept, and the stack blocked until `recover` (which removes it) — never the other way.
  const locks = await backend.locks(ref).catch(() => undefined);
  if (locks?.length === 0) await backend.removeJournal(ref).catch(() => undefined);
}

/**
 * The products every other stack of the backend records — the stacks outside the catalog and the
 * catalog's other stacks — for one stack's providers (`SERVICEAPI_OTHER_STACKS_INDEX`).
 */
function writeOtherStacks(plan: Plan, own: string, workDir: string): string {
  const index: Record<string, Manager[]> = {};
  for (const [id, list] of plan.discovery.elsewhere) index[id] = [...list];
  for (const facts of plan.discovery.stacks.values()) {
    if (facts.name === own) continue;
    for (const deployed of facts.records.values()) {
      if (deployed.unconfirmed) continue;
      const id = deployed.id.toLowerCase();
      (index[id] ??= []).push({ stack: facts.fullName, name: deployed.key });
    }
  }
  const file = join(workDir, "other-stacks", `${own}.json`);
  mkdirSync(join(workDir, "other-stacks"), { recursive: true });
  writeFileSync(file, otherStacksText(index));
  return file;
}

/**
 * A stack's program input: each record's resource inputs, with the ids the tool found (a project by
 * name, a site by subdomain: `projects.ts`), and for a renamed key the key its state holds (an
 * alias). A product whose adoption blocks the stack is left out of a preview, which shows the rest of
 * the stack as the up after the block is lifted would.
 */
function programItems(run: StackRun, found: Found): ProgramItem[] {
  return run.items
    .filter((p) => !run.withheld.includes(p.key))
    .map((item) => programItem(item, found, run.renames.get(item.key)))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** One record of a stack's program (`programItems`); `from`, the key its state holds it under when renamed. */
export function programItem(item: CatalogItem, found: Found, from?: string): ProgramItem {
  const {
    project,
    projectId,
    renamedFrom: _link,
    kind: _kind,
    ...fields
  } = item.entry as unknown as Record<string, unknown> & {
    project?: string;
    projectId?: string;
  };
  const resolved = { projectId: projectId ?? found.projects.get(project!)! };
  const entry =
    item.kind === "site"
      ? (({ subdomain: _s, default: _d, ...rest }) => ({ ...rest, ...resolved, siteId: found.sites.get(item.key)!.id }))(fields)
      : { ...fields, ...resolved };
  return { key: item.key, kind: item.kind, entry, ...(from !== undefined && { aliases: [from] }) };
}

/** What the tool looked up before any stack ran: each project's id by name, each site entry's site. */
export interface Found {
  projects: ReadonlyMap<string, string>;
  sites: ReadonlyMap<string, FoundSite>;
}

/**
 * The moves of the typed plan that concern this stack: a preview names those out of it (made at the
 * next split or up); an up, those into it (made before it ran, with `pulumi state move`).
 */
function movesOf(plan: Plan, run: StackRun, command: RunCommand): PlannedChange[] {
  const mine = plan.moves.filter((m) => (command === "up" ? m.to : m.from) === run.name);
  if (command !== "up" && command !== "preview") return [];
  // A renamed product moves under its old key: the change is named by its new one.
  const newKey = new Map([...plan.renames].map(([to, from]) => [from, to]));
  return mine.map((m) => ({ key: newKey.get(m.key) ?? m.key, op: "move", fields: [], fromStack: m.from, toStack: m.to, reasons: [] }));
}

/** Whether a run of the stack removes a product taken over (an entry gone, a destroy): its give-back is worth reading first. */
function givenBack(plan: Plan, run: StackRun, command: RunCommand): boolean {
  if (command !== "preview" && command !== "up" && command !== "destroy") return false;
  const facts = plan.discovery.stacks.get(run.name);
  if (facts === undefined) return false;
  const declared = new Set(command === "destroy" ? [] : run.items.map((p) => run.renames.get(p.key) ?? p.key));
  // A product taken over, or a site (every site is one).
  return [...facts.records.values()].some((d) => !declared.has(d.key) && (d.kind === "site" || d.outputs[TAKEN_OVER] !== undefined));
}

/** The resume key of a stack: its products as its program declares them, and the settings its providers run with. */
function fingerprint(products: ProgramItem[], options: RunOptions): string {
  const hash = createHash("sha256");
  hash.update(JSON.stringify(Object.entries(options.settings).sort(([a], [b]) => (a < b ? -1 : 1))));
  hash.update(`\nrefresh=${options.refresh}\n`);
  for (const product of products) {
    hash.update(JSON.stringify([product.key, Object.entries(product.entry).sort(([a], [b]) => (a < b ? -1 : 1))]));
    hash.update("\n");
  }
  return hash.digest("hex");
}

async function pool<T>(items: T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, worker));
}

type Last = Record<string, { status: StackReport["status"]; fingerprint: string }>;

function lastFile(workDir: string, command: string): string {
  return join(workDir, `last-${command}.json`);
}

function readLast(workDir: string, command: string): Last | undefined {
  const file = lastFile(workDir, command);
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Last;
  } catch {
    return undefined;
  }
}

function writeLast(workDir: string, command: string, reports: StackReport[]): void {
  const previous = readLast(workDir, command) ?? {};
  const last: Last = {};
  for (const r of reports) {
    // A skipped stack keeps what the run before recorded for it.
    last[r.stack] = r.status === "skipped" && previous[r.stack] ? previous[r.stack]! : { status: r.status, fingerprint: r.fingerprint };
  }
  mkdirSync(workDir, { recursive: true });
  writeFileSync(lastFile(workDir, command), JSON.stringify(last, null, 2));
}
