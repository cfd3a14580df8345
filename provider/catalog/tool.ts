/**
 * The commands of `serviceapi-catalog`: plan, preview, up, drift, destroy, split, report. Each
 * reads and checks the whole catalog first, finds the stack layout in the backend (`shards.ts`),
 * picks the stacks the run concerns (all, `--stack`, or those whose products changed since
 * `--base`), runs them `--parallel` at a time through the Automation API (`stack-run.ts`) with one
 * rate-limit pacer shared by every provider process, and prints one combined report.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ServiceApiClient, startSharedPacer } from "../client";
import { readSettings } from "../resources/settings";
import { compareCatalogs, fingerprint, readCatalog, readCatalogAt, type Catalog, type CatalogChange } from "./catalog";
import { CatalogError } from "./errors";
import { formatReport, totals, type RunReport } from "./report";
import { Layout, stackName, type Shard } from "./shards";
import { split } from "./split";
import { emptyReport, runOnStack, type Command, type StackReport } from "./stack-run";
import { Workspaces } from "./workspace";

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
}

export interface Output {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** Exit codes: 0 done; 1 a stack failed; 2 refused before any stack ran; 7 drift found (as docs/gitops.md's gate); 130 cancelled. */
export const EXIT = { ok: 0, failed: 1, refused: 2, drift: 7, cancelled: 130 } as const;

interface Plan {
  catalog: Catalog;
  /** The layout in the backend now (or the one a fresh catalog starts with). */
  current: Layout;
  /** The layout after splits that are due (`up` makes them). */
  grown: Layout;
  splits: Map<Shard, Shard[]>;
  interrupted: Map<Shard, Shard[]>;
  fresh: boolean;
  change?: CatalogChange;
}

export async function plan(options: ToolOptions, workspaces: Workspaces, io: Output): Promise<Plan> {
  const catalog = readCatalog(options.catalogDir);
  const change =
    options.base === undefined
      ? undefined
      : compareCatalogs(
          readCatalogAt(options.base, options.catalogDir, (line) => io.err(line)),
          catalog,
        );
  const found = Layout.fromStacks(options.stackPrefix, await workspaces.stackNames());
  const current = found?.layout ?? Layout.initial(catalog, options.stackSize);
  const { layout: grown, splits } = current.grown(catalog, options.stackSize);
  return { catalog, current, grown, splits, interrupted: found?.interrupted ?? new Map(), fresh: found === undefined, change };
}

/** The shards a run concerns, in `layout`. */
function targets(options: ToolOptions, layout: Layout, p: Plan): Shard[] {
  if (options.stacks.length > 0) {
    const byName = new Map(layout.shards.map((s) => [stackName(options.stackPrefix, s), s]));
    return options.stacks.map((name) => {
      const shard = byName.get(name);
      // A stack the plan lists that a due split has not made yet (a deploy matrix run before its split job, say).
      const due =
        shard === undefined
          ? [...p.splits].find(([, leaves]) => leaves.some((l) => stackName(options.stackPrefix, l) === name))
          : undefined;
      if (due !== undefined) {
        const from = stackName(options.stackPrefix, due[0]);
        throw new CatalogError(
          `--stack ${name}: made by the split of ${from} that is due, which has not run yet: run \`serviceapi-catalog split\` first (until then a preview or drift runs on ${from})`,
        );
      }
      if (shard === undefined) {
        throw new CatalogError(
          `--stack ${name}: not a stack of this catalog's layout (${layout.shards.length} stacks, e.g. ${stackName(options.stackPrefix, layout.shards[0]!)}): run \`serviceapi-catalog plan\` to list them`,
        );
      }
      return shard;
    });
  }
  if (p.change === undefined) return layout.shards;
  const keys = [...p.change.added, ...p.change.changed, ...p.change.removed];
  return [...new Set(keys.map((key) => layout.shardOf(key)))].sort();
}

