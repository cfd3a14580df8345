/**
 * `pulumi destroy` acts on the live record, not on the state: a product declared archived but
 * re-activated behind Pulumi's back is archived again, and a site renamed behind Pulumi's back
 * gets its original name back. Each message says what was sent. A site renamed since by someone
 * else — another stack that took over the same site — is named in a warning.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { ServiceApiClient } from "../../provider";
import { DEFAULT_IDS } from "../../simulator/seed";
import type { Simulator } from "../../simulator";
import { engineSuite } from "./suite";
import { ENGINE_TIMEOUT_MS, EngineStack, wire } from "../support/engine";

const project = DEFAULT_IDS.acmeDocs;

describe("destroy acts on the live record", { timeout: ENGINE_TIMEOUT_MS }, () => {
  const suite = engineSuite();
  let sim: Simulator;
  beforeEach(() => {
    sim = suite.sim();
  });

  it("an archived product re-activated behind Pulumi's back is archived again; a renamed site is renamed back", async () => {
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
      // One listing of the project (the live names), one rename: only the site whose live name differs.
      expect(calls.filter((c) => c.operation === "sites.update").map((c) => [c.path, c.body])).toEqual([
        [`/v1/sites/${site.id}`, { name: site.name }],
      ]);
      expect(calls.filter((c) => c.operation === "sites.list")).toHaveLength(1);

      const messages = run.diagnostics.map((d) => d.message).join("\n");
      expect(messages).toContain(`Product "old" (id ${product!.id}): sent PATCH {status: "archived"}; it is archived on the service`);
      expect(messages).toContain(`Site "docs" (id ${site.id}): sent PATCH {name} with its original name; renamed back on the service.`);
      expect(messages).toContain(`Site "same" (id ${untouched.id}): nothing sent; the service already shows its original name.`);

      expect((await client.updateProduct(product!.id, {})).status).toBe("archived");
      const live = await client.listSites({ projectId: project }).toArray();
      expect(live.find((s) => s.id === site.id)!.name).toBe(site.name);
    } finally {
      await client.close();
    }
  });

  it("two stacks that took over the same site: each destroy warns that the live name came from elsewhere", async () => {
    const site = sim.seed.sites.filter((s) => s.projectId === project)[2]!;
    const a = await suite.newStack();
    const b = await EngineStack.create(sim);
    try {
      await a.setSpec({ sites: { home: { projectId: project, siteId: site.id, name: "Home (stack A)" } } });
      await a.up();
      await b.setSpec({ sites: { home: { projectId: project, siteId: site.id, name: "Home (stack B)" } } });
      await b.up();
      // A's destroy finds B's name on the site: neither the name A set nor the one A found.
      const destroyA = await a.destroy();
      const warning = destroyA.diagnostics.find((d) => d.message.includes(`warning: [runtime] serviceapi: Site "home" (id ${site.id})`));
      expect(warning?.message).toContain(
        "its live name is neither the one this stack set nor the one it had when this stack took it over: " +
          "it was renamed since, by a person or by another stack that manages the same site (one site, one stack).",
      );
      // B's destroy finds the name A gave back, which B did not set either: it warns too, and gives the
      // site the name B found (A's), so the one before both is lost — what the warning says can happen.
      const destroyB = await b.destroy();
      expect(destroyB.diagnostics.filter((d) => d.message.includes("its live name is neither"))).toHaveLength(1);
      const client = new ServiceApiClient({ baseUrl: sim.url, token: sim.token });
      expect((await client.listSites({ projectId: project }).toArray()).find((s) => s.id === site.id)!.name).toBe("Home (stack A)");
      await client.close();
    } finally {
      await b.dispose();
      const client = new ServiceApiClient({ baseUrl: sim.url, token: sim.token });
      await client.updateSite(site.id, { name: site.name });
      await client.close();
    }
  });
});
