/**
 * The commands of `serviceapi-catalog`, each through the same stages, one file each:
 * discover (`discover.ts`: the catalog and the backend as they are) → plan (`plan.ts`: the layout,
 * the moves, the stacks to run and what stops them) → run (`run.ts`, `stack-run.ts`) → report
 * (`report.ts`). `recover`, `drift --write` and `import` act on what discover found (`recover.ts`,
 * `write-back.ts`, `import.ts`). This file only wires them per command and decides the exit code.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import { readSettings } from "../resources/settings";
import type { CatalogChange } from "./catalog";
import type { FieldChange, Reason } from "./changes";
import { discover, type Discovery } from "./discover";
import { CatalogError } from "./errors";
import { readIdsFile } from "./ids-file";
import { countByKind, countsText } from "./kinds";
import { importSites } from "./import-sites";
import { importProducts, type KeyFrom } from "./import";
import { groupOf, stackName, type StackId } from "./layout";
import { makeMoves, retire } from "./moves";
import { makePlan, type Command, type Plan } from "./plan";
import { resolveProjects } from "./projects";
import { recover } from "./recover";
import { denials, describeReason, formatReport, REPORT_VERSION, runTotals, totals, type PlanReport, type RunReport } from "./report";
import { Policies, policyChanges, type PolicyInput, type PolicyOptions, type Verdict } from "./policy";
import { chooseStore } from "./rate-limit-store";
import { planningNotice } from "./progress";
import { journalDir, runPlanned, type Output, type RunOptions } from "./run";
import type { RunCommand, StackReport } from "./stack-run";
import type { Workspaces } from "./workspace";
import { writeDrift } from "./write-back";

export type { Output } from "./run";

export interface ToolOptions {
  catalogDir: string;
  workDir: string;
  project: string;
  stackPrefix: string;
  stackSize: number;
  parallel: number;
  base?: string;
  stacks: string[];
  json: boolean;
  all: boolean;
  config: Record<string, string>;
  /** `up --refresh`: refresh each stack, then converge (the catalog wins). */
  refresh: boolean;
  /** `drift --write`: write the live values of drifted fields into the catalog files. */
  write: boolean;
  /** import --sites: every project's sites, not products from an ids file. */
  sites: boolean;
  /** `recover --force-unlock`. */
  forceUnlock: boolean;
  /** `recover --create-anew KEY`. */
  createAnew: string[];
  /** `recover --journal DIR`. */
  journals: string[];
  /** `recover --created-log FILE`. */
  logs: string[];
  /** `plan --batch-size N`: stacks per CI job. */
  batchSize: number;
  /** `import --key-from`: what a new entry's key is made from. */
  keyFrom: KeyFrom;
  /** `--policy`, `--policy-off`, `--policy-param`: the policies preview and up evaluate (docs/policies.md). */
  policies: PolicyOptions;
}

/**
 * Exit codes: 0 done; 1 a stack failed or is blocked; 2 refused before any stack ran; 3 a policy
 * denied a change (preview; an up refused before any write); 7 drift found (as docs/gitops.md's
 * gate); 130 cancelled.
 */
export const EXIT = { ok: 0, failed: 1, refused: 2, denied: 3, drift: 7, cancelled: 130 } as const;

async function discovered(
  options: ToolOptions,
  workspaces: Workspaces,
  io: Output,
  elsewhere: boolean,
  /** The command, when it writes to the state: refused on a backend that can only be read, before any request. */
  writes?: string,
): Promise<Discovery> {
  const discovery = await discover(
    {
      catalogDir: options.catalogDir,
      base: options.base,
      project: options.project,
      stackPrefix: options.stackPrefix,
      elsewhere,
      // The backend is read directly where it can be (file://, postgres://): `plan` then starts no `pulumi` at all.
      ...backendAccess(options, workspaces),
    },
    (line) => io.err(line),
  );
  const readOnly = discovery.backend.readOnly;
  if (writes !== undefined && readOnly !== undefined)
    throw new CatalogError(
      `${writes}: PULUMI_BACKEND_URL (${discovery.backend.url}) is ${readOnly}, which ${writes} would write to: ` +
        "run it with the deploy's backend URL (preview, plan, drift and report read through this one)",
    );
  return discovery;
}

