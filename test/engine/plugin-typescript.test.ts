/**
 * The plugin from TypeScript through its generated SDK (`@pulumi-serviceapi/serviceapi`, sdk/nodejs),
 * under the real CLI and the Node.js runtime, the plugin loaded from `plugins.providers` as
 * docs/sdks.md's "TypeScript" sets it up. One ordered scenario, as a team meets it:
 * up of a catalog, one field changed (one PATCH of one key), the drift gate, `pulumi import` of a
 * product made elsewhere (then declared: no diff), a second account through an explicit provider
 * with its own token, destroy (what the stack created archived, the imported product given back as
 * found). The requests each step sends are asserted exactly.
 * Then a dynamic stack moved to the SDK without touching the service (docs/plugin.md's route).
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { DEFAULT_IDS } from "../../simulator/seed";
import { ServiceApiClient } from "../../provider";
import { ENGINE_TIMEOUT_MS, PLUGIN_FROM_NODE_MODULES, REPO, wire, type EngineStack } from "../../scripts/engine/driver";
import { step, twoAccountsSuite } from "./suite";

const PROGRAM = join(REPO, "test", "engine", "plugin-ts-program");

describe("the plugin's typed TypeScript SDK", { timeout: ENGINE_TIMEOUT_MS * 2 }, () => {
  const accounts = twoAccountsSuite();
  const newStack = accounts.newStack;
  let acme: Simulator;
  let globex: Simulator;
  beforeEach(() => {
    acme = accounts.acme();
    globex = accounts.globex();
  });

  const catalog = {
    pro: { title: "Pro plan", slug: "pro", status: "active" },
    starter: { title: "Starter plan", slug: "starter" },
    legacy: { title: "Legacy basic plan", status: "archived" },
  };
  /** Operation names of the requests `sim` received, in order, since the last clear. */
  const operations = (sim: Simulator) => sim.requests().map((r) => r.operation);
  const nonEmptyPatches = (sim: Simulator) =>
    sim.requests("products.update").filter((r) => r.status === 200 && Object.keys(r.body as object).length > 0);
  const setProducts = (engine: EngineStack, products: object) =>
    engine.stack.setConfig("catalog:products", { value: JSON.stringify(products) });

  it("up, one-field change, drift gate, import, a second account, destroy", async () => {
    const engine = await newStack({ program: PROGRAM, plugin: true });
    await engine.stack.setConfig("catalog:projectName", { value: "Acme Web" });
    await setProducts(engine, catalog);
    const ids = async () => (await engine.outputs()).productIds!.value as Record<string, string>;

    await step("up of the catalog", async () => {
      acme.clearRequests();
      const up = await engine.up();
      expect(up.result.summary.resourceChanges).toEqual({ create: 4 }); // the stack and 3 products (Pulumi does not count default providers)
      expect(operations(acme).filter((o) => o === "products.create")).toHaveLength(3);
      expect(
        acme
          .products()
          .filter((p) => p.projectId === DEFAULT_IDS.acmeWeb)
          .map((p) => p.title)
          .sort(),
      ).toEqual(["Legacy basic plan", "Pro plan", "Starter plan"]);
      // The resources are the plugin's, not dynamic ones.
      expect((await engine.resources("Product", "plugin")).map((r) => r.id).sort()).toEqual(Object.values(await ids()).sort());
    });

    await step("a no-change preview sends nothing but the lookup", async () => {
      acme.clearRequests();
      const preview = await engine.preview({ expectNoChanges: true });
      expect(preview.result.changeSummary).toEqual({ same: 4 });
      expect(operations(acme).every((o) => o === "projects.list")).toBe(true);
    });

    await step("one field changed: preview names it; up sends one PATCH of that key", async () => {
      await setProducts(engine, { ...catalog, pro: { ...catalog.pro, title: "Pro plan (2027)" } });
      const preview = await engine.preview({ diff: true });
      expect(preview.text).toMatch(/~ title\s*: "Pro plan" => "Pro plan \(2027\)"/);
      acme.clearRequests();
      await engine.up();
      expect(nonEmptyPatches(acme).map((r) => [r.path, r.body])).toEqual([
        [`/api/v1/public/products/${(await ids()).pro}`, { title: "Pro plan (2027)" }],
      ]);
      expect(operations(acme).filter((o) => o !== "projects.list")).toEqual(["products.update"]);
    });

    await step("changed behind Pulumi's back: the drift gate fails naming the field; up restores", async () => {
      const client = new ServiceApiClient({ baseUrl: acme.url, token: acme.token });
      const starter = (await ids()).starter!;
      await client.updateProduct(starter, { title: "Changed in the UI" });
      await client.close();
      const gate = engine.spawnCli(["preview", "--refresh", "--expect-no-changes", "--diff", "--non-interactive", "--color", "never"]);
      expect(await gate.exited).not.toBe(0);
      expect(gate.output()).toMatch(/~ title\s*: "Changed in the UI" => "Starter plan"/);
      expect(gate.output()).not.toContain(acme.token);
      await engine.up({ refresh: true });
      expect(acme.products().find((p) => p.id === starter)?.title).toBe("Starter plan");
    });

    await step("pulumi import of a product made elsewhere; declared as it is, it shows no diff", async () => {
      const client = new ServiceApiClient({ baseUrl: acme.url, token: acme.token });
      const made = await client.createProduct({ projectId: DEFAULT_IDS.acmeWeb, title: "Made in the UI", slug: "made-in-ui" });
      await client.close();
      const imported = engine.spawnCli([
        "import",
        "serviceapi:index:Product",
        "from-ui",
        `${DEFAULT_IDS.acmeWeb}/${made.id}`,
        "--generate-code=false",
        // Imported resources are protected by default; this program declares no `protect`.
        "--protect=false",
        "--yes",
        "--non-interactive",
      ]);
      expect(await imported.exited).toBe(0);
      expect(imported.output()).toContain("1 imported");
      await setProducts(engine, {
        ...catalog,
        pro: { ...catalog.pro, title: "Pro plan (2027)" },
        // As it is on the service: a new product's status is draft.
        "from-ui": { title: "Made in the UI", slug: "made-in-ui", status: "draft" },
      });
      acme.clearRequests();
      const preview = await engine.preview({ expectNoChanges: true });
      expect(preview.result.changeSummary).toEqual({ same: 5 });
      expect(operations(acme).filter((o) => o === "products.create")).toEqual([]);
    });

    await step("a second account: an explicit provider with its own token and URL", async () => {
      await engine.stack.setConfig("catalog:globexUrl", { value: globex.url });
      await engine.stack.setConfig("catalog:globexToken", { value: globex.token, secret: true });
      await engine.stack.setConfig("catalog:globexProjectId", { value: DEFAULT_IDS.acmeDocs });
      const up = await engine.up();
      expect(up.result.summary.resourceChanges).toEqual({ create: 2, same: 5 }); // the explicit provider and its product
      expect(globex.products().map((p) => p.title)).toEqual(["Globex plan"]);
      expect(acme.products().some((p) => p.title === "Globex plan")).toBe(false);
      expect(up.text).not.toContain(globex.token);
      expect(engine.stateFileText()).not.toContain(globex.token);
      expect(engine.stateFileText()).not.toContain(acme.token);
    });

    await step("destroy archives every product it created, on both services, and gives the imported one back as found", async () => {
      const before = await ids();
      const destroy = await engine.destroy();
      expect((await engine.deployment()).resources ?? []).toEqual([]);
      for (const [name, id] of Object.entries(before)) {
        const sim = name === "globex-plan" ? globex : acme;
        // "from-ui" was made in the admin UI and imported; this stack changed none of its fields.
        expect([name, sim.products().find((p) => p.id === id)?.status]).toEqual([name, name === "from-ui" ? "draft" : "archived"]);
      }
      expect(destroy.diagnostics.map((d) => d.message).join("\n")).toContain(
        `Product "from-ui" (id ${before["from-ui"]}): nothing sent; this stack took it over and changed none of its fields`,
      );
    });
    expect(readFileSync(join(engine.dir, "index.ts"), "utf8")).toContain('from "@pulumi-serviceapi/serviceapi"');
  });

  it("a dynamic stack moves to the SDK: import under the plugin's type, state delete, switch the program — 0 writes, no changes", async () => {
    // A process program: the test replaces it in the stack's folder, as a user does.
    const engine = await newStack({ programProcess: true });
    const project = DEFAULT_IDS.acmeWeb;
    await engine.setSpec({
      products: {
        pro: { projectId: project, title: "Pro", slug: "pro", status: "active" },
        basic: { projectId: project, title: "Basic", description: "Entry" },
      },
    });
    await engine.up();
    const products = await engine.resources("Product");

    // 1. Import each record under the plugin's type (same logical names: the type is part of the URN).
    const importFile = join(engine.dir, "migrate.json");
    const entries = products.map((p) => ({ type: "serviceapi:index:Product", name: p.urn.split("::").pop(), id: `${project}/${p.id}` }));
    writeFileSync(importFile, JSON.stringify({ resources: entries }));
    writeFileSync(join(engine.dir, "Pulumi.yaml"), `name: engine\nruntime: nodejs\n${PLUGIN_FROM_NODE_MODULES}`);
    acme.clearRequests();
    const imported = engine.spawnCli([
      "import",
      "--file",
      importFile,
      "--generate-code=false",
      "--protect=false",
      "--yes",
      "--non-interactive",
    ]);
    expect(await imported.exited).toBe(0);
    expect(imported.output()).toContain("2 imported");

    // 2. Drop the dynamic resources, then their provider, from the state only: their delete never runs.
    const nodejsProvider = ((await engine.deployment()).resources ?? []).find((r) => r.type === "pulumi:providers:pulumi-nodejs")!.urn;
    for (const urn of [...products.map((p) => p.urn), nodejsProvider])
      expect(await engine.spawnCli(["state", "delete", urn, "--yes"]).exited).toBe(0);

    // 3. The program declares them with the SDK, as they are.
    cpSync(join(PROGRAM, "index.ts"), join(engine.dir, "index.ts"));
    await engine.stack.setConfig("catalog:projectName", { value: "Acme Web" });
    await setProducts(engine, {
      pro: { title: "Pro", slug: "pro", status: "active" },
      basic: { title: "Basic", description: "Entry", status: "draft" },
    });
    const preview = await engine.preview({ expectNoChanges: true });
    expect(preview.result.changeSummary).toEqual({ same: 3 });
    // Nothing was written: the import read each record (an empty PATCH is the API's only read of one
    // product), the preview looked up the project; the records are as they were.
    const writes = wire(acme).filter(
      (r) => !(r.operation === "projects.list" || (r.operation === "products.update" && JSON.stringify(r.body) === "{}")),
    );
    expect(writes).toEqual([]);
    expect(
      acme
        .products()
        .filter((p) => products.some((q) => q.id === p.id))
        .map((p) => [p.title, p.status])
        .sort(),
    ).toEqual([
      ["Basic", "draft"],
      ["Pro", "active"],
    ]);
    expect((await engine.resources("Product", "plugin")).map((r) => r.id).sort()).toEqual(products.map((p) => p.id).sort());
    expect(await engine.resources("Product")).toEqual([]);
  });
});
