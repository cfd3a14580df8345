/**
 * `npm run bench:catalog`: the catalog tool (`serviceapi-catalog`, provider/catalog/) at N products,
 * beside the baselines it is judged against, all measured in the same run (issue 27, "Numbers"):
 *  a) the anchor: one stack of `--anchor` products through the dynamic face (bench/scale.ts's program)
 *     — up, a no-change preview, preview --refresh — the single stack the tool replaces, and its N² growth;
 *  b) the tool at `--products` products, file backend, against the simulator, as a user runs it (the
 *     installed package's bin, in a process of its own): the first full `up`, beside the `up` floor
 *     (do-nothing stacks of the same sizes, the same parallelism and backend, each created and then `up`
 *     as the tool's are; and the bare CLI's: `pulumi stack init`, `pulumi up --yes --skip-preview` per
 *     stack) and where each one's CPU went (by kind of process, the `pulumi` processes by command, the
 *     in-process simulator); the same `up` keeping Pulumi's checkpoints, in a backend of its own (what
 *     skipping them saves); a pull request that
 *     changes 2 products (`plan --base` and `preview --base`: time, writes, the stacks it ran); a
 *     no-change `preview` of every stack beside the do-nothing floor's previews at the same stack
 *     sizes; `drift` with the simulator limited to 20 requests/s against the rate's floor, and the
 *     share refused; the peak RSS of each run (the tool and every process below it); state bytes per product;
 *  c) the same `up`, no-change `preview`, pull request and `drift` with the state in PostgreSQL
 *     (scripts/postgres.sh), against b)'s;
 *  d) four runners (separate work folders, PULUMI_HOMEs and process trees, as four matrix jobs), each
 *     `drift --stack` of a quarter of c)'s stacks at once, at `--rate`: sharing the limit through the
 *     backend's PostgreSQL (the default), each pacing alone (SERVICEAPI_RATE_LIMIT_STORE=off), and one
 *     runner of every stack; time against the rate's floor, the share refused, the store's transactions.
 * With `--growth N1,N2,…` it runs e) after them: at each size, in a backend and simulator of its own, the
 * first `up`, a no-change `preview` and `drift` at `--rate`, printed as time per product against the
 * smallest size's (growth shown, not assumed: 1.00x is linear); the row at `--products` is b)'s own
 * runs. `--growth-only` runs e) alone.
 * Printed, never asserted; a command that fails or does something other than expected stops the bench.
 *
 *  f) one catalog of `--products` products, `--sites` sites and `--tasks` tasks across 3 projects (issue 44):
 *     the first `up` against b)'s time per product, its writes by kind, a no-change `preview`, and a
 *     `drift` after 1 % of the sites were renamed in the UI: its requests, the sites' listings (pages of
 *     100) against one request per site.
 *
 *   node dist/bench/catalog.js [--products N] [--anchor N] [--stack-size N] [--parallel N] [--drift-parallel N] [--rate N] [--quick]
 *                              [--sites N] [--tasks N] [--skip anchor,pr,preview,floor,checkpoints,drift,postgres,runners,kinds]
 *                              [--growth N1,N2,…] [--growth-only]
 */
import { execFileSync, spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { gunzipSync, zstdDecompressSync } from "node:zlib";
import { LocalWorkspace, Stack } from "@pulumi/pulumi/automation";
import { parse, stringify } from "yaml";
import { DEFAULT_IDS, startSimulator, type Simulator } from "pulumi-serviceapi-simulator";
import { ServiceApiClient } from "../provider";
import type { RunReport } from "../provider/catalog/report";
import { withoutResultReads } from "../provider/catalog/workspace";
import { EngineStack, REPO, opaBin, pulumiCli } from "../scripts/engine/driver";
import { Policies, policyChanges } from "../provider/catalog/policy";
import { watchProcesses, type ProcessFigures, type Role } from "./process-watch";
import { mb, runStack, sec, stateFigures, timed, type StackRun } from "./scale";

const PROJECT_NAME = "Acme Web";
const PRODUCT_TYPE = "pulumi-nodejs:dynamic/serviceapi:Product";
/** Products per catalog file: a catalog kept as many small files, as a team keeps one per area. */
const PER_FILE = 100;
/** The two products the pull request changes (their titles). */
const CHANGED = [1, 2];
/** The matrix jobs of section d). */
const RUNNERS = 4;
const SECTIONS = ["anchor", "pr", "preview", "floor", "checkpoints", "drift", "postgres", "runners", "kinds"] as const;
type Section = (typeof SECTIONS)[number];

interface Options {
  products: number;
  anchor: number;
  stackSize: number;
  /** `--parallel` of the tool; undefined: the tool's default (the CPUs). */
  parallel?: number;
  /**
   * `--parallel` of the drift run, when it should differ: drift is paced by the service's limit, not
   * the CPUs, and with as many stacks as CPUs they start and finish in step, leaving the limit
   * unused while both start their next stack (bench's own finding; see the drift line's "seconds used less than 90 %").
   */
  driftParallel?: number;
  rate: number;
  skip: Set<Section>;
  /** Sizes for e), run after the other sections (empty: no e). */
  growth: number[];
  /** Only e). */
  growthOnly: boolean;
  /** f): the sites and tasks beside `products` products in one catalog. */
  sites: number;
  tasks: number;
}

/** The same product as bench/scale-program declares for index `i`, as a catalog entry (project by name). */
function entry(i: number, title = `Product ${i}`) {
  return {
    project: PROJECT_NAME,
    title,
    slug: `product-${i}`,
    description: `Product ${i} of the scale bench, declared by one line of a program.`,
  };
}

function catalogFile(from: number, to: number, renamed: Set<number> = new Set()): string {
  const products: Record<string, unknown> = {};
  for (let i = from; i < to; i++) products[`product-${i}`] = entry(i, renamed.has(i) ? `Product ${i} (renamed)` : undefined);
  return stringify(products);
}

/** Files per folder: each folder directly in the catalog folder is a group with stacks of its own (provider/catalog/layout.ts), a team's area. */
const FILES_PER_FOLDER = 10;

const fileName = (first: number) => {
  const n = first / PER_FILE;
  return join(`area-${String(Math.floor(n / FILES_PER_FOLDER)).padStart(3, "0")}`, `products-${String(n).padStart(4, "0")}.yaml`);
};

/** The catalog folder, committed to a git repository of its own so `--base HEAD` has a base. */
function writeCatalog(dir: string, count: number): void {
  for (let first = 0; first < count; first += PER_FILE) {
    mkdirSync(dirname(join(dir, fileName(first))), { recursive: true });
    writeFileSync(join(dir, fileName(first)), catalogFile(first, Math.min(count, first + PER_FILE)));
  }
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, stdio: "ignore" });
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "commit", "-q", "-m", "the catalog");
}

// --- the tool, as a process of its own ---------------------------------------------------------------

interface ToolRun {
  /** When it was started (epoch ms, as the simulator's log times are). */
  startedAt: number;
  ms: number;
  code: number | null;
  stdout: string;
  stderr: string;
  /** The most the tool and every process below it held at once. */
  treeRss: number;
  /** The largest one process's peak. */
  processRss: number;
  /** Which process that was: its program and first argument (`node …/bin.js up`: the tool itself). */
  processRssOf: string;
  /** CPU time of the tool and every process below it: on a quiet machine of C cores the run takes at least this ÷ C. */
  cpuMs: number;
  /** The same by kind of process (bench/process-watch.ts's roles; "other": the `pulumi` CLIs and their language hosts). */
  cpuByRole: Record<Role, number>;
  /** Every process of the run, as the watcher last saw it. */
  processes: ProcessFigures[];
  /** CPU time of the bench's own process meanwhile: the in-process simulator answering the run (and the watcher's polls). */
  simulatorCpuMs: number;
}