/** How `provider/backend` reaches the state backend: the user's environment, and the `pulumi` on PATH for what it cannot read itself. */
function backendAccess(options: ToolOptions, workspaces: Workspaces): { pulumi: string; cwd: string; env: NodeJS.ProcessEnv } {
  return { pulumi: "pulumi", cwd: options.catalogDir, env: { ...process.env, ...workspaces.options.env } };
}

function planned(discovery: Discovery, options: ToolOptions, command: Command): Plan {
  return makePlan(discovery, {
    command,
    stackPrefix: options.stackPrefix,
    stackSize: options.stackSize,
    stacks: options.stacks,
    base: options.base,
    // As the providers read it: --config first, then the environment.
    adoptManaged: (options.config["serviceapi:adoptManaged"] ?? process.env.SERVICEAPI_ADOPT_MANAGED) === "allow",
  });
}

function scope(options: ToolOptions, discovery: Discovery): string | undefined {
  if (options.stacks.length > 0) return `--stack ${options.stacks.join(",")}`;
  const change = discovery.change;
  if (change === undefined) return undefined;
  return (
    `changed since ${options.base}: ${change.added.length} added, ${change.changed.length} changed, ` +
    `${change.moved.length > 0 ? `${change.moved.length} moved to another file's stack, ` : ""}${change.removed.length} removed`
  );
}

/** `plan`: the stacks a change touches, for a person or a CI matrix; no request, no write. */
export async function runPlan(options: ToolOptions, workspaces: Workspaces, io: Output): Promise<number> {
  // The --config values, checked as a deploy would check them (a plan needs no token or URL: it sends no request).
  checkSettings(options, { SERVICEAPI_TOKEN: "plan-needs-no-token", SERVICEAPI_BASE_URL: "https://plan.invalid" });
  const discovery = await discovered(options, workspaces, io, true);
  const deploy = planned(discovery, options, "up");
  const preview = planned(discovery, options, "preview");
  const stacks = deploy.runs.map((r) => r.name);
  const previewStacks = preview.runs.map((r) => r.name);
  // The stacks whose preview reads products it takes over (a token that may update products), and the rest.
  const adoptingRuns = preview.runs.filter((r) => r.adopting.length > 0);
  const adopting = adoptingRuns.map((r) => r.name);
  // What stops a stack: what its up would meet (the deploy's plan), so plan, preview and up name the same reasons.
  const blocked = [...new Set([...deploy.runs, ...preview.runs].map((r) => r.name))]
    .map((stack) => ({
      stack,
      reasons: deploy.runs.find((r) => r.name === stack)?.blocked ?? preview.runs.find((r) => r.name === stack)!.blocked,
    }))
    .filter((b) => b.reasons.length > 0)
    .sort((a, b) => (a.stack < b.stack ? -1 : 1));
  const notes = [...deploy.notes, ...preview.runs.flatMap((r) => r.notes)];
  const renames = [...deploy.renames].map(([key, from]) => ({ key, from })).sort((a, b) => (a.key < b.key ? -1 : 1));
  const fresh = discovery.stacks.size === 0;
  if (options.json) {
    const report: PlanReport = {
      version: REPORT_VERSION,
      stacks,
      // `strategy.matrix: ${{ fromJSON(needs.plan.outputs.matrix) }}` in GitHub Actions; `any` guards an empty matrix, which Actions refuses.
      matrix: { stack: stacks },
      any: stacks.length > 0,
      preview: { matrix: { stack: previewStacks }, any: previewStacks.length > 0 },
      // Stacks per CI job: `--stack "$BATCH"` (comma-separated) runs a batch in one job, its stacks in parallel sharing one pacer.
      batches: {
        deploy: batches(stacks, options.batchSize),
        preview: batches(previewStacks, options.batchSize),
        previewReadOnly: batches(
          previewStacks.filter((name) => !adopting.includes(name)),
          options.batchSize,
        ),
        previewAdopting: batches(adopting, options.batchSize),
      },
      splits: deploy.splits,
      moves: deploy.moves,
      renames,
      blocked,
      notes,
      change: discovery.change ?? null,
      layout: { stacks: deploy.target.stacks().length, products: discovery.catalog.size, fresh },
    };
    io.out(JSON.stringify(report));
    return EXIT.ok;
  }
  io.out(
    `${countsText(countByKind([...discovery.catalog.values()]))} in ${deploy.target.stacks().length} stack(s) of at most ${options.stackSize}` +
      (fresh ? " (no stack yet: `up` creates them)" : ""),
  );
  for (const s of deploy.splits) {
    io.out(
      `split ${s.interrupted ? "interrupted" : "due"}: ${s.from} → ${s.into.join(", ")} (${s.interrupted ? "finished by" : "at"} the next split or up; no request to the service)`,
    );
  }
  const otherMoves = deploy.moves.filter((m) => !deploy.splits.some((s) => s.from === m.from));
  if (otherMoves.length > 0) {
    io.out(
      `moves due: ${otherMoves.length} product(s) to the stacks of their files (${describeMoves(otherMoves)}) at the next split or up; pulumi state move, no request to the service`,
    );
  }
  for (const { key, from } of renames)
    io.out(`renamed: ${from} → ${key} (the same record: the state follows the key, no request to the service)`);
  for (const b of blocked) for (const reason of b.reasons) io.out(`${b.stack}: ${describeReason(reason)}`);
  for (const note of notes) io.out(`! ${describeReason(note)}`);
  if (discovery.change !== undefined) io.out(scope(options, discovery)!);
  io.out(
    `${discovery.change === undefined && options.stacks.length === 0 ? "stacks" : "stacks this change touches"}:${stacks.length === 0 ? " none" : ""}`,
  );
  // A stack the backend does not have yet is marked, as preview marks it (in a fresh backend the first line says it of all).
  for (const run of deploy.runs)
    io.out(`  ${run.name} (${countsText(countByKind(run.items))}${run.exists || fresh ? "" : ", a new stack"})`);
  if (deploy.moves.length > 0 && previewStacks.join() !== stacks.join())
    io.out(`a preview (or drift) runs before the moves, on: ${previewStacks.length === 0 ? "none" : previewStacks.join(", ")}`);
  if (adopting.length > 0) {
    const counts = adoptingRuns.map((r) => `${r.name} (${r.adopting.length})`);
    io.out(
      `taking products over (adoptId), so their preview reads each with an empty PATCH and needs a token that may update products: ${counts.join(", ")}`,
    );
  }
  return EXIT.ok;
}

