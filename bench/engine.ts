/**
 * `npm run bench` (second part): the Pulumi resources under the real CLI against the simulator.
 *  1. API requests per operation for a stack of 20 products and 10 sites: up, a no-change preview,
 *     preview --refresh, destroy — and the `__provider` bytes each resource stores.
 *  2. Pacing under a steady rate limit: `pulumi refresh` of 100 products at 20 requests/s and
 *     `pulumi up` of 40 products at 4 requests/s — the share of requests answered 429 and the time
 *     the API calls took against the least the limit allows (requests ÷ rate), beside the same
 *     command without a limit.
 *  3. The Pulumi YAML example's requests per operation through the plugin, and a TypeScript catalog's
 *     through the plugin's generated SDK.
 *  4. Scale: 200 and 1,000 products (`--sizes=200,1000,3000` adds 3,000) through every face beside a
 *     do-nothing floor, snapshot writes, and the PostgreSQL backend (`--postgres-sizes=`; none: skip).
 *     In `bench/scale.ts`.
 *  5. The catalog tool (`serviceapi-catalog`) at 120 products in 4 stacks, every part of `bench/catalog.ts`
 *     at a size CI affords (about 2 minutes); `npm run bench:catalog` is the 10,000-product run.
 * Figures are printed, never asserted.
 */
import { DEFAULT_IDS, startSimulator, type Simulator } from "pulumi-serviceapi-simulator";
import { EngineStack, REPO, catalog, type ProgramSpec } from "../scripts/engine/driver";
import { join } from "node:path";
import { printRequestsPerOperation } from "./requests";
import { catalogBench } from "./catalog";
import { FACES, parallelism, scale, type Face } from "./scale";

const project = DEFAULT_IDS.acmeWeb;

async function requestsPerOperation(sim: Simulator): Promise<void> {
  const sites = sim.seed.sites.filter((s) => s.projectId === project).slice(0, 10);
  const spec: ProgramSpec = {
    products: Object.fromEntries(
      Array.from({ length: 20 }, (_, i) => [
        `product${i}`,
        {
          projectId: project,
          title: `Product ${i}`,
          slug: `product-${i}`,
          ...(i % 2 === 0 && { status: "active" }),
        },
      ]),
    ),
    sites: Object.fromEntries(sites.map((s, i) => [`site${i}`, { projectId: project, siteId: s.id, name: `Renamed ${i}` }])),
  };
  const engine = await EngineStack.create(sim);
  try {
    await engine.setSpec(spec);
    console.log("\n1. API requests per operation — 20 products (10 with a status), 10 sites of a 250-site project");
    const bytes = new Map<string, number[]>();
    let stateBytes = 0;
    await printRequestsPerOperation(engine, sim, async () => {
      for (const type of ["Product", "Site"] as const) {
        for (const r of await engine.resources(type)) {
          const list = bytes.get(type) ?? [];
          list.push(Buffer.byteLength(String(r.outputs.__provider)));
          bytes.set(type, list);
        }
      }
      stateBytes = Buffer.byteLength(engine.stateFileText());
    });
    for (const [type, list] of bytes) {
      console.log(`   __provider: ${type} ${Math.max(...list)} bytes each (stored twice: inputs and outputs)`);
    }
    console.log(`   state file for 30 resources: ${stateBytes} bytes`);
  } finally {
    await engine.dispose();
  }
}

interface RunFigures {
  wallMs: number;
  requests: number;
  refused: number;
  /** From the first API request to the last, as the simulator received them. */
  apiMs: number;
}

/** One CLI command; the harness clears the simulator's request log before each, so the log is this run's. */
async function measure(sim: Simulator, command: () => Promise<unknown>): Promise<RunFigures> {
  const start = performance.now();
  await command();
  const wallMs = performance.now() - start;
  const log = sim.requests().filter((r) => r.operation !== null);
  const times = log.map((r) => Date.parse(r.time));
  return {
    wallMs,
    requests: log.length,
    refused: log.filter((r) => r.status === 429).length,
    apiMs: times.length > 1 ? Math.max(...times) - Math.min(...times) : 0,
  };
}

function pacingRows(label: string, perSecond: number, limited: RunFigures, baseline: RunFigures): void {
  const work = limited.requests - limited.refused;
  const floorMs = (work / perSecond) * 1000;
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const pct = (n: number, of: number) => `${n} (${((100 * n) / of).toFixed(1)} %)`;
  console.log(`\n   ${label}`);
  console.log("                        requests  answered 429   API time   limit's floor   API time/floor   wall clock");
  console.log(
    `   limited             ${String(limited.requests).padStart(8)}  ${pct(limited.refused, limited.requests).padEnd(13)}` +
      `${s(limited.apiMs).padStart(9)}   ${s(floorMs).padStart(13)}   ${`${(limited.apiMs / floorMs).toFixed(2)}x`.padStart(14)}   ${s(limited.wallMs).padStart(10)}`,
  );
  console.log(
    `   baseline, no limit  ${String(baseline.requests).padStart(8)}  ${pct(baseline.refused, baseline.requests).padEnd(13)}` +
      `${s(baseline.apiMs).padStart(9)}   ${"-".padStart(13)}   ${"-".padStart(14)}   ${s(baseline.wallMs).padStart(10)}`,
  );
  console.log(
    `   the limit added ${s(limited.wallMs - baseline.wallMs)} of wall clock; its floor is ${work} requests ÷ ${perSecond}/s = ${s(floorMs)}`,
  );
}

