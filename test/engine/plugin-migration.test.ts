/**
 * Moving a stack from the dynamic resources to the plugin without touching the service
 * (docs/plugin.md, "Migrating a dynamic stack"): import each record under the plugin's type, drop
 * the dynamic resource from the state, switch the program. No write reaches the service, and the
 * new program's preview has nothing to do.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_IDS } from "../../simulator/seed";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { engineSuite } from "./suite";
import { ENGINE_TIMEOUT_MS, PLUGIN_FROM_NODE_MODULES, wire } from "../../scripts/engine/driver";

const project = DEFAULT_IDS.acmeDocs;

describe("migrating a dynamic stack to the plugin", { timeout: ENGINE_TIMEOUT_MS * 2 }, () => {
  const suite = engineSuite();
  let sim: Simulator;
  beforeEach(() => {
    sim = suite.sim();
  });

  it("import under the plugin's types, state delete the dynamic resources, switch to YAML: 0 writes, no changes", async () => {
    // A process program: the test replaces it with a YAML one in the stack's folder, as a user does.
    const engine = await suite.newStack({ programProcess: true });
    const site = sim.seed.sites.find((s) => s.projectId === project)!;
    await engine.setSpec({
      products: {
        pro: { projectId: project, title: "Pro", slug: "pro", status: "active" },
        basic: { projectId: project, title: "Basic", description: "Entry" },
      },
      sites: { docs: { projectId: project, siteId: site.id, name: "Docs (managed)" } },
    });
    await engine.up();
    const products = await engine.resources("Product");
    const [managedSite] = await engine.resources("Site");

    // 1. The project becomes a Pulumi YAML project that loads the plugin (from node_modules here;
    //    or installed with `pulumi plugin install`), still without resources.
    const yamlPath = join(engine.dir, "Pulumi.yaml");
    rmSync(join(engine.dir, "index.ts"));
    writeFileSync(yamlPath, `name: engine\nruntime: yaml\n${PLUGIN_FROM_NODE_MODULES}`);

    // 2. Import each record under the plugin's type (same logical names: the type is part of the URN).
    const importFile = join(engine.dir, "migrate.json");
    writeFileSync(
      importFile,
      JSON.stringify({
        resources: [
          ...products.map((p) => ({ type: "serviceapi:index:Product", name: p.urn.split("::").pop(), id: `${project}/${p.id}` })),
          { type: "serviceapi:index:Site", name: "docs", id: `${project}/${managedSite!.id}` },
        ],
      }),
    );
    sim.clearRequests();
    const imported = engine.spawnCli(["import", "--file", importFile, "--protect=false", "--yes", "--non-interactive"]);
    expect(await imported.exited).toBe(0);
    expect(imported.output()).toContain("3 imported");
    const importRequests = sim.requests();

    // 3. Drop the dynamic resources, then their provider, from the state only: their delete
    //    (archive, rename back) never runs.
    const dynamicUrns = [...products, managedSite!].map((r) => r.urn);
    const nodejsProvider = ((await engine.deployment()).resources ?? []).find((r) => r.type === "pulumi:providers:pulumi-nodejs")!.urn;
    for (const urn of [...dynamicUrns, nodejsProvider]) expect(await engine.spawnCli(["state", "delete", urn, "--yes"]).exited).toBe(0);

    // 4. The program is the YAML that `pulumi import` printed.
    const output = imported.output();
    writeFileSync(yamlPath, `name: engine\nruntime: yaml\n${PLUGIN_FROM_NODE_MODULES}${output.slice(output.indexOf("resources:"))}`);
    const preview = await engine.preview();
    expect(preview.result.changeSummary).toEqual({ same: 4 });

    // The import read each record (empty PATCHes and listings) and wrote nothing; the preview sent
    // nothing at all; the records are as they were.
    expect(importRequests.filter((r) => r.operation === "products.update")).toHaveLength(2 * products.length);
    expect(
      importRequests.filter(
        (r) => !(r.operation === "sites.list" || (r.operation === "products.update" && JSON.stringify(r.body) === "{}")),
      ),
    ).toEqual([]);
    expect(
      sim
        .products()
        .filter((p) => p.projectId === project)
        .map((p) => [p.title, p.status])
        .sort(),
    ).toEqual([
      ["Basic", "draft"],
      ["Pro", "active"],
    ]);
    expect(wire(sim)).toEqual([]);
    expect((await engine.resources("Product", "plugin")).map((r) => r.id).sort()).toEqual(products.map((p) => p.id).sort());
    expect(await engine.resources("Product")).toEqual([]);
  });
});