/** preview, up, drift, refresh, destroy. */
export async function runStacks(
  command: RunCommand,
  options: ToolOptions,
  workspaces: Workspaces,
  io: Output,
  signal: AbortSignal,
): Promise<number> {
  // Cancelled when the stacks start (their progress takes over) or the command ends.
  const planning = options.json ? () => undefined : planningNotice(command, io.err);
  try {
    return await planAndRun(command, options, workspaces, io, signal, planning);
  } finally {
    planning();
  }
}

async function planAndRun(
  command: RunCommand,
  options: ToolOptions,
  workspaces: Workspaces,
  io: Output,
  signal: AbortSignal,
  stacksStart: () => void,
): Promise<number> {
  const settings = checkSettings(options);
  // Checked before anything is read or run: a policy that does not compile is named with its line.
  const judged = command === "preview" || command === "up" || (command === "drift" && options.write);
  const policies = judged ? Policies.load(options.policies, options.catalogDir, options.workDir) : undefined;
  const writes = command === "up" || command === "destroy" || command === "refresh" ? command : undefined;
  const discovery = await discovered(options, workspaces, io, command !== "destroy", writes);
  // Decided before any request: a bad SERVICEAPI_RATE_LIMIT_STORE is refused like any other setting.
  const rateLimit = chooseStore({ env: process.env, backend: discovery.backend.postgres, baseUrl: settings.baseUrl! });
  if (discovery.stacks.size === 0 && command === "destroy") {
    io.out(`no ${options.stackPrefix}* stack of project ${options.project} in this backend: nothing to destroy`);
    return EXIT.ok;
  }
  const plan = planned(discovery, options, command);
  // A matrix job runs one batch of stacks; the moves are one job's (split), before the deploys, so a batch never moves state.
  if (command === "up" && options.stacks.length > 0) {
    const involved = plan.moves.filter((m) => options.stacks.includes(m.to) || options.stacks.includes(m.from));
    if (involved.length > 0) {
      throw new CatalogError(
        `--stack ${options.stacks.join(",")}: ${involved.length} product(s) must move into or out of these stacks first ` +
          `(${describeMoves(involved)}): run \`serviceapi-catalog split\` first (the plan job's output lists it)`,
      );
    }
  }
  // The project listing checks the token once, before any stack: a refused token is one request, not one per stack.
  const projects = await resolveProjects(command === "destroy" ? new Map() : discovery.catalog, settings);
  const runOptions = (command: RunCommand): RunOptions => ({
    command,
    workDir: options.workDir,
    parallel: options.parallel,
    all: options.all,
    refresh: options.refresh,
    // The state backend too: a re-run against another backend (a URL fixed after a failure) runs every stack there.
    settings: { ...fingerprintSettings(options), PULUMI_BACKEND_URL: discovery.backend.url },
    found: { projects: projects.ids, sites: projects.sites },
    json: options.json,
    rateLimit,
  });
  // An up with policies previews first, as `preview` does, and evaluates them over that plan: a denial
  // refuses the whole up before any move or write, with what the preview showed (preview ≡ up).
  let previewRequests = 0;
  if (command === "up" && policies !== undefined) {
    stacksStart();
    const checked = await policyPreview(
      planned(discovery, options, "preview"),
      runOptions("preview"),
      policies,
      discovery,
      options,
      projects.requests,
      workspaces,
      io,
      signal,
    );
    if (checked.exit !== undefined) return checked.exit;
    previewRequests = checked.requests;
  }
  // Progress on stderr as each move is made; the report lists each product moved in the stack it reached (a `move` change).
  if (command === "up" && options.stacks.length === 0) await makeMoves(workspaces, plan, (line) => io.err(line));
  const removed: Reason[] = [];
  stacksStart();
  const { reports, rateLimit: sharing } = await runPlanned(plan, runOptions(command), workspaces, io, signal);
  // Stacks the moves emptied and the layout no longer has (a stack that still held products ran above, and went then).
  if (command === "up" && options.stacks.length === 0) {
    for (const name of plan.retired.filter((n) => !plan.runs.some((r) => r.name === n))) {
      if (await retire(workspaces, name)) removed.push({ code: "stack-removed", stack: name });
    }
  }
  if (discovery.change !== undefined) markOutsideChange(reports, discovery.change);
  const run: RunReport = {
    version: REPORT_VERSION,
    command: (command === "up" || command === "preview") && options.refresh ? `${command} --refresh` : command,
    stacks: stackCount(plan),
    scope: scope(options, discovery),
    notes: [...plan.notes, ...removed],
    results: reports,
    requests: projects.requests + previewRequests,
    ...(previewRequests > 0 && { previewRequests }),
    next: command === "drift" ? nextAfterDrift(reports, options) : command === "refresh" ? nextAfterRefresh(reports) : undefined,
    rateLimit: sharing,
  };
  if (command === "drift" && options.write) {
    // The policies judge what the write-back makes the next up send: each drifted field set to the
    // service's value, an update. Denied: nothing is written, so no pull request carries it.
    if (policies !== undefined) withVerdicts(run, policies.evaluate(policyInput(asUpdates(run), discovery, options)));
    const written =
      denials(run) > 0
        ? []
        : writeDrift(
            options.catalogDir,
            discovery.catalog,
            reports.flatMap((r) => r.changes.filter((c) => c.op === "drift")),
          );
    if (denials(run) > 0) run.next = ["nothing written into the catalog: a policy denies what the next up would send (above)"];
    if (written.length > 0) {
      run.next = [
        "wrote the service's values into the catalog (review with `git diff`, commit to keep them; after the merge a plain up sends them " +
          "once more, a PATCH that changes nothing on the service, and `up --refresh` sends nothing):",
        ...written.map((line) => `  ${line}`),
      ];
    }
  }
  // What the policies say of what was done (an up) or would be (a preview): the same input both ways.
  if (policies !== undefined && command !== "drift") withVerdicts(run, policies.evaluate(policyInput(run, discovery, options)));
  io.out(options.json ? JSON.stringify({ ...run, totals: runTotals(run) }) : formatReport(run));
  const t = totals(reports);
  if (signal.aborted) return EXIT.cancelled;
  if (t.failed > 0 || t.blocked > 0) return EXIT.failed;
  if (denials(run) > 0) return EXIT.denied;
  if (command === "drift" && t.ops.drift + t.ops.gone > 0) return EXIT.drift;
  return EXIT.ok;
}

