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

  it("a live name set by someone else is kept, with a warning naming what happened; a refresh in between changes nothing", async () => {
    const { ctx, sim } = await harness();
    const [a] = sim.seed.sites.filter((s) => s.projectId === DEFAULT_IDS.acmeDocs);
    const created = await site.create(ctx, { name: "docs", inputs: { projectId: DEFAULT_IDS.acmeDocs, siteId: a!.id, name: "Docs" } });
    await ctx.client().updateSite(a!.id, { name: "Another stack's name" });
    // A refresh (another command) records the live name as the state's `name`; the name this stack set is kept apart.
    const refresh = await harness({}, sim);
    const refreshed = await site.read(refresh.ctx, { name: "docs", id: created.id, state: created.outs });
    expect(refreshed.props).toMatchObject({ name: "Another stack's name" });
    // The destroy is another command: another context, which lists the project afresh.
    const destroy = await harness({}, sim);
    sim.clearRequests();
    await site.remove(destroy.ctx, { name: "docs", id: created.id, state: refreshed.props! });
    expect(destroy.bodies("sites.update")).toEqual([]);
    expect(destroy.messages).toEqual([
      {
        severity: "warning",
        message:
          `serviceapi: Site "docs" (id ${a!.id}): nothing sent; its live name is neither the one this stack set nor the one ` +
          "it had when this stack took it over: it was renamed since, by a person or by another stack that manages the same site (one site, one stack). " +
          "It keeps that name: giving back the name this stack found would undo that change. Rename it by hand if it should get its original name back.",
      },
    ]);
    // Back to the name this stack set: the destroy gives back the original name.
    await ctx.client().updateSite(a!.id, { name: "Docs" });
    const again = await harness({}, sim);
    sim.clearRequests();
    await site.remove(again.ctx, { name: "docs", id: created.id, state: refreshed.props! });
    expect(again.bodies("sites.update")).toEqual([{ name: a!.name }]);
  });

  it("the name this stack set is kept in the state as a secret, and survives an update that sends nothing", async () => {
    const { ctx, sim } = await harness();
    const [a] = sim.seed.sites.filter((s) => s.projectId === DEFAULT_IDS.acmeDocs);
    const inputs = { projectId: DEFAULT_IDS.acmeDocs, siteId: a!.id, name: "Docs" };
    const created = await site.create(ctx, { name: "docs", inputs });
    const secret = { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", value: "Docs" };
    expect(created.outs).toMatchObject({ __nameSet: secret });
    // The engine hands the state back with secrets opened.
    const plain = { ...created.outs, __nameSet: "Docs" };
    const { outs } = await site.update(ctx, { name: "docs", id: created.id, olds: plain, news: { ...inputs, restoreNameOnDelete: false } });
    expect(outs).toMatchObject({ __nameSet: secret, restoreNameOnDelete: false });
  });
});