function scope(options: ToolOptions, p: Plan): string | undefined {
  if (options.stacks.length > 0) return `--stack ${options.stacks.join(", ")}`;
  if (p.change === undefined) return undefined;
  const { added, changed, removed } = p.change;
  return `changed since ${options.base}: ${added.length} added, ${changed.length} changed, ${removed.length} removed`;
}

export async function runPlan(options: ToolOptions, workspaces: Workspaces, io: Output): Promise<number> {
  const p = await plan(options, workspaces, io);
  // What a deploy would run: the layout after its splits.
  const shards = targets(options, p.grown, p);
  const stacks = shards.map((s) => stackName(options.stackPrefix, s));
  const sizes = p.grown.assign(p.catalog);
  // Interrupted splits too: `split` (or `up`) finishes them, and a CI runs its one split job before the deploys when any is listed.
  const splits = [...[...p.interrupted].map((s) => [...s, true] as const), ...[...p.splits].map((s) => [...s, false] as const)].map(
    ([from, into, interrupted]) => ({
      from: stackName(options.stackPrefix, from),
      into: into.map((s) => stackName(options.stackPrefix, s)),
      interrupted,
    }),
  );
  // A preview (or drift) splits nothing: it runs on the stacks as they are now, where a stack due to split still holds its halves' products.
  const now = options.stacks.length > 0 ? stacks : targets(options, p.current, p).map((s) => stackName(options.stackPrefix, s));
  if (options.json) {
    io.out(
      JSON.stringify({
        stacks,
        // `strategy.matrix: ${{ fromJSON(needs.plan.outputs.matrix) }}` in GitHub Actions; `any` guards an empty matrix, which Actions refuses.
        matrix: { stack: stacks },
        any: stacks.length > 0,
        preview: { matrix: { stack: now }, any: now.length > 0 },
        splits,
        change: p.change ?? null,
        layout: { stacks: p.grown.shards.length, products: p.catalog.size, fresh: p.fresh },
      }),
    );
    return EXIT.ok;
  }
  io.out(
    `${p.catalog.size} products in ${p.grown.shards.length} stack(s) of at most ${options.stackSize}` +
      (p.fresh ? " (no stack yet: `up` creates them)" : ""),
  );
  for (const s of splits) {
    io.out(
      `split ${s.interrupted ? "interrupted" : "due"}: ${s.from} → ${s.into.join(", ")} (${s.interrupted ? "finished by" : "at"} the next split or up; no request to the service)`,
    );
  }
  if (p.change !== undefined) io.out(scope(options, p)!);
  io.out(
    `${p.change === undefined && options.stacks.length === 0 ? "stacks" : "stacks this change touches"}:${stacks.length === 0 ? " none" : ""}`,
  );
  for (const shard of shards) io.out(`  ${stackName(options.stackPrefix, shard)} (${sizes.get(shard)!.length} products)`);
  if (p.splits.size > 0) io.out(`a preview (or drift) runs before the split, on: ${now.length === 0 ? "none" : now.join(", ")}`);
  return EXIT.ok;
}