/**
 * An up's policy check: the preview of the same stacks (as `preview` runs it, quietly but for its
 * progress), the policies over its plan. Denied, or a stack it could not preview: the preview's
 * report, and the up stops there — nothing moved, nothing written (`exit`). Allowed: no `exit`, and
 * the requests the preview sent (a `--refresh` reads every record), which the up's report counts.
 */
async function policyPreview(
  plan: Plan,
  runOptions: RunOptions,
  policies: Policies,
  discovery: Discovery,
  options: ToolOptions,
  requests: number,
  workspaces: Workspaces,
  io: Output,
  signal: AbortSignal,
): Promise<{ exit?: number; requests: number }> {
  const { reports } = await runPlanned(plan, { ...runOptions, policyCheck: true }, workspaces, io, signal);
  const sent = totals(reports).requests;
  if (signal.aborted) return { exit: EXIT.cancelled, requests: sent };
  const run: RunReport = {
    version: REPORT_VERSION,
    command: `preview${options.refresh ? " --refresh" : ""}`,
    stacks: stackCount(plan),
    scope: scope(options, discovery),
    notes: [...plan.notes],
    results: reports,
    requests,
  };
  withVerdicts(run, policies.evaluate(policyInput(run, discovery, options)));
  const failed = totals(reports).failed;
  if (denials(run) === 0 && failed === 0) return { requests: sent };
  // Worded as the preview it is (what would be done), under the up's refusal.
  run.command = `preview${options.refresh ? " --refresh" : ""} for up — REFUSED before any write (${failed > 0 ? `the policies could not see ${failed} stack(s): their preview failed` : "denied by policy"})`;
  io.out(options.json ? JSON.stringify({ ...run, totals: runTotals(run) }) : formatReport(run));
  return { exit: failed > 0 ? EXIT.failed : EXIT.denied, requests: sent };
}

