/**
 * A stack written by pulumi-serviceapi 0.1.0 before the restructure keeps working: its state
 * (fixtures/state-0.1.0-lifecycle-subpaths.json, exported from that package) says
 * `require("pulumi-serviceapi/lifecycle/product")` (and `…/site`, `…/task`), subpaths kept forever.
 * Imported into a stack of today's package: a preview with nothing to do, a refresh, a one-field
 * change, and a destroy — all through those old subpaths — while a new resource gets the new name,
 * `pulumi-serviceapi/dynamic/<type>`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServiceApiClient } from "../../provider";
import { DEFAULT_IDS } from "../../simulator/seed";
import { engineSuite, step } from "./suite";
import { ENGINE_TIMEOUT_MS, wire, type StateResource } from "../../scripts/engine/driver";
import { nextWeeklyAt } from "../support/time";

const project = DEFAULT_IDS.acmeDocs;
const FIXTURE = join(__dirname, "fixtures", "state-0.1.0-lifecycle-subpaths.json");
const required = (r: StateResource) =>
  /require\("pulumi-serviceapi\/(\w+)\/(\w+)"\)/.exec(String(r.outputs.__provider))?.slice(1).join("/");

describe("a stack written before the restructure", { timeout: ENGINE_TIMEOUT_MS * 2 }, () => {
  const suite = engineSuite();
  let client: ServiceApiClient;
  beforeAll(() => {
    client = new ServiceApiClient({ baseUrl: suite.sim().url, token: suite.sim().token });
  });
  afterAll(() => client.close());

  it("keeps working through the lifecycle/<type> subpaths: preview, refresh, a one-field change, destroy", async () => {
    const sim = suite.sim();
    const site = sim.seed.sites.find((s) => s.projectId === project)!;
    // The service as the old stack left it.
    const product = await client.createProduct({ projectId: project, title: "Old stack pro", slug: "old-pro" });
    await client.updateSite(site.id, { name: "Docs (old stack)" });
    const engine = await suite.newStack({ token: null, env: { SERVICEAPI_TOKEN: sim.token } });
    // The task's first run, a Monday ahead whenever the test runs (the fixture's own date was fixed, and would have passed).
    const firstRun = nextWeeklyAt(new Date(Date.now() + 30 * 86_400_000), 1, 9);
    const state = JSON.parse(
      readFileSync(FIXTURE, "utf8")
        .replaceAll("__SIM_URL__", sim.url)
        .replaceAll("__PRODUCT_ID__", product.id)
        .replaceAll("__SCHEDULED_AT__", firstRun.toISOString().replace(".000Z", "Z"))
        .replaceAll("__NEXT_RUN_AT__", firstRun.toISOString()),
    );
    await engine.stack.importStack(state);
    const spec = {
      products: { pro: { projectId: project, title: "Old stack pro", slug: "old-pro" } },
      sites: { docs: { projectId: project, siteId: site.id, name: "Docs (old stack)" } },
      tasks: {
        weekly: {
          projectId: project,
          title: "Old stack task",
          prompt: "P",
          scheduledAt: firstRun.toISOString().replace(".000Z", "Z"),
          rrule: "FREQ=WEEKLY",
        },
      },
    };
    await engine.setSpec(spec);
    expect((await engine.resources("Product")).map(required)).toEqual(["lifecycle/product"]);

    await step("a preview of the unchanged program has nothing to do and writes nothing", async () => {
      expect((await engine.preview()).result.changeSummary).toEqual({ same: 4 });
      expect(wire(sim).filter((c) => c.method !== "GET")).toEqual([]);
    });

    await step("refresh reads through the old subpaths and finds nothing changed", async () => {
      const refresh = await engine.refresh();
      expect(refresh.result.summary.resourceChanges).toEqual({ same: 4 });
      expect(
        wire(sim)
          .map((c) => c.operation)
          .sort(),
      ).toEqual(["products.update", "sites.list"]);
    });

    await step("one field changed: one PATCH with one key", async () => {
      await engine.setSpec({ ...spec, products: { pro: { ...spec.products.pro, title: "Old stack pro (2027)" } } });
      const up = await engine.up();
      expect(up.result.summary.resourceChanges).toMatchObject({ update: 1 });
      expect(wire(sim).filter((c) => c.operation === "products.update")).toEqual([
        {
          operation: "products.update",
          method: "PATCH",
          path: `/api/v1/public/products/${product.id}`,
          body: { title: "Old stack pro (2027)" },
        },
      ]);
    });

    await step("a resource added now gets the new subpath name", async () => {
      await engine.setSpec({
        ...spec,
        products: {
          ...spec.products,
          pro: { ...spec.products.pro, title: "Old stack pro (2027)" },
          fresh: { projectId: project, title: "New stack pro" },
        },
      });
      await engine.up();
      const byName = new Map((await engine.resources("Product")).map((r) => [r.urn.split("::").pop(), required(r)]));
      expect(byName.get("fresh")).toBe("dynamic/product");
    });

    await step("destroy archives the products, renames the site back and warns about the task", async () => {
      const destroy = await engine.destroy();
      expect(destroy.result.summary.resourceChanges).toEqual({ delete: 5 });
      expect((await client.updateProduct(product.id, {})).status).toBe("archived");
      const live = await client.listSites({ projectId: project }).toArray();
      expect(live.find((s) => s.id === site.id)!.name).toBe(site.name);
    });
  });
});
