/**
 * The Site lifecycle called as a face calls it (`withDefaults`), on a fresh context, against the simulator: one listing per
 * project per command, renames only when the name differs, the site's project checked at preview,
 * and a delete judged by the live name.
 */
import { describe, expect, it } from "vitest";
import { site as lifecycle } from "../../provider/resources/site";
import { withDefaults } from "../../provider/resources/with-defaults";
import { DEFAULT_IDS } from "../../simulator/seed";
import { harness } from "./harness";

const site = withDefaults(lifecycle);

describe("Site lifecycle", () => {
  it("create renames only when the name differs and remembers the original name; delete renames back", async () => {
    const { ctx, sim, bodies } = await harness();
    const [a, b] = sim.seed.sites.filter((s) => s.projectId === DEFAULT_IDS.acmeDocs);
    const created = await site.create(ctx, { name: "docs", inputs: { projectId: DEFAULT_IDS.acmeDocs, siteId: a!.id, name: "Docs" } });
    expect(created.outs).toMatchObject({ name: "Docs", originalName: a!.name, subdomain: a!.subdomain, restoreNameOnDelete: true });
    const same = await site.create(ctx, { name: "same", inputs: { projectId: DEFAULT_IDS.acmeDocs, siteId: b!.id, name: b!.name } });
    expect(same.outs.originalName).toBe(b!.name);
    // One listing shared by both creates, one rename.
    expect(sim.requests().map((r) => r.operation)).toEqual(["sites.list", "sites.update"]);
    expect(bodies("sites.update")).toEqual([{ name: "Docs" }]);
    await site.remove(ctx, { name: "docs", id: created.id, state: created.outs });
    expect(bodies("sites.update")).toEqual([{ name: "Docs" }, { name: a!.name }]);
  });

  it("a site outside the project fails check naming siteId (a listing, no write), and create should it get that far", async () => {
    const { ctx, sim } = await harness();
    const other = sim.seed.sites.find((s) => s.projectId === DEFAULT_IDS.globexShop)!;
    const refusal =
      "siteId is not a site of the project given as projectId: sites.list returned 3 sites for that project and none has this id.";
    const news = { projectId: DEFAULT_IDS.acmeDocs, siteId: other.id, name: "X" };
    const checked = await site.check(ctx, { name: "x", olds: {}, news });
    expect(checked.failures.map((f) => f.reason)).toEqual([
      `${refusal} Check siteId and projectId (getSite looks a site up by name or subdomain)`,
    ]);
    expect(sim.requests().map((r) => r.operation)).toEqual(["sites.list"]);
    await expect(site.create(ctx, { name: "x", inputs: news })).rejects.toThrow(refusal);
    // The listing was the check's: create reused it.
    expect(sim.requests().map((r) => r.operation)).toEqual(["sites.list"]);
  });

  it("refreshing ten sites of one project costs one listing", async () => {
    const { ctx, sim } = await harness();
    const project = DEFAULT_IDS.acmeWeb;
    const states = sim.seed.sites
      .filter((s) => s.projectId === project)
      .slice(0, 10)
      .map((s) => ({
        projectId: project,
        siteId: s.id,
        name: s.name,
        subdomain: s.subdomain,
        isDefault: s.is_default,
        originalName: s.name,
        restoreNameOnDelete: true,
        __declared: ["name", "projectId", "siteId"],
      }));
    const results = await Promise.all(states.map((s) => site.read(ctx, { name: s.name, id: s.siteId, state: s })));
    expect(results.map((r) => r.id)).toEqual(states.map((s) => s.siteId));
    // 250 sites in the project: one listing is 3 pages, shared by all ten reads.
    expect(sim.requests("sites.list")).toHaveLength(3);
  });

  it("a live name set by someone else is renamed back with a warning naming what happened", async () => {
    const { ctx, sim } = await harness();
    const [a] = sim.seed.sites.filter((s) => s.projectId === DEFAULT_IDS.acmeDocs);
    const created = await site.create(ctx, { name: "docs", inputs: { projectId: DEFAULT_IDS.acmeDocs, siteId: a!.id, name: "Docs" } });
    await ctx.client().updateSite(a!.id, { name: "Another stack's name" });
    // The destroy is another command: another context, which lists the project afresh.
    const destroy = await harness({}, sim);
    sim.clearRequests();
    await site.remove(destroy.ctx, { name: "docs", id: created.id, state: created.outs });
    expect(destroy.bodies("sites.update")).toEqual([{ name: a!.name }]);
    expect(destroy.messages.map((m) => m.severity)).toEqual(["warning", "info"]);
    expect(destroy.messages[0]!.message).toBe(
      `serviceapi: Site "docs" (id ${a!.id}): its live name is neither the one this stack set nor the one ` +
        "it had when this stack took it over: it was renamed since, by a person or by another stack that manages the same site (one site, one stack). " +
        "Renaming it back to the name this stack found anyway; if another stack manages this site, its destroy will rename it again, to the name that stack found.",
    );
  });
});
