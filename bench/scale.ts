/**
 * The engine bench's scale section: N products (title, slug, description) through every face of the
 * package beside a do-nothing dynamic provider (the floor), with the real CLI, one fresh simulator
 * per stack. For each: `pulumi up`, a no-change `pulumi preview`, `pulumi preview --refresh`,
 * `pulumi destroy` — wall clock, ms per product, ratio to the floor — the state's bytes per product
 * (and what is in them), and the peak RSS of the provider and program processes of that run.
 *
 * Then why `up` and `destroy` grow faster than N: each run again with `PULUMI_SKIP_CHECKPOINTS`,
 * beside the bytes the CLI wrote (the DIY backends write the whole snapshot at every step). Then the
 * PostgreSQL backend (scripts/postgres.sh) beside the file backend: `up` and `preview --refresh`.
 *
 * Commands run as a pipeline runs them (`pulumi up --yes --skip-preview`, `--expect-no-changes` on
 * the previews, which makes a preview that would change something fail the bench). Printed, never asserted.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { DEFAULT_IDS, startSimulator } from "pulumi-serviceapi-simulator";
import { EngineStack, REPO } from "../scripts/engine/driver";
import { watchProcesses, type ProcessFigures } from "./process-watch";

export const FACES = ["floor", "dynamic", "plugin-ts", "plugin-yaml"] as const;
export type Face = (typeof FACES)[number];
type Op = "up" | "preview" | "refresh" | "destroy";

const LABEL: Record<Face, string> = {
  floor: "do-nothing floor (TS)",
  dynamic: "dynamic Product (TS)",
  "plugin-ts": "plugin SDK (TS)",
  "plugin-yaml": "plugin (Pulumi YAML)",
};
const ARGS: Record<Op, string[]> = {
  up: ["up", "--yes", "--skip-preview"],
  preview: ["preview", "--expect-no-changes"],
  refresh: ["preview", "--refresh", "--expect-no-changes"],
  destroy: ["destroy", "--yes", "--skip-preview"],
};
const TYPE: Record<Face, string> = {
  floor: "pulumi-nodejs:dynamic/bench:Noop",
  dynamic: "pulumi-nodejs:dynamic/serviceapi:Product",
  "plugin-ts": "serviceapi:index:Product",
  "plugin-yaml": "serviceapi:index:Product",
};
const project = DEFAULT_IDS.acmeWeb;

export interface OpFigures {
  ms: number;
  /** Peak RSS of the largest provider process of the run (the dynamic-provider host or the plugin). */
  providerRss: number;
  programRss: number;
  cliCpuMs: number;
  programCpuMs: number;
  /** Summed over the run's provider processes. */
  providerCpuMs: number;
  /** Bytes the CLI handed to write(2): snapshot writes, and gRPC and terminal output. */
  cliWritten: number;
}

interface StateFigures {
  bytes: number;
  perProduct: number;
  /** One product entry's bytes, split: the provider's inputs and outputs (`__provider` apart), and the engine's rest. */
  parts: { inputs: number; outputs: number; provider: number; engine: number };
}

export interface StackRun {
  ops: Partial<Record<Op, OpFigures>>;
  state?: StateFigures;
}

export interface Backend {
  name: "file" | "postgres";
  /** postgres: the server's URL; each stack gets its own table. */
  url?: string;
}

function yamlProgram(count: number): string {
  const resources: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) resources[`product${i}`] = { type: "serviceapi:index:Product", properties: productArgs(i) };
  return stringify({ name: "bench-scale-yaml", runtime: "yaml", resources });
}

/** The same product as bench/scale-program declares. */
function productArgs(i: number) {
  return {
    projectId: project,
    title: `Product ${i}`,
    slug: `product-${i}`,
    description: `Product ${i} of the scale bench, declared by one line of a program.`,
  };
}

interface RunOptions {
  env?: Record<string, string>;
  /** `--parallel` for `up` (default: the CLI's own, 4 × the cores). */
  parallel?: number;
  /** Every create waits this long on the simulator before it is processed: a service's latency. */
  createLatencyMs?: number;
}