function policyInput(run: RunReport, discovery: Discovery, options: ToolOptions): Omit<PolicyInput, "version" | "params"> {
  return {
    project: options.project,
    stackPrefix: options.stackPrefix,
    settings: options.config,
    changes: policyChanges(run.results, (key) => discovery.catalog.get(key)?.file),
  };
}

/** A drift's changes as the up after its write-back sends them: updates of the drifted fields to the service's values. */
function asUpdates(run: RunReport): RunReport {
  return {
    ...run,
    results: run.results.map((r) => ({
      ...r,
      changes: r.changes.filter((c) => c.op === "drift").map((c) => ({ ...c, op: "update" as const })),
    })),
  };
}

/** Each verdict on the change it names (the first stack that has it), else on the run. */
function withVerdicts(run: RunReport, verdicts: Verdict[]): void {
  for (const verdict of verdicts) {
    const reason: Reason = { code: "policy", ...verdict };
    const change = verdict.key === undefined ? undefined : run.results.flatMap((r) => r.changes).find((c) => c.key === verdict.key);
    if (change !== undefined) {
      delete reason.key;
      change.reasons.push(reason);
    } else (run.notes ??= []).push(reason);
  }
}

/**
 * With `--base`, a stack runs whole: what it shows beyond the change under review (a value a
 * `refresh` accepted, a deploy that did not run) is said to be so, not left to look like the change's.
 */
function markOutsideChange(reports: StackReport[], change: CatalogChange): void {
  const inChange = new Set([...change.added, ...change.changed, ...change.moved, ...change.removed]);
  for (const report of reports) {
    for (const c of report.changes) {
      if (c.op === "drift" || c.op === "gone" || c.op === "move") continue;
      if (!inChange.has(c.key) && !(c.renamedFrom !== undefined && inChange.has(c.renamedFrom))) c.reasons.push({ code: "outside-change" });
    }
  }
}

/** What `drift` says last: the commands that fix what it found, for the stacks that drifted. */
export function nextAfterDrift(reports: StackReport[], options: ToolOptions): string[] | undefined {
  const drifted = reports.filter((r) => r.changes.some((c) => c.op === "drift" || c.op === "gone")).map((r) => r.stack);
  if (drifted.length === 0) return undefined;
  const stacks = `--stack ${drifted.join(",")}`;
  // Setting a status back is the one fix that takes a product off sale, or puts one back: said before anyone runs it.
  const statuses = reports.flatMap((r) => r.changes.filter((c) => c.op === "drift" && c.fields.some((f) => f.field === "status")));
  const moved = (from: (f: FieldChange) => boolean) => statuses.filter((c) => c.fields.some((f) => f.field === "status" && from(f))).length;
  const archivedNow = moved((f) => f.to === "archived" && f.from !== "archived");
  const liveNow = moved((f) => f.from === "archived" && f.to !== "archived");
  const status = [
    archivedNow > 0 && `brings ${archivedNow} archived on the service back from archived`,
    liveNow > 0 && `archives ${liveNow} brought back on the service`,
  ].filter(Boolean);
  return [
    `To set them back as the catalog declares: serviceapi-catalog up --refresh ${stacks}${status.length > 0 ? ` (its status too: ${status.join(", ")}; preview --refresh shows it first)` : ""}`,
    `To keep the service's values: serviceapi-catalog drift --write ${stacks}${options.write ? "" : " (writes them into the catalog files for a pull request)"}, or serviceapi-catalog refresh ${stacks} (only into the stacks' state: the next up sets them back unless the catalog changes)`,
  ];
}