/** The process with the largest peak, as its program's name and first two arguments' names (`node bin.js up`). */
function largestOf(processes: ProcessFigures[]): string {
  const largest = processes.reduce<ProcessFigures | undefined>((a, p) => (a === undefined || p.peakRss > a.peakRss ? p : a), undefined);
  if (largest === undefined) return "none";
  return largest.command
    .split(/\s+/)
    .slice(0, 3)
    .map((part) => part.split("/").pop())
    .join(" ");
}

/** CPU time summed by kind of process. */
function cpuByRole(processes: ProcessFigures[]): Record<Role, number> {
  return Object.fromEntries(
    (["cli", "program", "provider", "other"] as const).map((role) => [
      role,
      processes.filter((p) => p.role === role).reduce((sum, p) => sum + p.cpuMs, 0),
    ]),
  ) as Record<Role, number>;
}

/**
 * The "other" processes' CPU by what they are — each `pulumi` command by its verb, the language
 * hosts, the launchers — largest first: where the CLIs' share of a run goes.
 */
function otherByCommand(processes: ProcessFigures[]): string {
  const sums = new Map<string, { ms: number; n: number }>();
  for (const p of processes.filter((p) => p.role === "other")) {
    const words = p.command.trim().split(/\s+/);
    const exe = (words[0] ?? "").split("/").pop() ?? "";
    const verbs = words.slice(1).filter((w) => !w.startsWith("-"));
    const what = exe === "pulumi" ? `pulumi ${verbs.slice(0, verbs[0] === "stack" ? 2 : 1).join(" ")}` : exe;
    const sum = sums.get(what) ?? { ms: 0, n: 0 };
    sum.ms += p.cpuMs;
    sum.n += 1;
    sums.set(what, sum);
  }
  return [...sums.entries()]
    .sort((a, b) => b[1].ms - a[1].ms)
    .slice(0, 6)
    .map(([what, { ms, n }]) => `${what} ×${n} ${sec(ms)}`)
    .join(", ");
}

const ownCpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

class Tool {
  readonly #env: Record<string, string>;
  readonly #common: string[];
  readonly #parallel: number | undefined;