export async function runStack(face: Face, count: number, backend: Backend, ops: Op[], options: RunOptions = {}): Promise<StackRun> {
  const { env = {}, parallel, createLatencyMs } = options;
  const sim = await startSimulator({ port: 0 });
  if (createLatencyMs !== undefined)
    sim.addFault({ operation: "products.create", kind: "delay", delayMs: createLatencyMs, times: 1_000_000 });
  const table = `bench_${face.replace("-", "_")}_${count}_${Date.now()}`;
  const engine = await EngineStack.create(sim, {
    ...(face === "plugin-yaml" ? { yaml: yamlProgram(count) } : { program: join(REPO, "bench", "scale-program") }),
    plugin: face.startsWith("plugin"),
    config:
      face === "plugin-yaml" ? {} : { "bench:face": face.replace("-ts", ""), "bench:count": String(count), "bench:projectId": project },
    env: { ...env, ...(backend.name === "postgres" && { PULUMI_BACKEND_URL: `${backend.url!}&table=${table}` }) },
  });
  const run: StackRun = { ops: {} };
  try {
    for (const op of ops) {
      run.ops[op] = await timed(engine, op, op === "up" && parallel !== undefined ? ["--parallel", String(parallel)] : []);
      if (op === "up") {
        const products = await productsInState(engine, face);
        if (products.length !== count) throw new Error(`${face}: ${count} products declared, ${products.length} in the state after up`);
        if (backend.name === "file") run.state = stateFigures(engine.stateFileText(), TYPE[face], count);
      }
    }
    if (ops.includes("destroy") && (await productsInState(engine, face)).length !== 0)
      throw new Error(`${face}: products left after destroy`);
  } finally {
    await engine.dispose();
    await sim.close();
  }
  return run;
}

export async function timed(engine: EngineStack, op: Op, extra: string[] = []): Promise<OpFigures> {
  const start = performance.now();
  const cli = engine.spawnCli([...ARGS[op], ...extra]);
  const watch = watchProcesses(cli.child.pid!);
  const code = await cli.exited;
  const ms = performance.now() - start;
  const processes = watch.stop();
  if (code !== 0) throw new Error(`pulumi ${ARGS[op].join(" ")} exited ${code}:\n${cli.output().slice(-3000)}`);
  const of = (role: ProcessFigures["role"], key: "peakRss" | "cpuMs" | "written") =>
    processes.filter((p) => p.role === role).map((p) => p[key]);
  const max = (role: ProcessFigures["role"], key: "peakRss" | "cpuMs" | "written") => Math.max(0, ...of(role, key));
  return {
    ms,
    providerRss: max("provider", "peakRss"),
    programRss: max("program", "peakRss"),
    cliCpuMs: max("cli", "cpuMs"),
    programCpuMs: of("program", "cpuMs").reduce((a, b) => a + b, 0),
    providerCpuMs: of("provider", "cpuMs").reduce((a, b) => a + b, 0),
    cliWritten: max("cli", "written"),
  };
}

interface Entry {
  type: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
}

async function productsInState(engine: EngineStack, face: Face): Promise<Entry[]> {
  return ((await engine.deployment()).resources ?? []).filter((r) => r.type === TYPE[face]) as Entry[];
}

/** Bytes as the file backend stores them (JSON, 4-space indent), the product entries' share split by part. */
export function stateFigures(text: string, type: string, count: number): StateFigures {
  const latest = (JSON.parse(text) as { checkpoint: { latest: { resources: Entry[] } } }).checkpoint.latest;
  const products = latest.resources.filter((r) => r.type === type);
  const size = (value: unknown) => Buffer.byteLength(JSON.stringify(value, null, 4));
  let inputs = 0;
  let outputs = 0;
  let provider = 0;
  let whole = 0;
  for (const r of products) {
    const { __provider: pi, ...ins } = r.inputs ?? {};
    const { __provider: po, ...outs } = r.outputs ?? {};
    inputs += size(ins);
    outputs += size(outs);
    provider += (pi === undefined ? 0 : size(pi)) + (po === undefined ? 0 : size(po));
    whole += size(r);
  }
  const per = (n: number) => Math.round(n / count);
  return {
    bytes: Buffer.byteLength(text),
    perProduct: per(Buffer.byteLength(text)),
    parts: { inputs: per(inputs), outputs: per(outputs), provider: per(provider), engine: per(whole - inputs - outputs - provider) },
  };
}

// --- printing ---------------------------------------------------------------------------------------

export const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
export const mb = (bytes: number) =>
  bytes < 2 ** 20 ? `${(bytes / 1024).toFixed(0)} KiB` : `${(bytes / 2 ** 20).toFixed(bytes < 10 * 2 ** 20 ? 1 : 0)} MiB`;

function cell(op: OpFigures | undefined, floor: OpFigures | undefined, count: number): string {
  if (!op) return "-".padEnd(27);
  const ratio = floor ? ` ${(op.ms / floor.ms).toFixed(2)}x` : "";
  return `${sec(op.ms)} ${(op.ms / count).toFixed(1)} ms/p${ratio}`.padEnd(27);
}