/** What `refresh` says last when it accepted values: the catalog still declares the old ones. */
function nextAfterRefresh(reports: StackReport[]): string[] | undefined {
  const accepted = reports.filter((r) => r.changes.some((c) => c.op === "drift" || c.op === "gone")).map((r) => r.stack);
  if (accepted.length === 0) return undefined;
  return [
    `The stacks' state now holds the service's values, and the catalog still declares the ones before: \`serviceapi-catalog preview\` shows them, ` +
      `and the next up of ${accepted.join(", ")} sets them back unless the catalog changes to the service's values.`,
  ];
}

/** `split`: the moves that are due (splits, entries moved between files, the layout of 0.1), and nothing else (0 requests to the service). */
export async function runSplit(options: ToolOptions, workspaces: Workspaces, io: Output): Promise<number> {
  const discovery = await discovered(options, workspaces, io, false, "split");
  const plan = planned(discovery, options, "split");
  const lines = await makeMoves(workspaces, plan, (line) => io.out(line));
  // Stacks the moves emptied and the layout no longer has.
  for (const name of plan.retired) if (await retire(workspaces, name)) io.out(describeReason({ code: "stack-removed", stack: name }));
  if (lines.length === 0) io.out(`no move due: every product is in its stack, every stack holds at most ${options.stackSize} products`);
  for (const note of plan.notes) io.out(`! ${describeReason(note)}`);
  return EXIT.ok;
}

/** `recover`: locks and pending operations a killed run left (`recover.ts`). */
export async function runRecover(options: ToolOptions, workspaces: Workspaces, io: Output): Promise<number> {
  const settings = checkSettings(options);
  const discovery = await discovered(options, workspaces, io, false, "recover");
  const results = await recover(
    discovery,
    {
      backend: {
        env: { ...process.env, ...workspaces.options.env },
        pulumi: (await workspaces.cli()).command,
        cwd: await workspaces.projectDir(),
      },
      stacks: options.stacks,
      forceUnlock: options.forceUnlock,
      createAnew: options.createAnew,
      journals: options.journals.length > 0 ? options.journals : [journalDir(options.workDir)],
      logs: options.logs,
      settings,
      workDir: options.workDir,
    },
    workspaces,
    io,
  );
  return results.some((r) => r.refused) ? EXIT.failed : EXIT.ok;
}

/** `import IDS_FILE`: existing products written into the catalog's files, each with adoptId (`import.ts`). */
export async function runImport(files: string[], options: ToolOptions, workspaces: Workspaces, io: Output): Promise<number> {
  if (options.sites) return runImportSites(files, options, workspaces, io);
  if (files.length !== 1)
    throw new CatalogError("import: give one ids file (serviceapi-catalog import IDS_FILE: CSV or JSON of id and project)");
  const ids = readIdsFile(resolve(files[0]!));
  if (options.keyFrom === "column" && !ids.hasKeys) throw new CatalogError(`import --key-from column: ${files[0]} has no key column`);
  const settings = checkSettings(options);
  // A new catalog starts as an empty folder: discovery reads it, and the stacks (none yet) and other stacks of the backend.
  mkdirSync(options.catalogDir, { recursive: true });
  const discovery = await discovered(options, workspaces, io, true);
  const result = await importProducts(
    ids.rows,
    discovery,
    { catalogDir: options.catalogDir, workDir: options.workDir, keyFrom: options.keyFrom, parallel: options.parallel, settings },
    { err: io.err, ...(io.terminal !== undefined && { terminal: io.terminal }) },
  );
  const count = [...result.written.values()].reduce((n, keys) => n + keys.length, 0);
  io.out(
    `import: ${count} product(s) written into ${result.written.size} file(s) of ${relative(process.cwd(), options.catalogDir) || "."}; ${result.requests} request(s)`,
  );
  for (const [file, keys] of result.written) io.out(`  ${file}: ${keys.length}`);
  const list = (title: string, lines: string[]) => {
    if (lines.length === 0) return;
    io.out(`${title} (${lines.length}):`);
    for (const line of lines) io.out(`  ${line}`);
  };
  list("left out of the file, as written", ids.problems);
  list("left out", result.leftOut);
  list("not read", result.unread);
  if (count > 0) io.out("Next: review the files (git diff), then `serviceapi-catalog preview`: adoptions only, no change to any product");
  return ids.problems.length + result.unread.length > 0 ? EXIT.failed : EXIT.ok;
}

