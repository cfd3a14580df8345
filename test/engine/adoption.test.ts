/**
 * Adoption (`adoptId`) under the real CLI: what `pulumi up` will change on the live product shows
 * in `pulumi preview` first — each field with the live value it replaces and the value it sets, a
 * value the program marked secret by name only (test/engine/managed-elsewhere.test.ts) — read with
 * the API's only read (an empty PATCH) and no write; `up` then sends exactly that and says what it sent. An `adoptId` this token
 * cannot see fails the preview, not the merge deploy. Through the dynamic resources and the plugin.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ServiceApiClient, type ProductRecord } from "../../provider";
import { DEFAULT_IDS } from "../../simulator/seed";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { engineSuite } from "./suite";
import { ENGINE_TIMEOUT_MS, expectFailure, wire, type Run } from "../../scripts/engine/driver";

const project = DEFAULT_IDS.acmeDocs;
const LIVE = { description: "Live copy", slug: "legacy-live", externalCheckoutUrl: "https://shop.example.com/legacy-live" };

/** The messages of ours in a run (diagnostics only: the CLI's own diff display shows declared values by design). */
function ours(run: Pick<Run<unknown>, "diagnostics">): string {
  return run.diagnostics
    .filter((d) => d.severity !== "debug" && d.message.includes("serviceapi: "))
    .map((d) => d.message)
    .join("\n");
}

describe("adoption shows in preview what up will change", { timeout: ENGINE_TIMEOUT_MS }, () => {
  const suite = engineSuite();
  let sim: Simulator;
  let client: ServiceApiClient;
  let legacy: ProductRecord;
  beforeAll(() => {
    client = new ServiceApiClient({ baseUrl: suite.sim().url, token: suite.sim().token });
  });
  afterAll(() => client.close());
  beforeEach(async () => {
    sim = suite.sim();
    legacy = await client.createProduct({ projectId: project, title: "Legacy", ...LIVE });
  });

  const changes = (id: string) =>
    `Product "x" (id ${id}): adoptId takes over this existing product, and \`pulumi up\` will change it in one PATCH: ` +
    'sets title ("Legacy" → "Legacy plan"); clears description (now "Live copy"), slug (now "legacy-live"), ' +
    'externalCheckoutUrl (now "https://shop.example.com/legacy-live"). A field the program leaves out is cleared; declare it to keep its live value.';
  const read = (id: string) => ({ operation: "products.update", method: "PATCH", path: `/api/v1/public/products/${id}`, body: {} });

  it("dynamic: preview names every field adoption changes with one read and no write; up sends exactly that", async () => {
    const engine = await suite.newStack();
    const before = sim.counts().products;
    await engine.setSpec({ products: { x: { projectId: project, title: "Legacy plan", adoptId: legacy.id } } });
    const preview = await engine.preview({ diff: true });
    expect(wire(sim)).toEqual([read(legacy.id)]);
    expect(ours(preview)).toContain(changes(legacy.id));

    const up = await engine.up();
    // The read made at check is the adoption's read: one empty PATCH, then the PATCH preview named.
    expect(wire(sim)).toEqual([
      read(legacy.id),
      { ...read(legacy.id), body: { title: "Legacy plan", description: null, slug: null, externalCheckoutUrl: null } },
    ]);
    expect(ours(up)).toContain(
      `serviceapi: adopted Product "x" (id ${legacy.id}): sent PATCH {title, description, slug, externalCheckoutUrl}.`,
    );
    expect(sim.counts().products).toBe(before);
    expect((await engine.preview()).result.changeSummary).toEqual({ same: 2 });
  });

  it("dynamic: a program that declares the live fields adopts with nothing sent, and preview says so", async () => {
    const engine = await suite.newStack();
    await engine.setSpec({ products: { x: { projectId: project, title: "Legacy", ...LIVE, adoptId: legacy.id } } });
    const preview = await engine.preview();
    expect(ours(preview)).toContain(
      `Product "x" (id ${legacy.id}): adoptId takes over this existing product; it already matches the program, ` +
        "so `pulumi up` sends nothing to it.",
    );
    const up = await engine.up();
    expect(wire(sim)).toEqual([read(legacy.id)]);
    expect(ours(up)).toContain(`adopted Product "x" (id ${legacy.id}): it already matched the program; nothing sent.`);
  });

  it("dynamic: the warning says a field left out is cleared only when adoption clears one", async () => {
    const engine = await suite.newStack();
    await engine.setSpec({ products: { x: { projectId: project, title: "Legacy plan", ...LIVE, adoptId: legacy.id } } });
    const preview = ours(await engine.preview());
    expect(preview).toContain(
      `Product "x" (id ${legacy.id}): adoptId takes over this existing product, and \`pulumi up\` will change it in one PATCH: ` +
        'sets title ("Legacy" → "Legacy plan").',
    );
    expect(preview).not.toContain("is cleared");
    // The same product with the description left out: now it says so.
    const { description: _left, ...rest } = LIVE;
    await engine.setSpec({ products: { x: { projectId: project, title: "Legacy plan", ...rest, adoptId: legacy.id } } });
    const clearing = await engine.preview();
    expect(ours(clearing)).toContain(
      'will change it in one PATCH: sets title ("Legacy" → "Legacy plan"); clears description (now "Live copy"). ' +
        "A field the program leaves out is cleared; declare it to keep its live value.",
    );
  });

  it("dynamic: an adoptId no product has (or the token cannot see) fails the preview naming adoptId, with no write", async () => {
    const engine = await suite.newStack();
    const missing = "0b3f2a8e-5b7c-4f1e-9a6d-2c4e8f0a1b3d";
    await engine.setSpec({ products: { x: { projectId: project, title: "Nowhere", adoptId: missing } } });
    const failed = await expectFailure(engine.preview());
    expect(failed.text).toContain(
      "pulumi-nodejs:dynamic/serviceapi:Product resource 'x' has a problem: adoptId names no product this token can see: " +
        "reading it (an empty PATCH, the API's only read) was answered 404. Check the id, and that the token has access to the product's workspace",
    );
    expect(wire(sim)).toEqual([read(missing)]);
    expect(sim.requests().every((r) => r.status === 404)).toBe(true);
  });

  it("plugin: the same warning at preview, attached to the resource, and the same PATCH at up", async () => {
    const yaml = [
      "name: adoption-yaml",
      "runtime: yaml",
      "resources:",
      "  x:",
      "    type: serviceapi:index:Product",
      "    properties:",
      `      projectId: ${project}`,
      "      title: Legacy plan",
      `      adoptId: ${legacy.id}`,
      "",
    ].join("\n");
    const engine = await suite.newStack({ yaml, plugin: true });
    const preview = await engine.preview();
    expect(wire(sim)).toEqual([read(legacy.id)]);
    const warning = preview.diagnostics.find((d) => d.message.includes("adoptId takes over"));
    expect(warning).toMatchObject({ severity: "warning", urn: expect.stringMatching(/::serviceapi:index:Product::x$/) });
    expect(warning!.message).toContain(changes(legacy.id));
    const up = await engine.up();
    expect(wire(sim)).toEqual([
      read(legacy.id),
      { ...read(legacy.id), body: { title: "Legacy plan", description: null, slug: null, externalCheckoutUrl: null } },
    ]);
    expect(ours(up)).toContain(`adopted Product "x" (id ${legacy.id}): sent PATCH {title, description, slug, externalCheckoutUrl}.`);
  });
});