function printTable(title: string, runs: Map<Face, StackRun>, count: number, ops: Op[]): void {
  console.log(`\n   ${title}`);
  const heads: Record<Op, string> = { up: "up", preview: "no-change preview", refresh: "preview --refresh", destroy: "destroy" };
  console.log(`   ${"face".padEnd(24)}${ops.map((op) => heads[op].padEnd(27)).join("")}bytes/product  provider / program peak RSS`);
  const floor = runs.get("floor");
  for (const [face, run] of runs) {
    const rss = Object.values(run.ops);
    const state = run.state ? String(run.state.perProduct) : "-";
    console.log(
      `   ${LABEL[face].padEnd(24)}${ops.map((op) => cell(run.ops[op], floor?.ops[op], count)).join("")}${state.padEnd(15)}` +
        `${mb(Math.max(...rss.map((o) => o.providerRss)))} / ${mb(Math.max(...rss.map((o) => o.programRss)))}`,
    );
  }
}

export interface ScaleOptions {
  sizes: number[];
  postgresSizes: number[];
  /** Which faces to run (default: all); without the floor, no ratios and no snapshot-write comparison. */
  faces?: readonly Face[];
}

export async function scale(options: ScaleOptions): Promise<void> {
  console.log(
    `\n4. Scale: N products (title, slug, description) per face, beside a do-nothing dynamic provider (the floor); ` +
      `file backend, ${navigatorCores()} cores, the CLI's default --parallel; a fresh simulator per stack`,
  );
  console.log("   each cell: wall clock, ms per product, ratio to the floor of the same N in this run");
  const faces = options.faces ?? FACES;
  const all = new Map<number, Map<Face, StackRun>>();
  for (const count of options.sizes) {
    const runs = new Map<Face, StackRun>();
    for (const face of faces) runs.set(face, await runStack(face, count, { name: "file" }, ["up", "preview", "refresh", "destroy"]));
    all.set(count, runs);
    printTable(`N = ${count}, file backend`, runs, count, ["up", "preview", "refresh", "destroy"]);
  }
  printBreakdown(all);
  printCpu(all);
  printGrowth(all, faces);
  if (faces.includes("floor") && faces.includes("dynamic")) {
    await checkpoints(options.sizes, all);
    await parallelism(Math.min(200, ...options.sizes));
  }
  if (options.postgresSizes.length > 0) await postgres(options.postgresSizes, all, faces);
}

/**
 * What `--parallel` buys when the service takes time to answer (the simulator answers in about a
 * millisecond; a real one, over a network, in tens or hundreds): `up` of the dynamic face with every
 * create held 100 ms, at several `--parallel`, beside the least that latency allows (N × 100 ms ÷ parallel).
 */
export async function parallelism(count: number, latencyMs = 100, values = [2, 8, 32]): Promise<void> {
  console.log(
    `\n   --parallel against a service's latency: up of ${count} products (dynamic face), every create held ${latencyMs} ms ` +
      `(the CLI's default on this machine: ${4 * navigatorCores()})`,
  );
  console.log(`   ${"--parallel".padEnd(12)}${"up".padEnd(10)}${"least the latency allows".padEnd(28)}CLI CPU`);
  for (const parallel of values) {
    const run = await runStack("dynamic", count, { name: "file" }, ["up", "destroy"], { parallel, createLatencyMs: latencyMs });
    const up = run.ops.up!;
    console.log(
      `   ${String(parallel).padEnd(12)}${sec(up.ms).padEnd(10)}${sec((count * latencyMs) / parallel).padEnd(28)}${sec(up.cliCpuMs)}`,
    );
  }
}

function navigatorCores(): number {
  return Number(execFileSync("nproc", { encoding: "utf8" }).trim());
}

function printBreakdown(all: Map<number, Map<Face, StackRun>>): void {
  const [count, runs] = [...all].at(-1)!;
  console.log(`\n   What one product's state entry holds (N = ${count}, bytes as the file backend stores them)`);
  console.log(`   ${"face".padEnd(24)}entry  inputs  outputs  __provider (in and out)  engine's (urn, parent, provider, deps, …)`);
  for (const [face, run] of runs) {
    const p = run.state!.parts;
    const entry = p.inputs + p.outputs + p.provider + p.engine;
    console.log(
      `   ${LABEL[face].padEnd(24)}${String(entry).padStart(5)}  ${String(p.inputs).padStart(6)}  ${String(p.outputs).padStart(7)}  ` +
        `${String(p.provider).padStart(23)}  ${String(p.engine).padStart(5)}`,
    );
  }
}