async function pacing(): Promise<void> {
  console.log("\n2. Pacing under a steady rate limit (simulator fixed window per token; the CLI's default parallelism)");
  console.log("   goal: at most 10 % of requests answered 429, API time at most 1.15x the limit's floor");
  const sim = await startSimulator({ port: 0 });
  try {
    const refreshStack = await EngineStack.create(sim);
    try {
      await refreshStack.setSpec(catalog(project, 100, "refreshed"));
      await refreshStack.up();
      const baseline = await measure(sim, () => refreshStack.refresh());
      sim.setRateLimit({ limit: 20, windowMs: 1000 });
      const limited = await measure(sim, () => refreshStack.refresh());
      sim.setRateLimit(undefined);
      pacingRows("pulumi refresh of 100 products, limit 20 requests/s", 20, limited, baseline);
      await refreshStack.destroy();
    } finally {
      await refreshStack.dispose();
    }

    const upRuns: RunFigures[] = [];
    for (const limit of [undefined, { limit: 4, windowMs: 1000 }]) {
      const upStack = await EngineStack.create(sim);
      try {
        await upStack.setSpec(catalog(project, 40, limit ? "limited" : "free"));
        sim.setRateLimit(limit);
        upRuns.push(await measure(sim, () => upStack.up()));
        sim.setRateLimit(undefined);
        await upStack.destroy();
      } finally {
        await upStack.dispose();
      }
    }
    pacingRows("pulumi up of 40 products, limit 4 requests/s", 4, upRuns[1]!, upRuns[0]!);
  } finally {
    await sim.close();
  }
}

async function yamlExampleRequests(sim: Simulator): Promise<void> {
  const engine = await EngineStack.create(sim, { program: join(REPO, "examples", "catalog-pulumi-yaml"), plugin: true });
  try {
    console.log(
      "\n3. The Pulumi YAML example through the plugin (examples/catalog-pulumi-yaml: 3 products, 1 site rename, 2 lookups), API requests per operation",
    );
    await printRequestsPerOperation(engine, sim);
  } finally {
    await engine.dispose();
  }
}

/** The same kind of catalog from TypeScript through the plugin's generated SDK (the typed face's engine-test program). */
async function typedSdkRequests(sim: Simulator): Promise<void> {
  const engine = await EngineStack.create(sim, { program: join(REPO, "test", "engine", "plugin-ts-program"), plugin: true });
  try {
    await engine.stack.setConfig("catalog:projectName", { value: "Acme Web" });
    const products = {
      pro: { title: "Pro plan", slug: "pro", status: "active" },
      starter: { title: "Starter plan" },
      legacy: { title: "Legacy plan" },
    };
    await engine.stack.setConfig("catalog:products", { value: JSON.stringify(products) });
    console.log(
      "\n   The plugin from TypeScript through its SDK (@pulumi-serviceapi/serviceapi; test/engine/plugin-ts-program: 3 products, 1 lookup)",
    );
    await printRequestsPerOperation(engine, sim);
  } finally {
    await engine.dispose();
  }
}

/** A `--name=1,2,3` list of sizes from the command line, or the default. */
function sizes(name: string, fallback: number[]): number[] {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  if (arg === undefined) return fallback;
  const list = arg
    .slice(name.length + 3)
    .split(",")
    .filter(Boolean)
    .map(Number);
  if (list.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`--${name} takes whole numbers separated by commas (got ${arg})`);
  return list;
}

/** `--faces=floor,dynamic,plugin-ts,plugin-yaml` (the default: all). */
function faces(): Face[] {
  const arg = process.argv.find((a) => a.startsWith("--faces="));
  if (arg === undefined) return [...FACES];
  const list = arg.slice("--faces=".length).split(",");
  const unknown = list.filter((f) => !(FACES as readonly string[]).includes(f));
  if (unknown.length > 0) throw new Error(`--faces takes ${FACES.join(", ")} (got ${unknown.join(", ")})`);
  return list as Face[];
}

/**
 * `node dist/bench/engine.js [section] [--sizes=200,1000] [--postgres-sizes=1000] [--catalog-products=120] [--catalog-stack-size=30] [--faces=…]`: a section
 * (`pacing`, `plugin`, `scale`, `catalog`, or `parallel`: the scale section's `--parallel` part) runs alone;
 * none runs every section.
 */
async function main(): Promise<void> {
  const only = process.argv.slice(2).find((a) => !a.startsWith("--"));
  console.log("Pulumi engine figures (real CLI, simulator on loopback)");
  const sim = await startSimulator({ port: 0 });
  try {
    if (only === undefined) await requestsPerOperation(sim);
    if (only === undefined || only === "pacing") await pacing();
    if (only === undefined || only === "plugin") {
      await yamlExampleRequests(sim);
      await typedSdkRequests(sim);
    }
  } finally {
    await sim.close();
  }
  if (only === undefined || only === "scale")
    await scale({ sizes: sizes("sizes", [200, 1000]), postgresSizes: sizes("postgres-sizes", [1000]), faces: faces() });
  if (only === undefined || only === "catalog") {
    // CI's smoke run passes smaller sizes (.ci/run): few stacks, as each costs its processes.
    const products = sizes("catalog-products", [120])[0]!;
    const stackSize = sizes("catalog-stack-size", [Math.max(1, Math.floor(products / 4))])[0]!;
    await catalogBench(
      [
        ...["--products", String(products), "--anchor", String(Math.floor(products / 2)), "--stack-size", String(stackSize)],
        // f)'s sites and tasks, in the proportions of issue 44's 10,000 / 1,000 / 500.
        ...["--sites", String(Math.max(3, Math.floor(products / 10))), "--tasks", String(Math.max(3, Math.floor(products / 20)))],
      ],
      `\n5. The catalog tool (serviceapi-catalog) at ${products} products in stacks of at most ${stackSize}: bench/catalog.ts at a small size (npm run bench:catalog: 10,000)`,
    );
  }
  if (only === "parallel") await parallelism(Math.min(...sizes("sizes", [200])));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