/** preview, up, drift, destroy. */
export async function runStacks(
  command: Command,
  options: ToolOptions,
  workspaces: Workspaces,
  io: Output,
  signal: AbortSignal,
): Promise<number> {
  checkSettings(options);
  const p = await plan(options, workspaces, io);
  if (p.fresh && command === "destroy") {
    io.out(`no ${options.stackPrefix}* stack of project ${options.project} in this backend: nothing to destroy`);
    return EXIT.ok;
  }
  const log = (line: string) => (options.json ? io.err(line) : io.out(line));
  const splitLines: string[] = [];
  let layout = p.current;
  // With --stack (a CI matrix job) several runs go at once: only one run may move state, so none of them finishes a split.
  if (p.interrupted.size > 0 && ((command !== "up" && command !== "destroy") || options.stacks.length > 0)) {
    const names = [...p.interrupted.keys()].map((s) => stackName(options.stackPrefix, s));
    throw new CatalogError(
      `a split of ${names.join(", ")} was interrupted: run \`serviceapi-catalog split\` (or up) to finish it, then ${command} again`,
    );
  }
  await checkToken(options);
  if (command === "up" || command === "destroy") {
    // Finish interrupted splits, deepest first, then (up only) make the splits that are due.
    for (const [shard, leaves] of [...p.interrupted].sort(([a], [b]) => b.length - a.length)) {
      splitLines.push(describeSplit(await split(workspaces, shard, leaves, log)));
    }
  }
  if (command === "up") {
    if (options.stacks.length > 0 && p.splits.size > 0) {
      const due = [...p.splits.keys()].map((s) => stackName(options.stackPrefix, s));
      if (options.stacks.some((name) => due.includes(name))) {
        throw new CatalogError(
          `${due.join(", ")} must split before an up of one stack: run \`serviceapi-catalog split\` first (the plan job's output lists it)`,
        );
      }
    } else {
      for (const [shard, leaves] of p.splits) splitLines.push(describeSplit(await split(workspaces, shard, leaves, log)));
      layout = p.grown;
    }
  }
  const shards = command === "destroy" && options.stacks.length === 0 ? layout.shards : targets(options, layout, p);
  const assigned = layout.assign(p.catalog);
  const last = readLast(options, command);
  const reports = shards.map((shard) => {
    const products = assigned.get(shard) ?? [];
    return emptyReport(stackName(options.stackPrefix, shard), shard, command, products.length, fingerprint(products));
  });
  // Resume: after a run with failures, a re-run of the same command skips the stacks it finished with the same products.
  if (last !== undefined && !options.all && Object.values(last).some((r) => r.status !== "ok")) {
    for (const report of reports) {
      if (last[report.stack]?.status === "ok" && last[report.stack]?.fingerprint === report.fingerprint) report.status = "skipped";
    }
  }
  // One pacer for every process of every stack (the limit is the token's); each stack's URL carries
  // its name, so the pacer also counts each stack's requests — its program's lookups included.
  const pacer = await startSharedPacer();
  try {
    await pool(
      reports.filter((r) => r.status !== "skipped"),
      options.parallel,
      async (report) => {
        if (signal.aborted) {
          report.status = "cancelled";
          return;
        }
        try {
          const stack = await workspaces.stack(report.shard, assigned.get(report.shard) ?? [], {
            SERVICEAPI_SHARED_PACER_URL: pacer.urlFor(report.stack),
          });
          // On stderr at once, as `pulumi up` prints it: a killed run's log then still names every record it made (docs/recovery.md).
          await runOnStack(stack, report, signal, undefined, (line) => io.err(`${report.stack}: ${line}`));
          // The providers' own summary lines miss the program's lookups; the pacer saw every attempt (unless a process could not reach it).
          report.requests = Math.max(report.requests, pacer.stats().acquiredBy[report.stack] ?? 0);
          if (command === "destroy" && report.status === "ok") await stack.workspace.removeStack(report.stack);
        } catch (error) {
          report.status = signal.aborted ? "cancelled" : "failed";
          report.errors.push(String((error as Error).message ?? error).split("\n")[0]!);
        }
        if (!options.json) io.err(`${report.stack}: ${report.status} (${report.seconds.toFixed(1)} s)`);
      },
    );
  } finally {
    await pacer.close();
  }
  writeLast(options, command, reports);
  const run: RunReport = {
    command,
    stacks: layout.shards.length,
    scope: scope(options, p),
    splits: splitLines,
    results: reports,
    // The token check before any stack ran.
    requests: 1,
  };
  io.out(options.json ? JSON.stringify(run) : formatReport(run));
  const t = totals(reports);
  if (signal.aborted) return EXIT.cancelled;
  if (t.failed > 0) return EXIT.failed;
  if (command === "drift" && t.creates + t.updates + t.replaces + t.deletes > 0) return EXIT.drift;
  return EXIT.ok;
}