/** Where a run's time goes: CPU seconds of each process, at the largest N. */
function printCpu(all: Map<number, Map<Face, StackRun>>): void {
  const [count, runs] = [...all].at(-1)!;
  console.log(`\n   CPU seconds by process (N = ${count}): program / provider / CLI`);
  console.log(`   ${"face".padEnd(24)}${(["up", "preview", "refresh", "destroy"] as const).map((op) => op.padEnd(22)).join("")}`);
  for (const [face, run] of runs) {
    const cpu = (o: OpFigures | undefined) =>
      o ? `${(o.programCpuMs / 1000).toFixed(1)} / ${(o.providerCpuMs / 1000).toFixed(1)} / ${(o.cliCpuMs / 1000).toFixed(1)}` : "-";
    console.log(
      `   ${LABEL[face].padEnd(24)}${(["up", "preview", "refresh", "destroy"] as const).map((op) => cpu(run.ops[op]).padEnd(22)).join("")}`,
    );
  }
}

function printGrowth(all: Map<number, Map<Face, StackRun>>, faces: readonly Face[]): void {
  const sizes = [...all.keys()];
  if (sizes.length < 2) return;
  const [small, large] = [sizes[0]!, sizes.at(-1)!];
  console.log(`\n   Growth from N = ${small} to N = ${large} (x${large / small} products): per-product ms, small → large`);
  for (const face of faces) {
    const a = all.get(small)!.get(face)!.ops;
    const b = all.get(large)!.get(face)!.ops;
    const per = (op: Op) => `${(a[op]!.ms / small).toFixed(1)} → ${(b[op]!.ms / large).toFixed(1)}`;
    console.log(
      `   ${LABEL[face].padEnd(24)}up ${per("up")}   preview ${per("preview")}   refresh ${per("refresh")}   destroy ${per("destroy")}`,
    );
  }
}

/** The same `up` and `destroy` without a snapshot write per step: what the super-linear part is. */
async function checkpoints(sizes: number[], all: Map<number, Map<Face, StackRun>>): Promise<void> {
  console.log("\n   Snapshot writes: the same up and destroy with PULUMI_SKIP_CHECKPOINTS=true (state written once, at the end)");
  console.log(
    `   ${"N  face".padEnd(30)}${"up: per step / skipped".padEnd(30)}${"destroy: per step / skipped".padEnd(30)}` +
      "CLI wrote during up (≈ full snapshots)   CLI CPU during up, per step / skipped",
  );
  for (const count of sizes) {
    for (const face of ["floor", "dynamic"] as const) {
      const skipped = await runStack(face, count, { name: "file" }, ["up", "destroy"], {
        env: { PULUMI_SKIP_CHECKPOINTS: "true" },
      });
      const full = all.get(count)!.get(face)!;
      const snapshots = full.ops.up!.cliWritten / full.state!.bytes;
      console.log(
        `   ${`${count}  ${LABEL[face]}`.padEnd(30)}${`${sec(full.ops.up!.ms)} / ${sec(skipped.ops.up!.ms)}`.padEnd(30)}` +
          `${`${sec(full.ops.destroy!.ms)} / ${sec(skipped.ops.destroy!.ms)}`.padEnd(30)}` +
          `${`${mb(full.ops.up!.cliWritten)} (${snapshots.toFixed(0)} × the final ${mb(full.state!.bytes)})`.padEnd(41)}` +
          `${sec(full.ops.up!.cliCpuMs)} / ${sec(skipped.ops.up!.cliCpuMs)}`,
      );
    }
  }
}

/** `up` and `preview --refresh` with the state in PostgreSQL, beside the file backend's figures (no destroy: it costs what `up` does, and the cluster goes at the end). */
async function postgres(sizes: number[], all: Map<number, Map<Face, StackRun>>, faces: readonly Face[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "bench-postgres-"));
  const url = execFileSync("bash", [join(REPO, "scripts", "postgres.sh"), "start", dir], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  }).trim();
  try {
    for (const count of sizes) {
      const runs = new Map<Face, StackRun>();
      for (const face of faces) runs.set(face, await runStack(face, count, { name: "postgres", url }, ["up", "refresh"]));
      printTable(`N = ${count}, PostgreSQL backend (scripts/postgres.sh, loopback)`, runs, count, ["up", "refresh"]);
      const file = all.get(count);
      if (file) {
        console.log(
          `   vs the file backend (time ratio): ${faces
            .map((face) => {
              const ratio = (op: Op) => (runs.get(face)!.ops[op]!.ms / file.get(face)!.ops[op]!.ms).toFixed(2);
              return `${LABEL[face]} up ${ratio("up")}x, refresh ${ratio("refresh")}x`;
            })
            .join("; ")}`,
        );
      }
    }
  } finally {
    execFileSync("bash", [join(REPO, "scripts", "postgres.sh"), "stop", dir], { stdio: "ignore" });
    rmSync(dir, { recursive: true, force: true });
  }
}