  constructor(
    readonly root: string,
    sim: Simulator,
    backendUrl: string,
    cliBin: string,
    options: Options,
    /** The catalog's folder, when another runner's checkout holds it (default: `root`/catalog). */
    catalog = join(root, "catalog"),
    extraEnv: Record<string, string> = {},
  ) {
    this.#env = {
      // OPA for the catalog's policies: the default set runs in every preview and up, as for a user.
      PATH: `${cliBin}:${opaBin()}:${join(REPO, "node_modules", ".bin")}:${process.env.PATH ?? ""}`,
      PULUMI_BACKEND_URL: backendUrl,
      PULUMI_CONFIG_PASSPHRASE: "",
      PULUMI_HOME: join(root, "pulumi-home"),
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      SERVICEAPI_BASE_URL: sim.url,
      SERVICEAPI_TOKEN: sim.token,
      ...extraEnv,
    };
    this.#common = ["--catalog", catalog, "--work-dir", join(root, "work"), "--stack-size", String(options.stackSize)];
    this.#parallel = options.parallel;
  }

  /** One command, timed from spawn to exit, its process tree watched; `parallel` overrides the bench's `--parallel`. */
  async run(args: string[], expected: number[] = [0], parallel = this.#parallel): Promise<ToolRun> {
    // The installed package, as users run it (`npx serviceapi-catalog`), with the bench's Node.js.
    const bin = join(REPO, "node_modules", "pulumi-serviceapi", "dist", "provider", "catalog", "bin.js");
    const startedAt = Date.now();
    const start = performance.now();
    const ownCpuAtStart = ownCpuMs();
    const child = spawn(
      process.execPath,
      [bin, ...args, ...this.#common, ...(parallel === undefined ? [] : ["--parallel", String(parallel)])],
      {
        cwd: this.root,
        env: { ...process.env, ...this.#env },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const watch = watchProcesses(child.pid!);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    const ms = performance.now() - start;
    const simulatorCpuMs = ownCpuMs() - ownCpuAtStart;
    const processes = watch.stop();
    if (!expected.includes(code ?? -1)) {
      // The whole of both streams stays for reading after the bench has stopped; the message has their ends.
      const kept = mkdtempSync(join(tmpdir(), "bench-catalog-failed-"));
      writeFileSync(join(kept, "stdout"), stdout);
      writeFileSync(join(kept, "stderr"), stderr);
      console.error(`   the failed command's output: ${kept}/stdout, ${kept}/stderr`);
      throw new Error(
        `serviceapi-catalog ${args.join(" ")} exited ${code}:\n${failures(stdout) ?? stdout.slice(-3000)}\n${stderr.slice(-3000)}`,
      );
    }
    return {
      startedAt,
      ms,
      code,
      stdout,
      stderr,
      treeRss: watch.peakTreeRss(),
      processRss: Math.max(0, ...processes.map((p) => p.peakRss)),
      processRssOf: largestOf(processes),
      cpuMs: processes.reduce((sum, p) => sum + p.cpuMs, 0),
      cpuByRole: cpuByRole(processes),
      processes,
      simulatorCpuMs,
    };
  }

  /** A command with `--json`: its report. */
  async report(args: string[], expected?: number[], parallel?: number): Promise<{ run: ToolRun; report: RunReport }> {
    const run = await this.run([...args, "--json"], expected, parallel ?? this.#parallel);
    return { run, report: JSON.parse(run.stdout) as RunReport };
  }
}

/** A `--json` report's failed stacks and their errors (what a failed run's tail would cut off), or undefined for other output. */
function failures(stdout: string): string | undefined {
  try {
    const report = JSON.parse(stdout) as RunReport;
    return report.results
      .filter((r) => r.status !== "ok")
      .map((r) => `${r.stack}: ${r.status}: ${r.errors.join("; ")} (log ${r.log})`)
      .join("\n");
  } catch {
    return undefined;
  }
}

/** One product entry's bytes, from bench/scale.ts's split of it. */
function entryBytes(state: ReturnType<typeof stateFigures>): number {
  const p = state.parts;
  return p.inputs + p.outputs + p.provider + p.engine;
}

function cpuParts(run: ToolRun): string {
  const c = run.cpuByRole;
  return (
    `the tool ${sec(c.cli)}, programs ${sec(c.program)}, providers ${sec(c.provider)}, pulumi CLIs and language hosts ${sec(c.other)}; ` +
    `beside them the simulator (the bench's process) ${sec(run.simulatorCpuMs)}`
  );
}

function totals(report: RunReport) {
  const sum = (f: (r: RunReport["results"][number]) => number) => report.results.reduce((a, r) => a + f(r), 0);
  return {
    creates: sum((r) => r.changes.filter((c) => c.op === "create").length),
    changes: sum((r) => r.changes.filter((c) => c.op !== "create").length),
    requests: sum((r) => r.requests),
    stackSeconds: sum((r) => r.seconds),
    failed: report.results.filter((r) => r.status !== "ok"),
  };
}

function expectClean(what: string, report: RunReport, creates: number): void {
  const t = totals(report);
  if (t.failed.length > 0 || t.creates !== creates || t.changes !== 0) {
    throw new Error(
      `${what}: expected ${creates} creates and no other change in ${report.results.length} stacks, got ${t.creates} creates, ` +
        `${t.changes} other changes, ${t.failed.length} failed (${t.failed.flatMap((r) => r.errors).join("; ")})`,
    );
  }
}

/** API requests in the simulator's log since it was last cleared (its own control routes left out). */
function apiRequests(sim: Simulator) {
  const log = sim.requests().filter((r) => r.operation !== null);
  return {
    all: log.length,
    refused: log.filter((r) => r.status === 429).length,
    writes: log.filter((r) => r.method !== "GET" && r.method !== "HEAD").length,
    /** From the first request to the last, as the simulator received them: the run less its start and its tail. */
    firstMs: log.length > 0 ? Date.parse(log[0]!.time) : Number.NaN,
    spanMs: log.length > 1 ? Date.parse(log.at(-1)!.time) - Date.parse(log[0]!.time) : 0,
    /** Requests let through in each whole second from the first request on: where a paced run leaves the limit unused. */
    perSecond: (() => {
      const start = log.length > 0 ? Date.parse(log[0]!.time) : 0;
      const counts: number[] = [];
      for (const r of log.filter((r) => r.status !== 429)) {
        const at = Math.floor((Date.parse(r.time) - start) / 1000);
        counts[at] = (counts[at] ?? 0) + 1;
      }
      return Array.from(counts, (n) => n ?? 0);
    })(),
  };
}

// --- the sections -------------------------------------------------------------------------------------

/** b)'s runs, for c)'s comparison and e)'s row at `--products`. */
interface FileFigures {
  up: ToolRun;
  preview?: ToolRun;
  /** The pull request's plan and preview, summed. */
  prMs?: number;
  drift?: ToolRun;
}

async function anchor(options: Options): Promise<StackRun> {
  const n = options.anchor;
  console.log(`\n   a) Anchor: one stack of ${n} products, dynamic face (bench/scale-program), file backend, the CLI's default --parallel`);
  const run = await runStack("dynamic", n, { name: "file" }, ["up", "preview", "refresh"]);
  const op = (o: "up" | "preview" | "refresh") => run.ops[o]!;
  console.log(
    `   ${"up".padEnd(26)}${"no-change preview".padEnd(26)}${"preview --refresh".padEnd(26)}bytes/product  provider / program peak RSS`,
  );
  const cell = (o: "up" | "preview" | "refresh") => `${sec(op(o).ms)} ${(op(o).ms / n).toFixed(1)} ms/p`.padEnd(26);
  console.log(
    `   ${cell("up")}${cell("preview")}${cell("refresh")}${String(run.state!.perProduct).padEnd(15)}` +
      `${mb(Math.max(op("up").providerRss, op("preview").providerRss, op("refresh").providerRss))} / ` +
      `${mb(Math.max(op("up").programRss, op("preview").programRss, op("refresh").programRss))}`,
  );
  // `up` grows with N² (the DIY backends write the whole snapshot after every step, bench/scale.ts's
  // snapshot section): one stack of N would take between the linear and the quadratic extrapolation.
  const k = options.products / n;
  console.log(
    `   one stack of ${options.products} instead: up ≥ ${sec(op("up").ms * k)} (linear) and up to ${sec(op("up").ms * k * k)} (N²); ` +
      `no-change preview ≈ ${sec(op("preview").ms * k)} (linear)`,
  );
  return run;
}

async function fileBackend(options: Options, cliBin: string, anchorRun: StackRun | undefined): Promise<FileFigures> {
  const parallel = options.parallel ?? availableParallelism();
  console.log(
    `\n   b) serviceapi-catalog at ${options.products} products, file backend, simulator on loopback: --stack-size ${options.stackSize}, ` +
      `--parallel ${parallel}${options.parallel === undefined ? " (the tool's default: the CPUs)" : ""}, ${availableParallelism()} CPUs`,
  );
  const root = mkdtempSync(join(tmpdir(), "bench-catalog-"));
  const sim = await startSimulator({ port: 0, requestLogLimit: 10 * options.products + 10_000 });
  try {
    writeCatalog(join(root, "catalog"), options.products);
    mkdirSync(join(root, "state"));
    const tool = new Tool(root, sim, `file://${join(root, "state")}`, cliBin, options);

    sim.clearRequests();
    const up = await tool.report(["up"]);
    expectClean("up", up.report, options.products);
    const upRequests = apiRequests(sim);
    const upTotals = totals(up.report);
    const sizes = up.report.results.map((r) => r.size.product ?? 0);
    console.log(
      `   first full up: ${sec(up.run.ms)} (target ≤ 5 min) — ${upTotals.creates} created in ${up.report.results.length} stacks ` +
        `of ${Math.min(...sizes)}–${Math.max(...sizes)} products; Σ per-stack ${sec(upTotals.stackSeconds * 1000)} ` +
        `(${sec((upTotals.stackSeconds * 1000) / sizes.length)} each); ` +
        `${upRequests.all} requests (${upTotals.requests} by the providers' count)`,
    );
    console.log(
      `   CPU time of the run (the tool and every process below it) ${sec(up.run.cpuMs)}, ÷ ${availableParallelism()} CPUs = ` +
        `${sec(up.run.cpuMs / availableParallelism())}: the least a quiet machine needs; load average at the end ${loadavg()[0]!.toFixed(1)}; ` +
        `by process: ${cpuParts(up.run)}`,
    );
    console.log(
      `   peak RSS of the run (the tool and every process below it, at once): ${mb(up.run.treeRss)}; largest one process ${mb(up.run.processRss)} (${up.run.processRssOf})`,
    );

    const state = stateOfStacks(join(root, "state"), up.report.results.length);
    const anchorState = anchorRun?.state;
    console.log(
      `   state: ${mb(state.bytes)} in ${up.report.results.length} stacks, ${Math.round(state.bytes / options.products)} bytes per product ` +
        `(a product's own entry ${Math.round(state.entries / options.products)})` +
        (anchorState === undefined ? "" : `; one stack of ${options.anchor}: ${anchorState.perProduct} (entry ${entryBytes(anchorState)})`),
    );

    policyFigures(up.report);

    if (!options.skip.has("floor")) {
      await upFloor(sizes, parallel, up.run);
      await bareCliFloor(sizes, parallel, up.run);
    }
    if (!options.skip.has("checkpoints")) await checkpointsKept(options, cliBin, up.run);

    const prMs = options.skip.has("pr") ? undefined : await pullRequest(tool, sim, root, options);

    let preview: ToolRun | undefined;
    if (!options.skip.has("preview")) {
      sim.clearRequests();
      const { run, report } = await tool.report(["preview"]);
      expectClean("no-change preview", report, 0);
      const previewTotals = totals(report);
      const previewRequests = apiRequests(sim);
      console.log(
        `   no-change preview of all ${report.results.length} stacks: ${sec(run.ms)}; Σ per-stack ${sec(previewTotals.stackSeconds * 1000)}; ` +
          `${previewRequests.all} requests, ${previewRequests.writes} writes; peak RSS ${mb(run.treeRss)}`,
      );
      if (!options.skip.has("floor")) await floor(sim, sizes, run.ms, previewTotals.stackSeconds * 1000);
      preview = run;
    }

    const drifted = options.skip.has("drift") ? undefined : await drift(tool, sim, options);
    return { up: up.run, preview, prMs, drift: drifted };
  } finally {
    await sim.close();
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * The policies over the first up's typed plan (every create, with its fields): the default set and
 * the example's policies, evaluated by OPA as `preview` and `up` evaluate them (issue 45: ≤ 1 s at
 * 10,000). Best of three: one evaluation is one `opa eval` process.
 */
function policyFigures(report: RunReport): void {
  const work = mkdtempSync(join(tmpdir(), "bench-policy-"));
  const policies = Policies.load(
    { dirs: [join(REPO, "examples", "catalog-tool", "policy")], off: [], params: {} },
    join(REPO, "catalog"),
    work,
    {
      SERVICEAPI_OPA: join(opaBin(), "opa"),
    },
  )!;
  const input = {
    project: "serviceapi-catalog",
    stackPrefix: "catalog-",
    settings: {},
    changes: policyChanges(report.results, () => "catalog.yaml"),
  };
  const times: number[] = [];
  let verdicts = 0;
  for (let i = 0; i < 3; i++) {
    const at = performance.now();
    verdicts = policies.evaluate(input).length;
    times.push(performance.now() - at);
  }
  rmSync(work, { recursive: true, force: true });
  console.log(
    `   policies (the default set and the example's ${policies.files.length - 3}) over the up's plan of ${input.changes.length} changes: ` +
      `${Math.round(Math.min(...times))} ms (best of 3; target ≤ 1 s at 10,000), ${verdicts} verdict(s); input ${mb(Buffer.byteLength(JSON.stringify(input)))}`,
  );
}

/** The three projects f)'s catalog spreads over (the seed's: Acme Web has 250 sites, Acme Docs 3, Globex Shop 5). */
const KIND_PROJECTS = [
  { name: "Acme Web", id: DEFAULT_IDS.acmeWeb, slug: "acme-web" },
  { name: "Acme Docs", id: DEFAULT_IDS.acmeDocs, slug: "acme-docs" },
  { name: "Globex Shop", id: DEFAULT_IDS.globexShop, slug: "globex-shop" },
];

/** f) products, sites and tasks in one catalog across 3 projects: the first up, a no-change preview, site drift by listing. */
async function kinds(options: Options, cliBin: string, file: FileFigures): Promise<void> {
  const { products, sites, tasks } = options;
  const records = products + sites + tasks;
  console.log(
    `\n   f) one catalog of ${products} products, ${sites} sites and ${tasks} tasks across ${KIND_PROJECTS.length} projects, file backend`,
  );
  const root = mkdtempSync(join(tmpdir(), "bench-catalog-kinds-"));
  const sim = await startSimulator({ port: 0, requestLogLimit: 10 * records + 10_000 });
  try {
    // Each project gets its share of the sites: those the seed lacks are added, with subdomains of the seed's pattern.
    const perProject = KIND_PROJECTS.map((_, i) => Math.floor(sites / KIND_PROJECTS.length) + (i < sites % KIND_PROJECTS.length ? 1 : 0));
    const seeded = new Map(KIND_PROJECTS.map((p) => [p.id, 0]));
    for (const site of sim.seed.sites) seeded.set(site.projectId, (seeded.get(site.projectId) ?? 0) + 1);
    const subdomain = (p: (typeof KIND_PROJECTS)[number], n: number) => `${p.slug}-${String(n).padStart(3, "0")}`;
    KIND_PROJECTS.forEach((p, i) => {
      for (let n = seeded.get(p.id)! + 1; n <= perProject[i]!; n++)
        sim.addSite({ projectId: p.id, name: `${p.name} ${n}`, subdomain: subdomain(p, n) });
    });
    const dir = join(root, "catalog");
    mkdirSync(dir, { recursive: true });
    const write = (name: string, entries: Record<string, unknown>) => writeFileSync(join(dir, name), stringify(entries));
    // Products: the same entries as b)'s, in the same files, each file in one of the projects.
    for (let first = 0; first < products; first += PER_FILE) {
      const project = KIND_PROJECTS[(first / PER_FILE) % KIND_PROJECTS.length]!;
      const entries: Record<string, unknown> = {};
      for (let i = first; i < Math.min(products, first + PER_FILE); i++) entries[`product-${i}`] = { ...entry(i), project: project.name };
      // b)'s layout (area folders of 10 files: a group each, stacks of up to --stack-size), so the two compare.
      mkdirSync(dirname(join(dir, fileName(first))), { recursive: true });
      write(fileName(first), entries);
    }
    // Sites: one file per project, each site given a new name (every take-over is one PATCH).
    KIND_PROJECTS.forEach((p, i) => {
      const entries: Record<string, unknown> = {};
      for (let n = 1; n <= perProject[i]!; n++)
        entries[subdomain(p, n)] = { kind: "site", project: p.name, subdomain: subdomain(p, n), name: `${p.name} site ${n}` };
      if (perProject[i]! > 0) write(`${p.slug}-sites.yaml`, entries);
    });
    // Tasks: weekly, their first run far ahead, in files of PER_FILE in one folder (one group).
    for (let first = 0; first < tasks; first += PER_FILE) {
      const entries: Record<string, unknown> = {};
      for (let i = first; i < Math.min(tasks, first + PER_FILE); i++)
        entries[`task-${i}`] = {
          kind: "task",
          project: KIND_PROJECTS[i % KIND_PROJECTS.length]!.name,
          title: `Task ${i}`,
          prompt: `Prompt ${i}`,
          scheduledAt: "2099-01-05T09:00:00Z",
          rrule: "FREQ=WEEKLY;BYDAY=MO",
        };
      mkdirSync(join(dir, "tasks"), { recursive: true });
      write(join("tasks", `tasks-${String(first / PER_FILE).padStart(4, "0")}.yaml`), entries);
    }
    mkdirSync(join(root, "state"));
    const tool = new Tool(root, sim, `file://${join(root, "state")}`, cliBin, options);

    sim.clearRequests();
    const up = await tool.report(["up"]);
    const ops = (report: RunReport) => {
      const counts: Record<string, number> = {};
      for (const c of report.results.flatMap((r) => r.changes))
        counts[`${c.kind ?? "product"} ${c.op}`] = (counts[`${c.kind ?? "product"} ${c.op}`] ?? 0) + 1;
      return counts;
    };
    const failed = up.report.results.filter((r) => r.status !== "ok");
    const upOps = ops(up.report);
    if (
      failed.length > 0 ||
      (upOps["product create"] ?? 0) !== products ||
      (upOps["site adopt"] ?? 0) !== sites ||
      (upOps["task create"] ?? 0) !== tasks
    )
      throw new Error(
        `f) up: expected ${products} products created, ${sites} sites taken over, ${tasks} tasks created; got ${JSON.stringify(upOps)}, ${failed.length} stacks failed`,
      );
    const log = sim.requests().filter((r) => r.operation !== null);
    const count = (operation: string) => log.filter((r) => r.operation === operation).length;
    const perRecord = up.run.ms / records;
    const productPerRecord = file.up.ms / products;
    console.log(
      `   first up: ${sec(up.run.ms)} in ${up.report.results.length} stacks — ${perRecord.toFixed(1)} ms per record against b)'s ${productPerRecord.toFixed(1)} ms per product ` +
        `(${(perRecord / productPerRecord).toFixed(2)}x); requests: ${count("products.create")} product creates, ${count("sites.update")} site renames, ` +
        `${count("tasks.create")} task creates, ${count("sites.list")} site listing pages, ${log.length} in all`,
    );

    sim.clearRequests();
    const preview = await tool.report(["preview"]);
    const previewChanges = preview.report.results.flatMap((r) => r.changes).length;
    if (previewChanges !== 0) throw new Error(`f) no-change preview: ${previewChanges} changes`);
    const previewLog = sim.requests().filter((r) => r.operation !== null);
    console.log(
      `   no-change preview: ${sec(preview.run.ms)} (b)'s ${file.preview === undefined ? "not run" : sec(file.preview.ms)} for ${products} products); ` +
        `${previewLog.length} requests, ${previewLog.filter((r) => r.method !== "GET").length} writes`,
    );

    // 1 % of the sites renamed in the UI (at least one), then drift: sites are read by listing, never one request each.
    const renamed = Math.max(1, Math.floor(sites / 100));
    const client = new ServiceApiClient({ baseUrl: sim.url, token: sim.token });
    try {
      for (let n = 1; n <= renamed && sites > 0; n++) {
        const site = sim.seed.sites.find((s) => s.subdomain === subdomain(KIND_PROJECTS[0]!, n));
        const id =
          site?.id ??
          (await client.listSites({ projectId: KIND_PROJECTS[0]!.id, limit: 100 }).toArray()).find(
            (s) => s.subdomain === subdomain(KIND_PROJECTS[0]!, n),
          )!.id!;
        await client.updateSite(id, { name: `Renamed in the UI ${n}` });
      }
    } finally {
      await client.close();
    }
    sim.clearRequests();
    const drifted = await tool.report(["drift"], [0, 7]);
    const driftOps = ops(drifted.report);
    const driftLog = sim.requests().filter((r) => r.operation !== null);
    const pages = driftLog.filter((r) => r.operation === "sites.list").length;
    console.log(
      `   drift after ${renamed} site rename(s) in the UI: ${sec(drifted.run.ms)}; ${driftOps["site drift"] ?? 0} sites drifted; ${driftLog.length} requests, ` +
        `of them ${pages} site listing pages for ${sites} sites (one request per site would be ${sites}), ${driftLog.filter((r) => r.operation === "products.update").length} product reads; ` +
        `${driftLog.filter((r) => r.method !== "GET" && r.operation !== "products.update").length} writes`,
    );
  } finally {
    await sim.close();
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * Every stack's state file as the file backend stores it, summed (`bytes`), and the product entries
 * alone (`entries`: without what each stack holds once, its stack and provider resources).
 */
function stateOfStacks(stateDir: string, stacks: number): { bytes: number; entries: number } {
  const dir = join(stateDir, ".pulumi", "stacks");
  const files = readdirSync(dir).flatMap((project) =>
    readdirSync(join(dir, project))
      .filter((f) => /\.json(\.gz|\.zst)?$/.test(f))
      .map((f) => join(dir, project, f)),
  );
  if (files.length !== stacks) throw new Error(`${stacks} stacks reported, ${files.length} state files in ${dir}`);
  const sum = { bytes: 0, entries: 0 };
  for (const file of files) {
    // Compressed as PULUMI_DIY_BACKEND_GZIP / _ZSTD write it; its bytes are counted as JSON, as the other backends' are.
    const raw = readFileSync(file);
    const text = (file.endsWith(".zst") ? zstdDecompressSync(raw) : file.endsWith(".gz") ? gunzipSync(raw) : raw).toString("utf8");
    const products = (JSON.parse(text) as { checkpoint: { latest: { resources: { type: string }[] } } }).checkpoint.latest.resources.filter(
      (r) => r.type === PRODUCT_TYPE,
    ).length;
    const figures = stateFigures(text, PRODUCT_TYPE, Math.max(1, products));
    sum.bytes += figures.bytes;
    sum.entries += entryBytes(figures) * products;
  }
  return sum;
}

/** A pull request changing 2 products' titles: the plan job, then the preview of the stacks it names, as CI runs them. */
async function pullRequest(tool: Tool, sim: Simulator, root: string, options: Options): Promise<number> {
  const dir = join(root, "catalog");
  const renamed = new Set(CHANGED);
  const first = Math.floor(CHANGED[0]! / PER_FILE) * PER_FILE;
  const original = readFileSync(join(dir, fileName(first)), "utf8");
  writeFileSync(join(dir, fileName(first)), catalogFile(first, Math.min(options.products, first + PER_FILE), renamed));
  try {
    sim.clearRequests();
    const plan = await tool.run(["plan", "--base", "HEAD", "--json"]);
    const planned = (JSON.parse(plan.stdout) as { stacks: string[] }).stacks;
    // Text, not --json: the report a pull request's comment shows, printed below as it is.
    const preview = await tool.run(["preview", "--base", "HEAD"]);
    const requests = apiRequests(sim);
    const ran = [...preview.stdout.matchAll(/^(\S+) \(\d+ products\):/gm)].map((m) => m[1]!);
    // Issue 46's yardstick: one stack's plain no-change preview, the do-nothing program at the size of the largest stack previewed.
    const size = Math.max(...[...preview.stdout.matchAll(/^\S+ \((\d+) products\):/gm)].map((m) => Number(m[1])));
    const plain = await plainPreviewMs(sim, size);
    console.log(
      `   pull request changing ${CHANGED.length} products: plan ${sec(plan.ms)} + preview ${sec(preview.ms)} = ${sec(plan.ms + preview.ms)} (target ≤ 15 s); ` +
        `${requests.writes} writes (target 0), ${requests.all} requests; stacks planned: ${planned.join(", ")}; previewed: ${ran.join(", ")}; ` +
        `one stack's plain no-change preview at ${size} ${sec(plain)}: the pull request ${((plan.ms + preview.ms) / plain).toFixed(2)}x (target ≤ 2x)`,
    );
    console.log(
      preview.stdout
        .trim()
        .split("\n")
        .map((line) => `     | ${line}`)
        .join("\n"),
    );
    return plan.ms + preview.ms;
  } finally {
    writeFileSync(join(dir, fileName(first)), original);
  }
}

/** A no-change `pulumi preview` of one stack of `size` do-nothing resources (bench/scale.ts's floor face), after its `up`. */
async function plainPreviewMs(sim: Simulator, size: number): Promise<number> {
  const engine = await EngineStack.create(sim, {
    program: join(REPO, "bench", "scale-program"),
    config: { "bench:face": "floor", "bench:count": String(size), "bench:projectId": DEFAULT_IDS.acmeWeb },
  });
  try {
    await timed(engine, "up");
    return (await timed(engine, "preview")).ms;
  } finally {
    await engine.dispose();
  }
}

/**
 * The floor of a no-change preview of every stack: the do-nothing dynamic provider of bench/scale.ts
 * (the engine, the Node.js runtime and a dynamic-provider process, no work of ours) previewed at
 * each stack's size, summed — what the same stacks would cost if each were a plain `pulumi preview`
 * of nothing. Measured the cheapest honest way: one floor stack, grown through the distinct sizes
 * in ascending order (each `up` adds a few resources), one no-change preview per distinct size,
 * counted as many times as stacks have that size. Sequential, as the sum is of one-stack runs;
 * the tool's own Σ per-stack seconds (its stacks ran `--parallel` at a time, so they shared the
 * CPUs) is printed beside its wall clock.
 */
async function floor(sim: Simulator, sizes: number[], toolMs: number, toolStackMs: number): Promise<void> {
  const counts = new Map<number, number>();
  for (const size of sizes) counts.set(size, (counts.get(size) ?? 0) + 1);
  const distinct = [...counts.keys()].sort((a, b) => a - b);
  const engine = await EngineStack.create(sim, {
    program: join(REPO, "bench", "scale-program"),
    config: { "bench:face": "floor", "bench:count": String(distinct[0]), "bench:projectId": DEFAULT_IDS.acmeWeb },
  });
  let sum = 0;
  try {
    for (const size of distinct) {
      await engine.stack.setConfig("bench:count", { value: String(size) });
      await timed(engine, "up");
      sum += (await timed(engine, "preview")).ms * counts.get(size)!;
    }
  } finally {
    await engine.dispose();
  }
  console.log(
    `   floor: Σ of ${sizes.length} no-change previews of the do-nothing program at the same sizes ${sec(sum)} ` +
      `(${distinct.length} distinct sizes measured); the tool ${sec(toolMs)} wall = ${(toolMs / sum).toFixed(2)}x (target ≤ 1.2x), ` +
      `Σ per-stack ${(toolStackMs / sum).toFixed(2)}x`,
  );
}

/**
 * The same first `up` with Pulumi's checkpoints kept (`PULUMI_SKIP_CHECKPOINTS=false`: a state write
 * after every step, as on PostgreSQL), in a backend and simulator of its own: what skipping them
 * with the journal beside the state (provider/catalog/run.ts) saves, measured in the same run.
 */
async function checkpointsKept(options: Options, cliBin: string, skipped: ToolRun): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "bench-catalog-checkpoints-"));
  const sim = await startSimulator({ port: 0, requestLogLimit: 10 * options.products + 10_000 });
  try {
    writeCatalog(join(root, "catalog"), options.products);
    mkdirSync(join(root, "state"));
    const tool = new Tool(root, sim, `file://${join(root, "state")}`, cliBin, options, undefined, { PULUMI_SKIP_CHECKPOINTS: "false" });
    const up = await tool.report(["up"]);
    expectClean("up with checkpoints", up.report, options.products);
    console.log(
      `   the same up keeping Pulumi's checkpoints (PULUMI_SKIP_CHECKPOINTS=false): ${sec(up.run.ms)}; skipping them ` +
        `(the default here) ${sec(skipped.ms)} = ${(skipped.ms / up.run.ms).toFixed(2)}x; CPU ${sec(up.run.cpuMs)} → ${sec(skipped.cpuMs)}; ` +
        `by process: ${cpuParts(up.run)}`,
    );
  } finally {
    await sim.close();
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * The plainest floor of the first `up` (issue 46): for each of the tool's stacks, at its size,
 * `pulumi stack init` then `pulumi up --yes --skip-preview` of a plain JavaScript program of
 * do-nothing dynamic resources with the same inputs — the bare CLI, no Automation API — `parallel`
 * stacks at a time, the same CLI, Node.js and file backend, Pulumi's defaults (a checkpoint after
 * every step).
 */
async function bareCliFloor(sizes: number[], parallel: number, tool: ToolRun): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "bench-catalog-bare-floor-"));
  try {
    const program = join(root, "program");
    mkdirSync(join(program, "node_modules", "@pulumi"), { recursive: true });
    symlinkSync(join(REPO, "node_modules", "@pulumi", "pulumi"), join(program, "node_modules", "@pulumi", "pulumi"));
    writeFileSync(join(program, "Pulumi.yaml"), stringify({ name: "bare-floor", runtime: "nodejs" }));
    writeFileSync(
      join(program, "index.js"),
      [
        'const pulumi = require("@pulumi/pulumi");',
        'const config = new pulumi.Config("bench");',
        'const count = config.requireNumber("count");',
        'const projectId = config.require("projectId");',
        "const doNothing = { async create(inputs) { return { id: String(inputs.slug), outs: inputs }; } };",
        "for (let i = 0; i < count; i++)",
        "  new pulumi.dynamic.Resource(doNothing, `product${i}`, {",
        "    projectId, title: `Product ${i}`, slug: `product-${i}`,",
        "    description: `Product ${i} of the scale bench, declared by one line of a program.`,",
        "  });",
        "",
      ].join("\n"),
    );
    mkdirSync(join(root, "state"));
    const { bin } = await pulumiCli();
    const env = {
      ...process.env,
      PATH: `${bin}:${dirname(process.execPath)}:${process.env.PATH ?? ""}`,
      PULUMI_BACKEND_URL: `file://${join(root, "state")}`,
      PULUMI_CONFIG_PASSPHRASE: "",
      PULUMI_HOME: join(root, "pulumi-home"),
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    };
    const pulumi = (args: string[]) =>
      new Promise<void>((resolve, reject) => {
        const child = spawn("pulumi", [...args, "--non-interactive"], { cwd: program, env, stdio: ["ignore", "ignore", "pipe"] });
        let stderr = "";
        child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
        child.on("close", (code) =>
          code === 0 ? resolve() : reject(new Error(`pulumi ${args.join(" ")} exited ${code}: ${stderr.slice(-2000)}`)),
        );
      });
    const queue = [...sizes.entries()];
    const started = performance.now();
    await Promise.all(
      Array.from({ length: Math.min(parallel, sizes.length) }, async () => {
        for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
          const [i, size] = next;
          const stack = `bare-${i}`;
          await pulumi(["stack", "init", stack]);
          writeFileSync(
            join(program, `Pulumi.${stack}.yaml`),
            stringify({ config: { "bench:count": String(size), "bench:projectId": DEFAULT_IDS.acmeWeb } }),
          );
          await pulumi(["up", "--yes", "--skip-preview", "--stack", stack]);
        }
      }),
    );
    const ms = performance.now() - started;
    console.log(
      `   bare-CLI floor: for each of the ${sizes.length} stacks, \`pulumi stack init\` then \`pulumi up --yes --skip-preview\` of a plain ` +
        `JavaScript program of do-nothing dynamic resources, ${Math.min(parallel, sizes.length)} at a time: ${sec(ms)}; ` +
        `the tool's up ${sec(tool.ms)} = ${(tool.ms / ms).toFixed(2)}x (target ≤ 0.75x)`,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * The floor of the first `up`: the tool's stacks at their sizes, each declaring do-nothing resources
 * (bench/scale-program's `floor` face) instead of products, in a file backend of their own, `parallel`
 * at a time as the tool runs them, each through the Automation API's `up` as the tool's are. Creating
 * the stacks and their config is not timed (the tool's wall clock includes its own), so the floor is
 * the engine's part alone: what no program of ours could go below with the same layout.
 */
async function upFloor(sizes: number[], parallel: number, tool: ToolRun): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "bench-catalog-floor-"));
  try {
    const program = join(root, "program");
    const source = join(REPO, "bench", "scale-program");
    cpSync(source, program, { recursive: true, filter: (path) => !path.slice(source.length).includes("node_modules") });
    // The dynamic-provider launcher runs ./node_modules/@pulumi/pulumi from the program folder.
    mkdirSync(join(program, "node_modules", "@pulumi"), { recursive: true });
    symlinkSync(join(REPO, "node_modules", "@pulumi", "pulumi"), join(program, "node_modules", "@pulumi", "pulumi"));
    mkdirSync(join(root, "state"));
    const { cmd, bin } = await pulumiCli();
    const ws = await LocalWorkspace.create({
      workDir: program,
      pulumiCommand: cmd,
      pulumiHome: join(root, "pulumi-home"),
      envVars: {
        PATH: `${bin}:${process.env.PATH ?? ""}`,
        PULUMI_BACKEND_URL: `file://${join(root, "state")}`,
        PULUMI_CONFIG_PASSPHRASE: "",
        PULUMI_SKIP_UPDATE_CHECK: "true",
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
        // The floor's program is TypeScript; compiling it is no part of the engine's cost.
        PULUMI_NODEJS_TRANSPILE_ONLY: "true",
      },
    });
    // Each worker creates its stacks and runs their up, as the tool's first up does; the config is
    // written into the stack's settings file, since the tool's stacks take theirs without a `pulumi` command.
    const queue = [...sizes.entries()];
    const started = performance.now();
    // The bench's own process runs the floor's stacks (the Automation API): it is the tree's root here.
    const watch = watchProcesses(process.pid);
    await Promise.all(
      Array.from({ length: Math.min(parallel, sizes.length) }, async () => {
        for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
          const [i, size] = next;
          // Run as the tool's stacks are: without the Automation API's reads of outputs and history after the up.
          const stack = withoutResultReads(await Stack.create(`floor-${i}`, ws));
          const settings = join(program, `Pulumi.floor-${i}.yaml`);
          const config = { "bench:face": "floor", "bench:count": String(size), "bench:projectId": DEFAULT_IDS.acmeWeb };
          writeFileSync(settings, stringify({ ...(parse(readFileSync(settings, "utf8")) as object), config }));
          await stack.up({ color: "never" });
        }
      }),
    );
    const ms = performance.now() - started;
    const floorProcesses = watch.stop();
    const cpu = cpuByRole(floorProcesses);
    const t = tool.cpuByRole;
    const pair = (floorMs: number, toolMs: number) => `${sec(floorMs)} / ${sec(toolMs)}`;
    console.log(
      `   up floor: ${sizes.length} stacks of do-nothing resources at the same sizes, ${Math.min(parallel, sizes.length)} at a time, ` +
        `file backend, each created and then up, as the tool's are: ${sec(ms)}; the tool's up ${sec(tool.ms)} = ${(tool.ms / ms).toFixed(2)}x (target ≤ 1.0x)`,
    );
    console.log(
      `   CPU, floor / tool: pulumi CLIs and language hosts ${pair(cpu.other, t.other)}; programs ${pair(cpu.program, t.program)}; ` +
        `providers ${pair(cpu.provider, t.provider)}; the Automation API's process (the bench / the tool) ${pair(cpu.cli, t.cli)}; ` +
        `the simulator – / ${sec(tool.simulatorCpuMs)}`,
    );
    console.log(`   CLIs and hosts by command, floor: ${otherByCommand(floorProcesses)}`);
    console.log(`   CLIs and hosts by command, tool: ${otherByCommand(tool.processes)}`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Nightly drift with the simulator limited to `rate` requests/s per token: the parallel stacks share one pacer (tool.ts). */
async function drift(tool: Tool, sim: Simulator, options: Options): Promise<ToolRun> {
  sim.clearRequests();
  sim.setRateLimit({ limit: options.rate, windowMs: 1000 });
  // The tool's own default for drift: one stack more than the CPUs (provider/catalog/cli.ts).
  const parallel = options.driftParallel ?? (options.parallel ?? availableParallelism()) + 1;
  let run: { run: ToolRun; report: RunReport };
  try {
    run = await tool.report(["drift"], [0], parallel);
  } finally {
    sim.setRateLimit(undefined);
  }
  expectClean("drift", run.report, 0);
  const requests = apiRequests(sim);
  // As bench/engine.ts's pacing section: the floor is the requests the limit let through ÷ the rate.
  const floorMs = ((requests.all - requests.refused) / options.rate) * 1000;
  console.log(
    `   drift (preview --refresh) at ${options.rate} requests/s, --parallel ${parallel}: ${sec(run.run.ms)}; ${requests.all} requests, ` +
      `${requests.refused} refused (${((100 * requests.refused) / requests.all).toFixed(1)} %, target ≤ 1 %); ` +
      `rate floor ${sec(floorMs)} → ${(run.run.ms / floorMs).toFixed(2)}x (target ≤ 1.05x); ` +
      `first to last request ${sec(requests.spanMs)} (${(requests.spanMs / floorMs).toFixed(2)}x); peak RSS ${mb(run.run.treeRss)}`,
  );
  const slack = requests.perSecond.filter((n) => n < options.rate * 0.9);
  const busy = requests.perSecond.filter((n) => n >= options.rate * 0.5).sort((a, b) => a - b);
  console.log(
    `   of its ${requests.perSecond.length} seconds with requests, ${slack.length} used less than 90 % of the limit ` +
      `(${slack.reduce((a, n) => a + options.rate - n, 0)} requests' worth unused); the pace in busy seconds ${busy[Math.floor(busy.length / 2)] ?? 0}/s (median); between the command's start and its first request ${sec(requests.firstMs - run.run.startedAt)}`,
  );
  return run.run;
}

async function postgres(options: Options, cliBin: string, file: FileFigures): Promise<void> {
  console.log(
    `\n   c) serviceapi-catalog at ${options.products} products, PostgreSQL backend (scripts/postgres.sh, loopback), beside the file backend`,
  );
  const root = mkdtempSync(join(tmpdir(), "bench-catalog-"));
  // A folder of its own directly under the temporary folder: the server runs as the `postgres` user, who cannot enter `root`.
  const pgDir = mkdtempSync(join(tmpdir(), "bench-catalog-pg-"));
  const url = execFileSync("bash", [join(REPO, "scripts", "postgres.sh"), "start", pgDir], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  }).trim();
  // A fresh simulator: the file backend's products exist in the other one.
  const sim = await startSimulator({ port: 0, requestLogLimit: 10 * options.products + 10_000 });
  try {
    writeCatalog(join(root, "catalog"), options.products);
    const tool = new Tool(root, sim, `${url}&table=catalog_bench`, cliBin, options);
    const up = await tool.report(["up"]);
    expectClean("up (PostgreSQL)", up.report, options.products);
    const preview = await tool.report(["preview"]);
    expectClean("no-change preview (PostgreSQL)", preview.report, 0);
    // The pull request and drift as b) runs them; drift here paces through the backend's database (the default).
    const prMs = options.skip.has("pr") ? undefined : await pullRequest(tool, sim, root, options);
    const drifted = options.skip.has("drift") ? undefined : await drift(tool, sim, options);
    console.log(`   ${"".padEnd(28)}${"PostgreSQL".padEnd(14)}${"file".padEnd(14)}ratio (target ≤ 1.3x for up and the no-change preview)`);
    for (const [label, pg, f] of [
      ["first up", up.run.ms, file.up.ms],
      ["no-change preview", preview.run.ms, file.preview?.ms],
      ["2-product PR (plan+preview)", prMs, file.prMs],
      ["drift", drifted?.ms, file.drift?.ms],
    ] as const) {
      if (pg === undefined) continue;
      const ratio = f === undefined ? "-" : `${(pg / f).toFixed(2)}x`;
      console.log(`   ${label.padEnd(28)}${sec(pg).padEnd(14)}${(f === undefined ? "-" : sec(f)).padEnd(14)}${ratio}`);
    }
    if (!options.skip.has("runners")) {
      await runners(
        sim,
        options,
        up.report.results.map((r) => r.stack),
        (dir, env) => new Tool(dir, sim, `${url}&table=catalog_bench`, cliBin, options, join(root, "catalog"), env),
      );
    }
  } finally {
    await sim.close();
    execFileSync("bash", [join(REPO, "scripts", "postgres.sh"), "stop", pgDir], { stdio: "ignore" });
    rmSync(pgDir, { recursive: true, force: true });
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * d) The jobs of a deploy matrix: `RUNNERS` runners at once, each `drift --stack` of its share of the
 * stacks, with the simulator limited to `--rate`; sharing on (the default with a PostgreSQL backend),
 * sharing off, and one runner of every stack, in the same run.
 */
async function runners(sim: Simulator, options: Options, stacks: string[], makeTool: (dir: string, env: Record<string, string>) => Tool) {
  const count = Math.min(RUNNERS, stacks.length);
  console.log(
    `\n   d) ${count} runners at once (separate work folders, PULUMI_HOMEs and processes, as matrix jobs), each drift --stack of ` +
      `${Math.floor(stacks.length / count)}–${Math.ceil(stacks.length / count)} of the ${stacks.length} stacks, at ${options.rate} requests/s, PostgreSQL backend`,
  );
  console.log(
    `   ${"".padEnd(30)}${"time".padEnd(10)}${"× floor".padEnd(10)}${"refused".padEnd(18)}${"failed".padEnd(8)}store transactions`,
  );
  const dirs: string[] = [];
  const measure = async (label: string, groups: string[][], env: Record<string, string>) => {
    sim.clearRequests();
    sim.setRateLimit({ limit: options.rate, windowMs: 1000 });
    const started = performance.now();
    let reports: RunReport[];
    try {
      reports = await Promise.all(
        groups.map(async (group) => {
          const dir = mkdtempSync(join(tmpdir(), "bench-catalog-runner-"));
          dirs.push(dir);
          const tool = makeTool(dir, env);
          return (await tool.report(["drift", "--stack", group.join(",")], [0])).report;
        }),
      );
    } finally {
      sim.setRateLimit(undefined);
    }
    const ms = performance.now() - started;
    const requests = apiRequests(sim);
    const floorMs = ((requests.all - requests.refused) / options.rate) * 1000;
    const failed = reports.reduce((n, r) => n + r.results.filter((x) => x.status !== "ok").length, 0);
    const transactions = reports.reduce((n, r) => n + (r.rateLimit?.transactions ?? 0), 0);
    const alone = reports.filter((r) => r.rateLimit?.alone).length;
    console.log(
      `   ${label.padEnd(30)}${sec(ms).padEnd(10)}${`${(ms / floorMs).toFixed(2)}x`.padEnd(10)}` +
        `${`${requests.refused} of ${requests.all} (${((100 * requests.refused) / requests.all).toFixed(1)} %)`.padEnd(22)}${String(failed).padEnd(8)}` +
        `${transactions > 0 ? `${transactions} (${(transactions / (requests.all || 1)).toFixed(2)} a request)` : "-"}${alone > 0 ? `; ${alone} runner(s) fell back to pacing alone` : ""}`,
    );
  };
  const groups = Array.from({ length: count }, (_, n) => stacks.filter((_, i) => i % count === n));
  try {
    await measure("one runner, every stack", [stacks], {});
    await measure(`${count} runners, sharing (default)`, groups, {});
    await measure(`${count} runners, each alone (off)`, groups, { SERVICEAPI_RATE_LIMIT_STORE: "off" });
  } finally {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

/** e) The same commands at each `--growth` size, each in a backend and simulator of its own: time per product, against the smallest. */
async function growth(options: Options, cliBin: string, file?: FileFigures): Promise<void> {
  // b) ran the same three commands at --products in this run: its figures are that size's row, not a second run of it.
  const fromB = file?.preview !== undefined && file.drift !== undefined && options.growth.includes(options.products);
  console.log(
    `\n   e) growth: first up, no-change preview and drift (at ${options.rate} requests/s) at ${options.growth.join(", ")} products, ` +
      `file backend, --stack-size ${options.stackSize}; ms per product, and against the smallest size (1.00x: linear)` +
      (fromB ? `; at ${options.products}, b)'s runs` : ""),
  );
  const rows: { size: number; up: number; preview: number; drift: number }[] = [];
  for (const size of options.growth) {
    if (fromB && size === options.products) {
      rows.push({ size, up: file.up.ms / size, preview: file.preview!.ms / size, drift: file.drift!.ms / size });
      continue;
    }
    const root = mkdtempSync(join(tmpdir(), "bench-catalog-growth-"));
    const sim = await startSimulator({ port: 0, requestLogLimit: 10 * size + 10_000 });
    try {
      writeCatalog(join(root, "catalog"), size);
      mkdirSync(join(root, "state"));
      const tool = new Tool(root, sim, `file://${join(root, "state")}`, cliBin, options);
      const up = await tool.report(["up"]);
      expectClean(`up (${size})`, up.report, size);
      const preview = await tool.report(["preview"]);
      expectClean(`preview (${size})`, preview.report, 0);
      sim.setRateLimit({ limit: options.rate, windowMs: 1000 });
      const drifted = await tool.report(["drift"], [0], options.driftParallel ?? (options.parallel ?? availableParallelism()) + 1);
      sim.setRateLimit(undefined);
      expectClean(`drift (${size})`, drifted.report, 0);
      rows.push({ size, up: up.run.ms / size, preview: preview.run.ms / size, drift: drifted.run.ms / size });
    } finally {
      await sim.close();
      rmSync(root, { recursive: true, force: true });
    }
  }
  const first = rows[0]!;
  console.log(`   ${"products".padEnd(10)}${"up".padEnd(20)}${"no-change preview".padEnd(20)}drift`);
  for (const row of rows) {
    const cell = (ms: number, base: number) => `${ms.toFixed(1)} ms (${(ms / base).toFixed(2)}x)`.padEnd(20);
    console.log(
      `   ${String(row.size).padEnd(10)}${cell(row.up, first.up)}${cell(row.preview, first.preview)}${cell(row.drift, first.drift).trimEnd()}`,
    );
  }
}

// --- the command line -----------------------------------------------------------------------------

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      products: { type: "string" },
      anchor: { type: "string" },
      "stack-size": { type: "string" },
      parallel: { type: "string" },
      "drift-parallel": { type: "string" },
      rate: { type: "string", default: "20" },
      skip: { type: "string", default: "" },
      quick: { type: "boolean", default: false },
      growth: { type: "string", default: "" },
      "growth-only": { type: "boolean", default: false },
      sites: { type: "string" },
      tasks: { type: "string" },
    },
  });
  const whole = (name: string, text: string | undefined, fallback: number, min = 1): number => {
    if (text === undefined) return fallback;
    const n = /^\d+$/.test(text) ? Number(text) : Number.NaN;
    if (!(n >= min)) throw new Error(`--${name} takes a whole number of at least ${min} (got ${text})`);
    return n;
  };
  const skip = values.skip.split(",").filter(Boolean);
  const unknown = skip.filter((s) => !(SECTIONS as readonly string[]).includes(s));
  if (unknown.length > 0) throw new Error(`--skip takes ${SECTIONS.join(", ")} (got ${unknown.join(", ")})`);
  // --quick: small enough to finish in a few minutes, with stacks small enough that it still has several.
  const quick = values.quick;
  return {
    products: whole("products", values.products, quick ? 400 : 10_000),
    anchor: whole("anchor", values.anchor, quick ? 200 : 3_000, 0),
    stackSize: whole("stack-size", values["stack-size"], quick ? 100 : 250),
    parallel: values.parallel === undefined ? undefined : whole("parallel", values.parallel, 0),
    driftParallel: values["drift-parallel"] === undefined ? undefined : whole("drift-parallel", values["drift-parallel"], 0),
    rate: whole("rate", values.rate, 20),
    skip: new Set(skip as Section[]),
    growth: values.growth
      .split(",")
      .filter(Boolean)
      .map((n) => whole("growth", n, 0))
      .sort((a, b) => a - b),
    growthOnly: values["growth-only"],
    sites: whole("sites", values.sites, quick ? 100 : 1_000, 0),
    tasks: whole("tasks", values.tasks, quick ? 50 : 500, 0),
  };
}

/** The whole bench; `title` heads it (bench/engine.ts runs it as a section of its own, at a small size). */
export async function catalogBench(
  argv: string[],
  title = `serviceapi-catalog figures (real CLI, simulator on loopback, Node ${process.version})`,
): Promise<void> {
  const options = parseOptions(argv);
  const started = performance.now();
  const { bin } = await pulumiCli();
  console.log(title);
  if (options.growthOnly && options.growth.length === 0) throw new Error("--growth-only needs --growth N1,N2,…");
  if (!options.growthOnly) {
    const anchorRun = options.anchor > 0 && !options.skip.has("anchor") ? await anchor(options) : undefined;
    const file = await fileBackend(options, bin, anchorRun);
    if (!options.skip.has("kinds")) await kinds(options, bin, file);
    if (!options.skip.has("postgres")) await postgres(options, bin, file);
    if (options.growth.length > 0) await growth(options, bin, file);
  } else {
    await growth(options, bin);
  }
  console.log(`\n   bench:catalog took ${sec(performance.now() - started)}`);
}

if (require.main === module) {
  catalogBench(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