/** `import --sites`: every project's sites as site entries (`import-sites.ts`). */
async function runImportSites(files: string[], options: ToolOptions, workspaces: Workspaces, io: Output): Promise<number> {
  if (files.length > 0) throw new CatalogError("import --sites: takes no ids file (it lists every project's sites); give one or the other");
  const settings = checkSettings(options);
  mkdirSync(options.catalogDir, { recursive: true });
  const discovery = await discovered(options, workspaces, io, false);
  const result = await importSites(discovery, { catalogDir: options.catalogDir, settings });
  const count = [...result.written.values()].reduce((n, keys) => n + keys.length, 0);
  io.out(
    `import --sites: ${count} site(s) written into ${result.written.size} file(s) of ${relative(process.cwd(), options.catalogDir) || "."}; ${result.requests} request(s), none a write`,
  );
  for (const [file, keys] of result.written) io.out(`  ${file}: ${keys.length}`);
  if (result.leftOut.length > 0) {
    io.out(`left out (${result.leftOut.length}):`);
    for (const line of result.leftOut) io.out(`  ${line}`);
  }
  if (count > 0)
    io.out("Next: review the files (git diff), then `serviceapi-catalog preview`: sites taken over with their names, nothing sent");
  return EXIT.ok;
}

/** `where KEY…`: each key's file, its stack now (from the states) and after the due moves; no request. */
export async function runWhere(keys: string[], options: ToolOptions, workspaces: Workspaces, io: Output): Promise<number> {
  if (keys.length === 0) throw new CatalogError("where: give the keys to look up (serviceapi-catalog where KEY…)");
  const discovery = await discovered(options, workspaces, io, false);
  const plan = planned(discovery, options, "up");
  let missing = 0;
  for (const key of keys) {
    const product = discovery.catalog.get(key);
    const now = [...discovery.stacks.values()].find((s) => s.records.has(key) || s.pending.some((p) => p.key === key));
    const target = plan.runs.find((r) => r.items.some((p) => p.key === key))?.name;
    const deployed = now?.records.get(key);
    const state =
      now === undefined
        ? "in no stack yet (the next up creates it)"
        : `in ${now.name}${deployed !== undefined ? ` (id ${deployed.id}${deployed.unconfirmed ? ", a lost create" : ""})` : " (a pending create)"}`;
    if (product === undefined && now === undefined) {
      io.out(`${key}: not in the catalog, and in no stack of it`);
      missing += 1;
    } else if (product === undefined) io.out(`${key}: not in the catalog; ${state}: the next up of ${now!.name} removes it`);
    else {
      const move = target !== undefined && now !== undefined && target !== now.name ? `; moves to ${target} at the next split or up` : "";
      io.out(
        `${key}: ${product.file} (group ${groupOf(product.file)}); ${state}${move}${now === undefined && target ? `: ${target}` : ""}`,
      );
    }
  }
  return missing > 0 ? EXIT.failed : EXIT.ok;
}

