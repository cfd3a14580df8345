/**
 * Existing records taken into a stack through the plugin, under the real CLI: a bulk
 * `pulumi import --file` of a dozen products, and the `import:` resource option in Pulumi YAML.
 * Both read each product with an empty PATCH and write nothing.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServiceApiClient } from "../../provider";
import { DEFAULT_IDS } from "../../simulator/seed";
import type { Simulator } from "../../simulator";
import { simulatorForSuite, stackPerTest } from "./suite";
import { ENGINE_TIMEOUT_MS, REPO, pulumiCli, wire, withPluginFromNodeModules } from "../../scripts/engine/driver";

const project = DEFAULT_IDS.acmeDocs;

describe("importing through the plugin", { timeout: ENGINE_TIMEOUT_MS }, () => {
  let sim: Simulator;
  let client: ServiceApiClient;
  const newStack = stackPerTest(() => sim);

  beforeAll(async () => {
    await pulumiCli();
    sim = await simulatorForSuite();
    client = new ServiceApiClient({ baseUrl: sim.url, token: sim.token });
  }, 30 * 60_000);
  afterAll(() => client?.close());

  /** An empty Pulumi YAML project that loads the plugin, for `pulumi import` to write into. */
  function emptyYamlProject(resources = ""): string {
    const dir = mkdtempSync(join(REPO, ".engine-work", "import-"));
    writeFileSync(join(dir, "Pulumi.yaml"), `name: imported\nruntime: yaml\n${resources}`);
    return withPluginFromNodeModules(dir);
  }

  it("pulumi import --file takes in a dozen products at once, writing nothing", async () => {
    const existing = await Promise.all(Array.from({ length: 12 }, (_, i) => client.createProduct({ projectId: project, title: `Bulk ${i}`, slug: `bulk-${i}` })));
    const engine = await newStack({ program: emptyYamlProject() });
    const importFile = join(engine.dir, "import.json");
    writeFileSync(importFile, JSON.stringify({
      resources: existing.map((p, i) => ({ type: "serviceapi:index:Product", name: `bulk-${i}`, id: `${project}/${p.id}` })),
    }));
    sim.clearRequests();
    const run = engine.spawnCli(["import", "--file", importFile, "--yes", "--non-interactive"]);
    expect(await run.exited).toBe(0);
    expect(run.output()).toContain("12 imported");
    for (let i = 0; i < 12; i++) expect(run.output()).toContain(`title: Bulk ${i}`);
    expect(wire(sim).every((c) => c.operation === "products.update" && JSON.stringify(c.body) === "{}")).toBe(true);
    expect(sim.products().filter((p) => p.title.startsWith("Bulk "))).toHaveLength(12);
    const imported = await engine.resources("Product", "plugin");
    expect(imported.map((r) => r.id).sort()).toEqual(existing.map((p) => p.id).sort());
  });

  it("the import: resource option in Pulumi YAML adopts the product; the next preview has nothing to do", async () => {
    const legacy = await client.createProduct({ projectId: project, title: "Option import", slug: "option-import" });
    const program = emptyYamlProject([
      "resources:",
      "  legacy:",
      "    type: serviceapi:index:Product",
      "    properties:",
      `      projectId: ${project}`,
      "      title: Option import",
      "      slug: option-import",
      "      status: draft",
      "    options:",
      `      import: ${project}/${legacy.id}`,
      "",
    ].join("\n"));
    const engine = await newStack({ program });
    const before = sim.products().length;
    const up = await engine.up();
    expect(up.result.summary.resourceChanges).toMatchObject({ import: 1 });
    expect(sim.products()).toHaveLength(before);
    expect(wire(sim).filter((c) => c.operation === "products.create")).toEqual([]);
    const [state] = await engine.resources("Product", "plugin");
    expect(state!.id).toBe(legacy.id);
    expect((await engine.preview()).result.changeSummary).toEqual({ same: 2 });
  });
});
