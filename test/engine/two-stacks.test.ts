/**
 * Two stacks of one catalog on one service (issue 26 §1): `dev` creates a product, `prod` (another
 * projectId: the API cannot say which project a product is in) takes it over — with `adoptId`, or
 * through the plugin with `adoptId` or the `import` option. `prod`'s adoption preview says what
 * `prod` manages from then on and that the project is taken on trust; `prod`'s destroy gives the
 * product back as `prod` found it instead of archiving it, so `dev`'s drift gate still passes. A
 * product adopted before the record of what was found was kept is left as it is. Each stack has a
 * state backend of its own here, where the adoption check cannot see the other (one backend:
 * test/engine/managed-elsewhere.test.ts).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ServiceApiClient } from "../../provider";
import { DEFAULT_IDS } from "../../simulator/seed";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { engineSuite, step } from "./suite";
import { ENGINE_TIMEOUT_MS, EngineStack, wire, type Run } from "../../scripts/engine/driver";

const devProject = DEFAULT_IDS.acmeDocs;
const prodProject = DEFAULT_IDS.acmeWeb;

/** Our messages in a run, one per line. */
function ours(run: Pick<Run<unknown>, "diagnostics">): string {
  return run.diagnostics
    .filter((d) => d.message.includes("serviceapi: "))
    .map((d) => d.message.trim())
    .join("\n");
}

const read = (id: string) => ({ operation: "products.update", method: "PATCH", path: `/api/v1/public/products/${id}`, body: {} });
const patch = (id: string, body: object) => ({ ...read(id), body });

