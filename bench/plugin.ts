/**
 * Section 4 of the engine bench: the plugin beside the dynamic face, in the same run.
 *  - `pulumi up` of 200 products through the plugin (Pulumi YAML), through the dynamic resources
 *    (TypeScript), and with the do-nothing dynamic provider (the baseline); median of 3, alternated.
 *  - State bytes per product for both faces, from those stacks.
 *  - The YAML example's API requests per operation: up, no-change preview, preview --refresh, destroy.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import { DEFAULT_IDS, type Simulator } from "../simulator";
import { EngineStack, REPO, WORK, withPluginFromNodeModules, type ProgramSpec } from "../scripts/engine/driver";
import { printRequestsPerOperation } from "./requests";

const project = DEFAULT_IDS.acmeWeb;
const COUNT = 200;

interface UpFigures {
  ms: number;
  /** Bytes of one product's entry in the state file (its JSON as stored), the mean over the stack. */
  bytesPerProduct: number;
  /**
   * Of those, the provider's part: inputs and outputs. The rest is the engine's and the language
   * runtime's (Pulumi YAML records a 19-frame Go stack trace per resource; Node.js records none).
   */
  propertyBytes: number;
}

type Face = "baseline" | "dynamic" | "plugin";

/** A Pulumi YAML program of `COUNT` products, loading the plugin from the repo's node_modules. */
function pluginProgram(): string {
  mkdirSync(WORK, { recursive: true });
  const dir = mkdtempSync(join(WORK, "bench-yaml-"));
  const resources = Object.fromEntries(Array.from({ length: COUNT }, (_, i) => [`p${i}`, {
    type: "serviceapi:index:Product",
    properties: { projectId: project, title: `Timed ${i}`, slug: `timed-${i}` },
  }]));
  writeFileSync(join(dir, "Pulumi.yaml"), stringify({ name: "bench-plugin", runtime: "yaml", resources }));
  return withPluginFromNodeModules(dir);
}

async function timeUp(sim: Simulator, face: Face, plugin: string): Promise<UpFigures> {
  const program = { baseline: join(REPO, "bench", "noop-program"), dynamic: undefined, plugin }[face];
  const engine = await EngineStack.create(sim, program === undefined ? {} : { program });
  try {
    if (face !== "plugin") {
      await engine.setSpec({
        products: Object.fromEntries(Array.from({ length: COUNT }, (_, i) => [`p${i}`, { projectId: project, title: `Timed ${i}`, slug: `timed-${i}` }])),
      } satisfies ProgramSpec);
    }
    const start = performance.now();
    await engine.up();
    const ms = performance.now() - start;
    const state = JSON.parse(engine.stateFileText()) as { checkpoint: { latest: { resources: { type: string }[] } } };
    const type = { baseline: "pulumi-nodejs:dynamic/bench:Noop", dynamic: "pulumi-nodejs:dynamic/serviceapi:Product", plugin: "serviceapi:index:Product" }[face];
    const products = state.checkpoint.latest.resources.filter((r) => r.type === type) as { type: string; inputs: unknown; outputs: unknown }[];
    if (products.length !== COUNT) throw new Error(`${face}: expected ${COUNT} products in state, found ${products.length}`);
    const bytes = products.reduce((sum, r) => sum + Buffer.byteLength(JSON.stringify(r, null, 4)), 0);
    const properties = products.reduce((sum, r) => sum + Buffer.byteLength(JSON.stringify({ inputs: r.inputs, outputs: r.outputs }, null, 4)), 0);
    return { ms, bytesPerProduct: Math.round(bytes / COUNT), propertyBytes: Math.round(properties / COUNT) };
  } finally {
    await engine.dispose();
  }
}

async function upOf200(sim: Simulator): Promise<void> {
  const plugin = pluginProgram();
  const runs: Record<Face, UpFigures[]> = { baseline: [], dynamic: [], plugin: [] };
  // Alternate so drift in machine load hits every face alike.
  for (let round = 0; round < 3; round++) {
    for (const face of ["baseline", "dynamic", "plugin"] as const) runs[face].push(await timeUp(sim, face, plugin));
  }
  const median = (face: Face) => [...runs[face]].map((r) => r.ms).sort((a, b) => a - b)[1]!;
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  console.log(`\n4. The plugin beside the dynamic face — pulumi up of ${COUNT} products (median of 3, wall clock)`);
  console.log("   face                           up        runs                     vs baseline   state bytes per product: entry (inputs+outputs)");
  const rows: [Face, string][] = [
    ["baseline", "do-nothing dynamic provider"], ["dynamic", "dynamic Product (TypeScript)"], ["plugin", "plugin Product (Pulumi YAML)"],
  ];
  for (const [face, label] of rows) {
    console.log(`   ${label.padEnd(30)} ${s(median(face)).padStart(8)}   ${runs[face].map((r) => s(r.ms)).join(", ").padEnd(24)} ` +
      `${`${(median(face) / median("baseline")).toFixed(2)}x`.padStart(11)}   ${runs[face][0]!.bytesPerProduct} (${runs[face][0]!.propertyBytes})`);
  }
  console.log(`   plugin vs dynamic: ${(median("plugin") / median("dynamic")).toFixed(2)}x time, ` +
    `${(runs.plugin[0]!.propertyBytes / runs.dynamic[0]!.propertyBytes).toFixed(2)}x inputs+outputs per product (no __provider), ` +
    `${(runs.plugin[0]!.bytesPerProduct / runs.dynamic[0]!.bytesPerProduct).toFixed(2)}x whole entry (with the YAML runtime's stack trace)`);
}

async function yamlExampleRequests(sim: Simulator): Promise<void> {
  const engine = await EngineStack.create(sim, { program: withPluginFromNodeModules(join(REPO, "examples", "catalog-pulumi-yaml")) });
  try {
    console.log("\n   The YAML example (examples/catalog-pulumi-yaml: 3 products, 1 site rename, 2 lookups), API requests per operation");
    await printRequestsPerOperation(engine, sim);
  } finally {
    await engine.dispose();
  }
}

export async function pluginFigures(sim: Simulator): Promise<void> {
  await upOf200(sim);
  await yamlExampleRequests(sim);
}
