/**
 * What needs a read is found at preview, and the drift gate sees what it used to miss, under the
 * real CLI: a Site whose siteId is in another project fails `pulumi preview` (a listing, no write);
 * a product archived behind Pulumi's back, whose program declares no status, fails the gate naming
 * `status` and `up` sets it back; drift in a secret field is named (field, never value) — by our
 * message for the dynamic resources, whose diff Pulumi cannot detail, and by the plugin's own
 * detailed diff.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ServiceApiClient } from "../../provider";
import { DEFAULT_IDS } from "../../simulator/seed";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { engineSuite } from "./suite";
import { ENGINE_TIMEOUT_MS, expectFailure, wire } from "../../scripts/engine/driver";

const docs = DEFAULT_IDS.acmeDocs;
const web = DEFAULT_IDS.acmeWeb;

describe("checks that need a read, and drift the gate used to miss", { timeout: ENGINE_TIMEOUT_MS }, () => {
  const suite = engineSuite();
  let sim: Simulator;
  let client: ServiceApiClient;
  beforeAll(() => {
    client = new ServiceApiClient({ baseUrl: suite.sim().url, token: suite.sim().token });
  });
  afterAll(() => client.close());
  beforeEach(() => {
    sim = suite.sim();
  });

  const OTHER_PROJECT =
    "siteId is not a site of the project given as projectId: sites.list returned 3 sites for that project and none has " +
    "this id. Check siteId and projectId (getSite looks a site up by name or subdomain)";

  it("dynamic: a Site whose siteId belongs to another project fails preview naming siteId; only reads were sent", async () => {
    const engine = await suite.newStack();
    const webSite = sim.seed.sites.find((s) => s.projectId === web)!;
    await engine.setSpec({ sites: { home: { projectId: docs, siteId: webSite.id, name: "Renamed" } } });
    const failed = await expectFailure(engine.preview());
    expect(failed.text).toContain(`pulumi-nodejs:dynamic/serviceapi:Site resource 'home' has a problem: ${OTHER_PROJECT}`);
    expect(wire(sim).map((c) => c.operation)).toEqual(["sites.list"]);
    // Our message names the field, not its value (any input may be a secret).
    expect(failed.diagnostics.map((d) => d.message).join("\n")).not.toContain(webSite.id);
  });

  it("plugin: the same check at preview", async () => {
    const webSite = sim.seed.sites.find((s) => s.projectId === web)!;
    const yaml = [
      "name: site-yaml",
      "runtime: yaml",
      "resources:",
      "  home:",
      "    type: serviceapi:index:Site",
      "    properties:",
      `      projectId: ${docs}`,
      `      siteId: ${webSite.id}`,
      "      name: Renamed",
      "",
    ].join("\n");
    const engine = await suite.newStack({ yaml, plugin: true });
    const failed = await expectFailure(engine.preview());
    expect(failed.text).toContain(`serviceapi:index:Site resource 'home' has a problem: ${OTHER_PROJECT}`);
    expect(wire(sim).map((c) => c.operation)).toEqual(["sites.list"]);
  });

  it("dynamic: a product archived behind Pulumi's back fails the gate naming status; up sets it back; declaring archived accepts it", async () => {
    const engine = await suite.newStack();
    await engine.setSpec({ products: { plan: { projectId: docs, title: "Archived behind", slug: "archived-behind" } } });
    await engine.up();
    const [plan] = await engine.resources("Product");
    await client.updateProduct(plan!.id, { status: "archived" });

    const gate = await expectFailure(engine.preview({ refresh: true, expectNoChanges: true, diff: true }));
    expect(gate.message).toContain("no changes were expected for preview but changes were proposed");
    expect(gate.text).toMatch(/~ status\s*: "draft" => "archived"/);
    expect(gate.text).toMatch(
      new RegExp(
        `serviceapi: Product \\\\?"plan\\\\?" \\(id ${plan!.id}\\) was archived on the service, not by Pulumi\\. ` +
          "The program declares no status, so `pulumi up` sets back the status the stack last recorded",
      ),
    );
    expect(gate.text).toMatch(
      new RegExp(`serviceapi: Product \\\\?"plan\\\\?" \\(id ${plan!.id}\\): \`pulumi up\` will send PATCH \\{status\\}\\.`),
    );

    await engine.up({ refresh: true });
    expect(wire(sim).filter((c) => c.body !== null && Object.keys(c.body as object).length > 0)).toEqual([
      { operation: "products.update", method: "PATCH", path: `/api/v1/public/products/${plan!.id}`, body: { status: "draft" } },
    ]);
    expect((await client.updateProduct(plan!.id, {})).status).toBe("draft");
    await engine.preview({ refresh: true, expectNoChanges: true });

    // Archived again, and this time the program accepts it.
    await client.updateProduct(plan!.id, { status: "archived" });
    await engine.setSpec({
      products: { plan: { projectId: docs, title: "Archived behind", slug: "archived-behind", status: "archived" } },
    });
    await engine.up({ refresh: true });
    expect(wire(sim).filter((c) => c.body !== null && Object.keys(c.body as object).length > 0)).toEqual([]);
    await engine.preview({ refresh: true, expectNoChanges: true });
  });

  it("dynamic: drift in a secret field is named by field, never by value", async () => {
    const engine = await suite.newStack();
    await engine.setSpec({ secretInputs: true, products: { "secret-plan": { projectId: docs, title: "Codename Falcon" } } });
    await engine.up();
    const [plan] = await engine.resources("Product");
    await client.updateProduct(plan!.id, { title: "Codename Osprey" });
    const gate = await expectFailure(engine.preview({ refresh: true, expectNoChanges: true, diff: true }));
    // The CLI shows `title: [secret]` on both sides; our line names the field.
    expect(gate.text).toMatch(
      new RegExp(`Product \\\\?"secret-plan\\\\?" \\(id ${plan!.id}\\): changed on the service since the last \`pulumi up\`: title\\.`),
    );
    expect(gate.text).toMatch(
      new RegExp(`Product \\\\?"secret-plan\\\\?" \\(id ${plan!.id}\\): \`pulumi up\` will send PATCH \\{title\\}\\.`),
    );
    expect(gate.visible).not.toContain("Falcon");
    expect(gate.visible).not.toContain("Osprey");
    const up = await engine.up({ refresh: true });
    expect(up.text).toMatch(new RegExp(`updated Product \\\\?"secret-plan\\\\?" \\(id ${plan!.id}\\): sent PATCH \\{title\\}\\.`));
    expect(up.visible).not.toContain("Falcon");
  });

  it("plugin: drift in a secret field shows in the CLI's own diff as [diff: ~title]", async () => {
    const yaml = [
      "name: secret-yaml",
      "runtime: yaml",
      "resources:",
      "  secret-plan:",
      "    type: serviceapi:index:Product",
      "    properties:",
      `      projectId: ${docs}`,
      "      title:",
      "        fn::secret: Codename Falcon",
      "      slug: secret-plan",
      "",
    ].join("\n");
    const engine = await suite.newStack({ yaml, plugin: true });
    await engine.up();
    const [plan] = await engine.resources("Product", "plugin");
    await client.updateProduct(plan!.id, { title: "Codename Osprey" });
    const gate = await expectFailure(engine.preview({ refresh: true, expectNoChanges: true }));
    expect(gate.text).toContain("[diff: ~title]");
    const detailed = await expectFailure(engine.preview({ refresh: true, expectNoChanges: true, diff: true }));
    expect(detailed.text).toMatch(/~ title\s*: \[secret\] => \[secret\]/);
    expect(detailed.visible).not.toContain("Falcon");
    expect(detailed.visible).not.toContain("Osprey");
  });
});
