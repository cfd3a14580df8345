/**
 * Sections 2 and 4 of the engine bench: the plugin beside the dynamic face, in the same run.
 *  2. `pulumi up` of 200 products through the plugin (Pulumi YAML), through the dynamic resources
 *     (TypeScript), and with the do-nothing dynamic provider (the baseline); median of 3, alternated.
 *     State bytes per product for each, from those stacks.
 *  4. The YAML example's API requests per operation: up, no-change preview, preview --refresh, destroy.
 */
import { join } from "node:path";
import { stringify } from "yaml";
import { DEFAULT_IDS, type Simulator } from "pulumi-serviceapi-simulator";
import { EngineStack, REPO, catalog } from "../scripts/engine/driver";
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

/** The same products for every face: as the programs' spec, and as a Pulumi YAML program. */
const SPEC = catalog(project, COUNT, "Timed", { slug: true });
const YAML = stringify({
  name: "bench-plugin",
  runtime: "yaml",
  resources: Object.fromEntries(
    Object.entries(SPEC.products ?? {}).map(([name, properties]) => [name, { type: "serviceapi:index:Product", properties }]),
  ),
});

async function timeUp(sim: Simulator, face: Face): Promise<UpFigures> {
  const engine = await EngineStack.create(
    sim,
    {
      baseline: { program: join(REPO, "bench", "noop-program") },
      dynamic: {},
      plugin: { yaml: YAML, plugin: true },
    }[face],
  );
  try {
    if (face !== "plugin") await engine.setSpec(SPEC);
    const start = performance.now();
    await engine.up();
    const ms = performance.now() - start;
    const state = JSON.parse(engine.stateFileText()) as { checkpoint: { latest: { resources: { type: string }[] } } };
    const type = {
      baseline: "pulumi-nodejs:dynamic/bench:Noop",
      dynamic: "pulumi-nodejs:dynamic/serviceapi:Product",
      plugin: "serviceapi:index:Product",
    }[face];
    const products = state.checkpoint.latest.resources.filter((r) => r.type === type) as {
      type: string;
      inputs: unknown;
      outputs: unknown;
    }[];
    if (products.length !== COUNT) throw new Error(`${face}: expected ${COUNT} products in state, found ${products.length}`);
    const bytes = products.reduce((sum, r) => sum + Buffer.byteLength(JSON.stringify(r, null, 4)), 0);
    const properties = products.reduce(
      (sum, r) => sum + Buffer.byteLength(JSON.stringify({ inputs: r.inputs, outputs: r.outputs }, null, 4)),
      0,
    );
    return { ms, bytesPerProduct: Math.round(bytes / COUNT), propertyBytes: Math.round(properties / COUNT) };
  } finally {
    await engine.dispose();
  }
}

export async function upOf200(sim: Simulator): Promise<void> {
  const runs: Record<Face, UpFigures[]> = { baseline: [], dynamic: [], plugin: [] };
  // Alternate so drift in machine load hits every face alike.
  for (let round = 0; round < 3; round++) {
    for (const face of ["baseline", "dynamic", "plugin"] as const) runs[face].push(await timeUp(sim, face));
  }
  const median = (face: Face) => [...runs[face]].map((r) => r.ms).sort((a, b) => a - b)[1]!;
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  console.log(
    `\n2. pulumi up of ${COUNT} products: the plugin beside the dynamic face and the do-nothing baseline (median of 3, wall clock)`,
  );
  console.log(
    "   face                           up        runs                     vs baseline   state bytes per product: entry (inputs+outputs)",
  );
  const rows: [Face, string][] = [
    ["baseline", "do-nothing dynamic provider"],
    ["dynamic", "dynamic Product (TypeScript)"],
    ["plugin", "plugin Product (Pulumi YAML)"],
  ];
  for (const [face, label] of rows) {
    console.log(
      `   ${label.padEnd(30)} ${s(median(face)).padStart(8)}   ${runs[face]
        .map((r) => s(r.ms))
        .join(", ")
        .padEnd(24)} ` +
        `${`${(median(face) / median("baseline")).toFixed(2)}x`.padStart(11)}   ${runs[face][0]!.bytesPerProduct} (${runs[face][0]!.propertyBytes})`,
    );
  }
  console.log(
    `   plugin vs dynamic: ${(median("plugin") / median("dynamic")).toFixed(2)}x time, ` +
      `${(runs.plugin[0]!.propertyBytes / runs.dynamic[0]!.propertyBytes).toFixed(2)}x inputs+outputs per product (no __provider), ` +
      `${(runs.plugin[0]!.bytesPerProduct / runs.dynamic[0]!.bytesPerProduct).toFixed(2)}x whole entry (with the YAML runtime's stack trace)`,
  );
}

export async function yamlExampleRequests(sim: Simulator): Promise<void> {
  const engine = await EngineStack.create(sim, { program: join(REPO, "examples", "catalog-pulumi-yaml"), plugin: true });
  try {
    console.log(
      "\n4. The Pulumi YAML example through the plugin (examples/catalog-pulumi-yaml: 3 products, 1 site rename, 2 lookups), API requests per operation",
    );
    await printRequestsPerOperation(engine, sim);
  } finally {
    await engine.dispose();
  }
}