describe("two stacks, one service", { timeout: ENGINE_TIMEOUT_MS * 2 }, () => {
  const suite = engineSuite();
  let sim: Simulator;
  let client: ServiceApiClient;
  let prod: EngineStack | undefined;
  beforeAll(() => {
    client = new ServiceApiClient({ baseUrl: suite.sim().url, token: suite.sim().token });
  });
  afterAll(() => client.close());
  beforeEach(() => {
    sim = suite.sim();
    return async () => {
      await prod?.dispose();
      prod = undefined;
    };
  });

  /** `dev` declares `products` and creates them; returns the stack and the ids by name. */
  async function devStack(products: Record<string, { title: string; description?: string; slug: string }>) {
    const dev = await suite.newStack();
    await dev.setSpec({ products: Object.fromEntries(Object.entries(products).map(([n, p]) => [n, { projectId: devProject, ...p }])) });
    await dev.up();
    const ids = Object.fromEntries((await dev.resources("Product")).map((r) => [r.urn.split("::").pop()!, r.id]));
    return { dev, ids };
  }

  async function expectDevGatePasses(dev: EngineStack) {
    const gate = await dev.preview({ refresh: true, expectNoChanges: true });
    expect(gate.result.changeSummary).toEqual({ same: 2 });
  }

  it("dynamic: prod adopts dev's product; its preview says what prod owns; its destroy gives it back as dev left it", async () => {
    const { dev, ids } = await devStack({ pro: { title: "Pro", description: "Dev copy", slug: "pro" } });
    const id = ids.pro!;
    const live = await client.updateProduct(id, {});
    prod = await EngineStack.create(sim);
    // prod's entry: another title, and no description (adoption clears it).
    await prod.setSpec({ products: { pro: { projectId: prodProject, title: "Pro (prod)", slug: "pro", adoptId: id } } });

    await step(
      "the adoption preview says what prod manages from then on, that projectId is taken on trust, and what destroy does",
      async () => {
        const preview = await prod!.preview();
        expect
          .soft(ours(preview))
          .toContain(
            `Product "pro" (id ${id}): adoptId takes over this existing product, and \`pulumi up\` will change it in one PATCH: ` +
              'sets title ("Pro" → "Pro (prod)"); clears description (now "Dev copy"). A field the program leaves out is cleared; declare it to keep its live value. ' +
              "From then on this stack manages its title, description, slug and externalCheckoutUrl: every `pulumi up` sets them as " +
              "the program declares, undoing changes made elsewhere (adopt a product in one stack only). projectId is taken on trust: " +
              "the API cannot say which project a product is in. `pulumi destroy` does not archive it: it gives back the fields this " +
              'stack changed, as it found them (declare onDelete: "archive" to archive it instead).',
          );
      },
    );

    await step("prod's up sends what its preview named", async () => {
      await prod!.up();
      expect(wire(sim)).toEqual([read(id), patch(id, { title: "Pro (prod)", description: null })]);
      // What prod found (to give back) is in its state as a secret: no value of the record in plain text.
      expect(prod!.stateFileText()).toContain("__takenOver");
      expect(prod!.stateFileText()).not.toContain("Dev copy");
    });

    await step("prod's destroy gives back title and description as dev left them; nothing archived", async () => {
      const destroy = await prod!.destroy();
      console.log(`prod destroy sent: ${JSON.stringify(wire(sim).map((c) => c.body))}`);
      expect(wire(sim)).toEqual([read(id), patch(id, { title: "Pro", description: "Dev copy" })]);
      expect
        .soft(ours(destroy))
        .toContain(
          `Product "pro" (id ${id}): given back as found: sent PATCH {title, description} with the values it had when this stack took it over. ` +
            'It is not archived: this stack took it over rather than creating it (declare onDelete: "archive" for that).',
        );
      const after = await client.updateProduct(id, {});
      expect([after.title, after.description, after.slug, after.status]).toEqual(["Pro", "Dev copy", "pro", live.status]);
    });

    await step("dev's drift gate passes: dev's product is as dev declares it", async () => {
      await expectDevGatePasses(dev);
    });
  });

  it("plugin (YAML): prod takes over dev's products with adoptId and the import option; destroy gives both back", async () => {
    const { dev, ids } = await devStack({
      a: { title: "A", slug: "a" },
      b: { title: "B", description: "B copy", slug: "b" },
    });
    const yaml = [
      "name: prod-yaml",
      "runtime: yaml",
      "resources:",
      "  a:",
      "    type: serviceapi:index:Product",
      "    properties:",
      `      projectId: ${prodProject}`,
      "      title: A (prod)",
      "      slug: a",
      `      adoptId: ${ids.a}`,
      "  b:",
      "    type: serviceapi:index:Product",
      "    properties:",
      `      projectId: ${prodProject}`,
      "      title: B (prod)",
      "      description: B copy",
      "      slug: b",
      "    options:",
      `      import: ${prodProject}/${ids.b}`,
      "",
    ].join("\n");
    prod = await EngineStack.create(sim, { yaml, plugin: true });

    await step("the adoption preview says what prod owns, through the plugin too", async () => {
      const preview = await prod!.preview();
      const warning = preview.diagnostics.find((d) => d.message.includes("adoptId takes over"));
      expect(warning).toMatchObject({ severity: "warning", urn: expect.stringMatching(/::serviceapi:index:Product::a$/) });
      expect
        .soft(warning!.message)
        .toContain(
          `Product "a" (id ${ids.a}): adoptId takes over this existing product, and \`pulumi up\` will change it in one PATCH: sets title ("A" → "A (prod)"). ` +
            "From then on this stack manages its title, description, slug and externalCheckoutUrl",
        );
      expect.soft(warning!.message).toContain("projectId is taken on trust: the API cannot say which project a product is in.");
    });

    await step("prod's up takes both over and sets its titles", async () => {
      const up = await prod!.up();
      expect(up.result.summary.resourceChanges).toMatchObject({ create: 2, import: 1, update: 1 }); // the default provider, a; b imported, then updated
      const sent = wire(sim).filter((c) => JSON.stringify(c.body) !== "{}");
      expect(sent.map((c) => [c.path, c.body]).sort()).toEqual(
        [
          [`/api/v1/public/products/${ids.a}`, { title: "A (prod)" }],
          [`/api/v1/public/products/${ids.b}`, { title: "B (prod)" }],
        ].sort(),
      );
    });

    await step("prod's destroy gives both products back as found; nothing archived", async () => {
      const destroy = await prod!.destroy();
      const sent = wire(sim).filter((c) => JSON.stringify(c.body) !== "{}");
      console.log(`prod destroy sent: ${JSON.stringify(sent.map((c) => c.body))}`);
      expect(sent.map((c) => [c.path, c.body]).sort()).toEqual(
        [
          [`/api/v1/public/products/${ids.a}`, { title: "A" }],
          [`/api/v1/public/products/${ids.b}`, { title: "B" }],
        ].sort(),
      );
      for (const name of ["a", "b"])
        expect.soft(ours(destroy)).toContain(`Product "${name}" (id ${ids[name]}): given back as found: sent PATCH {title}`);
      expect(
        sim
          .products()
          .filter((p) => p.id === ids.a || p.id === ids.b)
          .map((p) => p.status),
      ).not.toContain("archived");
    });

    await step("dev's drift gate passes", async () => {
      const gate = await dev.preview({ refresh: true, expectNoChanges: true });
      expect(gate.result.changeSummary).toEqual({ same: 3 });
    });
  });

  it("a product adopted before the record of what was found: destroy leaves it as it is, and says so", async () => {
    const { dev, ids } = await devStack({ pro: { title: "Pro", description: "Dev copy", slug: "pro" } });
    const id = ids.pro!;
    prod = await EngineStack.create(sim);
    await prod.setSpec({ products: { pro: { projectId: prodProject, title: "Pro", description: "Dev copy", slug: "pro", adoptId: id } } });
    await prod.up();
    // The state as an older version wrote it: no record of what it found, no marker.
    const state = (await prod.stack.exportStack()) as { deployment: { resources: { type: string; outputs: Record<string, unknown> }[] } };
    for (const r of state.deployment.resources) {
      delete r.outputs.__takenOver;
      delete r.outputs.__createdByThisStack;
    }
    await prod.stack.importStack(state as never);
    const destroy = await prod.destroy();
    console.log(`prod destroy sent: ${JSON.stringify(wire(sim).map((c) => c.body))}`);
    expect(wire(sim)).toEqual([]);
    expect
      .soft(ours(destroy))
      .toContain(
        `Product "pro" (id ${id}): nothing sent; it was adopted (adoptId) by a version of pulumi-serviceapi that did not record what it ` +
          'found, so it is left as it is, not archived. To archive it, declare onDelete: "archive" and run `pulumi up` before `pulumi destroy`.',
      );
    await expectDevGatePasses(dev);
  });
});