/** `report FILE…`: the JSON reports of a matrix's jobs, as one. */
export function runReport(files: string[], io: Output): number {
  if (files.length === 0)
    throw new CatalogError("report: give the JSON files the matrix jobs wrote (serviceapi-catalog preview --stack NAME --json > FILE)");
  const runs = files.map((file) => {
    // A matrix job that failed before writing, or an artifact that was not downloaded: said as what it is.
    if (!existsSync(file))
      throw new CatalogError(`report: ${file} does not exist (a job that wrote no report, or an artifact not downloaded)`);
    try {
      const run = JSON.parse(readFileSync(file, "utf8")) as RunReport;
      if (!Array.isArray(run.results)) throw new Error("no results");
      return run;
    } catch {
      throw new CatalogError(`report: ${file} is not a report serviceapi-catalog wrote with --json`);
    }
  });
  // A stack in two files (an artifact uploaded twice, a job's file given twice) would be counted twice.
  const seen = new Map<string, string>();
  runs.forEach((run, i) =>
    run.results.forEach((r) => {
      const other = seen.get(r.stack);
      if (other !== undefined) throw new CatalogError(`report: ${r.stack} is in ${other} and in ${files[i]}: give each job's report once`);
      seen.set(r.stack, files[i]!);
    }),
  );
  const version = runs.find((r) => (r.version ?? 1) !== REPORT_VERSION);
  if (version !== undefined)
    throw new CatalogError(
      `report: a file was written by another version of serviceapi-catalog (report version ${version.version ?? 1}, this one reads ${REPORT_VERSION}): run every job with the same version`,
    );
  const combined: RunReport = {
    version: REPORT_VERSION,
    command: runs[0]!.command,
    stacks: Math.max(...runs.map((r) => r.stacks)),
    scope: runs[0]!.scope?.startsWith("--stack") ? undefined : runs[0]!.scope,
    notes: uniqueBy(
      runs.flatMap((r) => r.notes ?? []),
      (note) => JSON.stringify(note),
    ),
    results: runs.flatMap((r) => r.results),
    // Each job listed the projects once.
    requests: runs.reduce((sum, r) => sum + (r.requests ?? 0), 0),
    next: runs.find((r) => r.next !== undefined)?.next,
  };
  io.out(formatReport(combined));
  const t = totals(combined.results);
  return t.failed > 0 || t.cancelled > 0 || t.blocked > 0
    ? EXIT.failed
    : denials(combined) > 0
      ? EXIT.denied
      : combined.command === "drift" && t.ops.drift + t.ops.gone > 0
        ? EXIT.drift
        : EXIT.ok;
}

function uniqueBy<T>(items: T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => !seen.has(key(item)) && seen.add(key(item)) !== undefined);
}

function describeMoves(moves: { key: string; from: string; to: string }[]): string {
  const pairs = new Map<string, number>();
  for (const m of moves) pairs.set(`${m.from} → ${m.to}`, (pairs.get(`${m.from} → ${m.to}`) ?? 0) + 1);
  const shown = [...pairs].slice(0, 4).map(([pair, n]) => `${pair}: ${n}`);
  return pairs.size > 4 ? `${shown.join(", ")}, …` : shown.join(", ");
}

function batches(stacks: string[], size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < stacks.length; i += size) out.push(stacks.slice(i, i + size).join(","));
  return out;
}

/** The settings every provider process will read, checked once here with the provider's own messages. */
function checkSettings(options: ToolOptions, env: NodeJS.ProcessEnv = process.env) {
  if (options.config["serviceapi:token"] !== undefined) {
    throw new CatalogError(
      "--config serviceapi:token: the token is not taken on the command line (it would show in process lists and CI logs): set SERVICEAPI_TOKEN",
    );
  }
  // The tool's own words: a catalog has no stack config to set these in (the resources' messages would say `pulumi config set`).
  if (!env.SERVICEAPI_TOKEN)
    throw new CatalogError("no API token: set SERVICEAPI_TOKEN (the tool reads the token from the environment only)");
  if (!env.SERVICEAPI_BASE_URL && options.config["serviceapi:baseUrl"] === undefined) {
    throw new CatalogError("no service URL: set SERVICEAPI_BASE_URL (or --config serviceapi:baseUrl=https://…)");
  }
  return readSettings((key) => options.config[`serviceapi:${key}`], env).client;
}

/** What a stack's providers run with besides its products: a changed setting makes a resumed run run it again. */
function fingerprintSettings(options: ToolOptions): Record<string, string> {
  const env = process.env;
  return {
    ...options.config,
    ...(env.SERVICEAPI_BASE_URL !== undefined && { SERVICEAPI_BASE_URL: env.SERVICEAPI_BASE_URL }),
    ...(env.SERVICEAPI_PUBLIC_BASE_URL !== undefined && { SERVICEAPI_PUBLIC_BASE_URL: env.SERVICEAPI_PUBLIC_BASE_URL }),
  };
}

/**
 * The stacks a report's first line counts ("N of M stack(s)"): the layout's, and those outside it a
 * command still runs — a split interrupted half way leaves stacks it has not emptied yet.
 */
function stackCount(plan: Plan): number {
  const named = (id: StackId) => stackName("", id);
  return new Set([...plan.target.stacks().map(named), ...plan.runs.map((r) => named(r.id))]).size;
}
