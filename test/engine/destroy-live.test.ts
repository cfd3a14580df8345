/**
 * `pulumi destroy` acts on the live record, not on the state: a product declared archived but
 * re-activated behind Pulumi's back is archived again (this stack created it), and a site gets its
 * original name back while it still has the name this stack set. Each message says what was sent.
 * A site renamed since by someone else — a person, or another stack that took over the same site —
 * keeps that name, with a warning: no stack's destroy undoes what another stack or a person set.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { ServiceApiClient } from "../../provider";
import { DEFAULT_IDS } from "../../simulator/seed";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { engineSuite, step } from "./suite";
import { ENGINE_TIMEOUT_MS, EngineStack, wire } from "../../scripts/engine/driver";

const project = DEFAULT_IDS.acmeDocs;

describe("destroy acts on the live record", { timeout: ENGINE_TIMEOUT_MS }, () => {
  const suite = engineSuite();
  let sim: Simulator;
  beforeEach(() => {
    sim = suite.sim();
  });

  it("an archived product re-activated behind Pulumi's back is archived again; a site renamed since keeps that name", async () => {
    const engine = await suite.newStack();
    const site = sim.seed.sites.find((s) => s.projectId === project)!;
    const untouched = sim.seed.sites.filter((s) => s.projectId === project)[1]!;
    await engine.setSpec({
      products: { old: { projectId: project, title: "Old plan", status: "archived" } },
      sites: {
        docs: { projectId: project, siteId: site.id, name: "Docs (managed)" },
        same: { projectId: project, siteId: untouched.id, name: untouched.name },
      },
    });
    await engine.up();
    const [product] = await engine.resources("Product");
    const client = new ServiceApiClient({ baseUrl: sim.url, token: sim.token });
    try {
      // Behind Pulumi's back; the state still says archived and "Docs (managed)".
      await client.updateProduct(product!.id, { status: "active" });
      await client.updateSite(site.id, { name: "Docs (edited in the UI)" });

      const run = await engine.destroy();
      expect(run.result.summary.resourceChanges).toEqual({ delete: 4 });
      const calls = wire(sim);
      expect(calls.filter((c) => c.operation === "products.update").map((c) => [c.path, c.body])).toEqual([
        [`/api/v1/public/products/${product!.id}`, { status: "archived" }],
      ]);
      // One listing of the project (the live names), no rename: the one site whose name differs was renamed since.
      expect(calls.filter((c) => c.operation === "sites.update").map((c) => [c.path, c.body])).toEqual([]);
      expect(calls.filter((c) => c.operation === "sites.list")).toHaveLength(1);

      const messages = run.diagnostics.map((d) => d.message).join("\n");
      expect(messages).toContain(`Product "old" (id ${product!.id}): sent PATCH {status: "archived"}; it is archived on the service`);
      expect(messages).toContain(
        `Site "docs" (id ${site.id}): nothing sent; its live name is neither the one this stack set nor the one it had when this stack ` +
          "took it over: it was renamed since, by a person or by another stack that manages the same site (one site, one stack). " +
          "It keeps that name: giving back the name this stack found would undo that change.",
      );
      expect(messages).toContain(`Site "same" (id ${untouched.id}): nothing sent; the service already shows its original name.`);

      expect((await client.updateProduct(product!.id, {})).status).toBe("archived");
      const live = await client.listSites({ projectId: project }).toArray();
      expect(live.find((s) => s.id === site.id)!.name).toBe("Docs (edited in the UI)");
    } finally {
      await client.close();
    }
  });

  it("two stacks that took over the same site: a destroy gives back the name it found only while the site has the name it set", async () => {
    const site = sim.seed.sites.filter((s) => s.projectId === project)[2]!;
    const a = await suite.newStack();
    let b = await EngineStack.create(sim);
    const client = new ServiceApiClient({ baseUrl: sim.url, token: sim.token });
    const siteName = async () => (await client.listSites({ projectId: project }).toArray()).find((s) => s.id === site.id)!.name;
    const renames = () => wire(sim).filter((c) => c.operation === "sites.update");
    try {
      await a.setSpec({ sites: { home: { projectId: project, siteId: site.id, name: "Home (stack A)" } } });
      await a.up();
      const second = { sites: { home: { projectId: project, siteId: site.id, name: "Home (stack B)" } } };
      await b.setSpec(second);
      await b.up();

      await step("B's destroy gives back the name B found — A's — and A's drift gate passes", async () => {
        const destroyB = await b.destroy();
        expect(renames().map((c) => c.body)).toEqual([{ name: "Home (stack A)" }]);
        expect(destroyB.diagnostics.map((d) => d.message).join("\n")).toContain(
          `Site "home" (id ${site.id}): sent PATCH {name} with its original name; renamed back on the service.`,
        );
        expect(await siteName()).toBe("Home (stack A)");
        expect((await a.preview({ refresh: true, expectNoChanges: true })).result.changeSummary).toEqual({ same: 2 });
      });

      await step("B takes it over again; A refreshes (its state now shows B's name); A's destroy leaves B's name", async () => {
        await b.dispose();
        b = await EngineStack.create(sim);
        await b.setSpec(second);
        await b.up();
        await a.refresh();
        const destroyA = await a.destroy();
        console.log(`A's destroy sent: ${JSON.stringify(renames().map((c) => c.body))}`);
        expect(renames()).toEqual([]);
        const warning = destroyA.diagnostics.find((d) => d.message.includes(`warning: [runtime] serviceapi: Site "home" (id ${site.id})`));
        expect(warning?.message).toContain(
          "nothing sent; its live name is neither the one this stack set nor the one it had when this stack took it over: " +
            "it was renamed since, by a person or by another stack that manages the same site (one site, one stack).",
        );
        expect(await siteName()).toBe("Home (stack B)");
        expect((await b.preview({ refresh: true, expectNoChanges: true })).result.changeSummary).toEqual({ same: 2 });
      });

      await step("B's destroy then gives back the name B found", async () => {
        await b.destroy();
        expect(renames().map((c) => c.body)).toEqual([{ name: "Home (stack A)" }]);
      });
    } finally {
      await b.dispose();
      await client.updateSite(site.id, { name: site.name });
      await client.close();
    }
  });
});
