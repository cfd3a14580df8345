/**
 * `npm run bench` (second part): the Pulumi resources under the real CLI against the simulator.
 *  1. API requests per operation for a stack of 20 products and 10 sites: up, a no-change preview,
 *     preview --refresh, destroy — and the `__provider` bytes each resource stores.
 *  2. `pulumi up` of 50 products, beside the same number of do-nothing dynamic resources measured
 *     in the same run (the baseline: engine, program and provider-process cost without our work).
 * Figures are printed, never asserted.
 */
import { join } from "node:path";
import { DEFAULT_IDS, startSimulator, type Simulator } from "../simulator";
import { EngineStack, REPO, wire, type ProgramSpec } from "../test/engine/harness";

const project = DEFAULT_IDS.acmeWeb;

function byOperation(sim: Simulator): string {
  const counts = new Map<string, number>();
  for (const c of wire(sim)) counts.set(c.operation ?? "?", (counts.get(c.operation ?? "?") ?? 0) + 1);
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  const parts = [...counts.entries()].sort().map(([op, n]) => `${op} ${n}`);
  return `${String(total).padStart(3)}  ${parts.join(", ") || "-"}`;
}

async function requestsPerOperation(sim: Simulator): Promise<void> {
  const sites = sim.seed.sites.filter((s) => s.projectId === project).slice(0, 10);
  const spec: ProgramSpec = {
    products: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`product${i}`, {
      projectId: project, title: `Product ${i}`, slug: `product-${i}`, ...(i % 2 === 0 && { status: "active" }),
    }])),
    sites: Object.fromEntries(sites.map((s, i) => [`site${i}`, { projectId: project, siteId: s.id, name: `Renamed ${i}` }])),
  };
  const engine = await EngineStack.create(sim);
  try {
    await engine.setSpec(spec);
    console.log("\n1. API requests per operation — 20 products (10 with a status), 10 sites of a 250-site project");
    console.log("   operation                 requests  by API operation");
    await engine.up();
    console.log(`   pulumi up                 ${byOperation(sim)}`);
    await engine.preview();
    console.log(`   pulumi preview            ${byOperation(sim)}`);
    await engine.preview({ refresh: true });
    console.log(`   pulumi preview --refresh  ${byOperation(sim)}`);
    const bytes = new Map<string, number[]>();
    for (const type of ["Product", "Site"] as const) {
      for (const r of await engine.resources(type)) {
        const list = bytes.get(type) ?? [];
        list.push(Buffer.byteLength(String(r.outputs.__provider)));
        bytes.set(type, list);
      }
    }
    const stateBytes = Buffer.byteLength(engine.stateFileText());
    await engine.destroy();
    console.log(`   pulumi destroy            ${byOperation(sim)}`);
    for (const [type, list] of bytes) {
      console.log(`   __provider: ${type} ${Math.max(...list)} bytes each (stored twice: inputs and outputs)`);
    }
    console.log(`   state file for 30 resources: ${stateBytes} bytes`);
  } finally {
    await engine.dispose();
  }
}

async function timeUp(sim: Simulator, program: string | undefined, spec: ProgramSpec): Promise<number> {
  const engine = await EngineStack.create(sim, program === undefined ? {} : { program });
  try {
    await engine.setSpec(spec);
    const start = performance.now();
    await engine.up();
    return performance.now() - start;
  } finally {
    await engine.dispose();
  }
}

async function upTiming(sim: Simulator): Promise<void> {
  const spec: ProgramSpec = {
    products: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`p${i}`, { projectId: project, title: `Timed ${i}`, slug: `timed-${i}` }])),
  };
  const noop = join(REPO, "bench", "noop-program");
  const ours: number[] = [];
  const baseline: number[] = [];
  // Alternate so drift in machine load hits both sides alike.
  for (let round = 0; round < 3; round++) {
    baseline.push(await timeUp(sim, noop, spec));
    ours.push(await timeUp(sim, undefined, spec));
  }
  const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
  console.log("\n2. pulumi up of 50 resources (median of 3, wall clock including the program run)");
  console.log(`   do-nothing dynamic provider  ${(median(baseline) / 1000).toFixed(2)} s   (${baseline.map((t) => (t / 1000).toFixed(2)).join(", ")})`);
  console.log(`   Product (POST each)          ${(median(ours) / 1000).toFixed(2)} s   (${ours.map((t) => (t / 1000).toFixed(2)).join(", ")})`);
  console.log(`   ratio                        ${(median(ours) / median(baseline)).toFixed(2)}x`);
}

async function main(): Promise<void> {
  const sim = await startSimulator({ port: 0 });
  try {
    console.log("Pulumi engine figures (real CLI, simulator on loopback)");
    await requestsPerOperation(sim);
    await upTiming(sim);
  } finally {
    await sim.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