/** `split`: finishes interrupted splits and makes the due ones, and nothing else (0 requests to the service). */
export async function runSplit(options: ToolOptions, workspaces: Workspaces, io: Output): Promise<number> {
  const p = await plan(options, workspaces, io);
  const log = (line: string) => io.out(line);
  for (const [shard, leaves] of [...p.interrupted].sort(([a], [b]) => b.length - a.length)) await split(workspaces, shard, leaves, log);
  for (const [shard, leaves] of p.splits) await split(workspaces, shard, leaves, log);
  if (p.interrupted.size === 0 && p.splits.size === 0) io.out(`no split due: every stack holds at most ${options.stackSize} products`);
  return EXIT.ok;
}

/** `report FILE…`: the JSON reports of a matrix's jobs, as one. */
export function runReport(files: string[], io: Output): number {
  if (files.length === 0)
    throw new CatalogError("report: give the JSON files the matrix jobs wrote (serviceapi-catalog preview --stack NAME --json > FILE)");
  const runs = files.map((file) => {
    try {
      return JSON.parse(readFileSync(file, "utf8")) as RunReport;
    } catch {
      throw new CatalogError(`report: ${file} is not a report serviceapi-catalog wrote with --json`);
    }
  });
  const combined: RunReport = {
    command: runs[0]!.command,
    stacks: Math.max(...runs.map((r) => r.stacks)),
    scope: runs[0]!.scope?.startsWith("--stack") ? undefined : runs[0]!.scope,
    splits: runs.flatMap((r) => r.splits),
    results: runs.flatMap((r) => r.results),
    // Each job checked the token once.
    requests: runs.reduce((sum, r) => sum + (r.requests ?? 0), 0),
  };
  io.out(formatReport(combined));
  return totals(combined.results).failed > 0 ? EXIT.failed : EXIT.ok;
}

function describeSplit(step: Awaited<ReturnType<typeof split>>): string {
  return `split ${step.from} into ${step.into.map((i) => `${i.stack} (${i.moved} moved)`).join(", ")} with pulumi state move`;
}

/** The settings every provider process will read, checked once here with the provider's own messages. */
function checkSettings(options: ToolOptions): void {
  if (options.config["serviceapi:token"] !== undefined) {
    throw new CatalogError(
      "--config serviceapi:token: the token is not taken on the command line (it would show in process lists and CI logs): set SERVICEAPI_TOKEN",
    );
  }
  readSettings((key) => options.config[`serviceapi:${key}`]);
}

/**
 * One request before any stack runs: a refused token is then one refused request, not one per
 * stack (each stack's provider process would otherwise find out for itself).
 */
async function checkToken(options: ToolOptions): Promise<void> {
  const { client: settings } = readSettings((key) => options.config[`serviceapi:${key}`]);
  const client = new ServiceApiClient({ ...settings, maxRetries: 1 });
  try {
    for await (const _page of client.listProjects({ limit: 1 }).pages()) break;
  } catch (error) {
    throw new CatalogError(`no stack was run: ${(error as Error).message}`);
  } finally {
    await client.close();
  }
}

async function pool<T>(items: T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, worker));
}

type Last = Record<string, { status: StackReport["status"]; fingerprint: string }>;

function lastFile(options: ToolOptions, command: Command): string {
  return join(options.workDir, `last-${command}.json`);
}

function readLast(options: ToolOptions, command: Command): Last | undefined {
  const file = lastFile(options, command);
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Last;
  } catch {
    return undefined;
  }
}

function writeLast(options: ToolOptions, command: Command, reports: StackReport[]): void {
  const previous = readLast(options, command) ?? {};
  const last: Last = {};
  for (const r of reports) {
    // A skipped stack keeps what the run before recorded for it.
    last[r.stack] = r.status === "skipped" && previous[r.stack] ? previous[r.stack]! : { status: r.status, fingerprint: r.fingerprint };
  }
  mkdirSync(options.workDir, { recursive: true });
  writeFileSync(lastFile(options, command), JSON.stringify(last, null, 2));
}
