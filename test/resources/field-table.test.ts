/**
 * The contract's product field table (`PRODUCT_FIELD_SPECS`) walked field by field: each field, with
 * the two example values the table gives it, through every place derived from the table — the
 * simulator's columns, create (POST, or one PATCH after for a field a create cannot take), update
 * (a PATCH of exactly that field), leaving it out, drift found at refresh, import, adoption and
 * give-back, the catalog's entries and `drift --write`, the plugin schema and docs/resources.md.
 * A field added to the table is tested here without editing this file; a place that misses it fails.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { parse, stringify } from "yaml";
import { parseCatalog } from "../../provider/catalog/catalog";
import { writeDrift } from "../../provider/catalog/write-back";
import { PRODUCT_FIELD_NAMES, PRODUCT_FIELD_SPECS, type ProductField } from "../../provider/contract/schemas";
import { packageSchema } from "../../provider/plugin/schema";
import { jsonType } from "../../provider/resources/field-table";
import { driftedFields, product as lifecycle, productChanges, productInputFailures } from "../../provider/resources/product";
import type { ProductOutputs } from "../../provider/resources/product";
import { withDefaults } from "../../provider/resources/with-defaults";
import { DEFAULT_IDS } from "../../simulator/seed";
import { REPO } from "../../scripts/repo";
import { harness, type Harness } from "./harness";

const product = withDefaults(lifecycle);
const project = DEFAULT_IDS.acmeWeb;
const name = "walked";

/** A state as the engine hands it back: secret outputs opened. */
function opened(outs: object): ProductOutputs {
  const state = { ...outs } as Record<string, unknown>;
  const record = state.__takenOver as { value?: unknown } | undefined;
  if (record?.value !== undefined) state.__takenOver = record.value;
  return state as unknown as ProductOutputs;
}

/** The live record, read as the provider reads it (an empty PATCH, the API's only read). */
async function live(h: Harness, id: string): Promise<Record<string, unknown>> {
  return (await h.ctx.client().updateProduct(id, {})) as unknown as Record<string, unknown>;
}

describe.each(PRODUCT_FIELD_NAMES)("the product field %s", (field: ProductField) => {
  const spec = PRODUCT_FIELD_SPECS[field];
  const [a, b] = spec.examples;
  /** The program's inputs declaring `value` for this field (and a title, every product's required field). */
  const declaring = (value: unknown) => ({ projectId: project, title: "Walked", [field]: value });

  it("has two different examples, each a value a request may send", () => {
    expect(a).not.toEqual(b);
    for (const value of [a, b]) expect(productInputFailures(declaring(value)), JSON.stringify(value)).toEqual([]);
  });

  it("create: the POST carries it, or one PATCH after for a field a create cannot take; the state and the service hold it", async () => {
    const h = await harness();
    const { id, outs } = await product.create(h.ctx, { name, inputs: declaring(a) });
    const [post, ...after] = h.bodies();
    if (spec.create === false) {
      expect(post).not.toHaveProperty(field);
      expect(after).toEqual([{ [field]: a }]);
    } else {
      expect(post).toMatchObject({ [field]: a });
      expect(after).toEqual([]);
    }
    expect(outs[field]).toEqual(a);
    expect((await live(h, id))[field]).toEqual(a);
  });

  it("update: a change is one PATCH of exactly this field, as the diff and productChanges say", async () => {
    const h = await harness();
    const { id, outs } = await product.create(h.ctx, { name, inputs: declaring(a) });
    h.sim.clearRequests();
    const news = declaring(b);
    expect((await product.diff(h.ctx, { name, id, olds: outs, news })).changed).toEqual([field]);
    expect(productChanges(outs, news)).toEqual([{ field, from: a, to: b }]);
    const { outs: after } = await product.update(h.ctx, { name, id, olds: outs, news });
    expect(h.bodies()).toEqual([{ [field]: b }]);
    expect(after[field]).toEqual(b);
    expect((await live(h, id))[field]).toEqual(b);
  });

  it("left out of the program: required is refused by name; nullable is cleared with null; any other is left as it is", async () => {
    const { [field]: _left, ...without } = declaring(a);
    if (spec.create === "required") {
      expect(productInputFailures(without).map((f) => f.reason)).toEqual([expect.stringContaining(field)]);
      return;
    }
    const h = await harness();
    const { id, outs } = await product.create(h.ctx, { name, inputs: declaring(a) });
    h.sim.clearRequests();
    await product.update(h.ctx, { name, id, olds: outs, news: without });
    expect(h.bodies()).toEqual(spec.nullable ? [{ [field]: null }] : []);
    expect((await live(h, id))[field]).toEqual(spec.nullable ? null : a);
  });

  it("drift: changed on the service, refresh shows the live value, driftedFields names it, up sets it back", async () => {
    const h = await harness();
    const declared = declaring(a);
    const { id, outs } = await product.create(h.ctx, { name, inputs: declared });
    await h.ctx.client().updateProduct(id, { [field]: b });
    const refreshed = await product.read(h.ctx, { name, id, state: outs });
    expect(refreshed.props![field]).toEqual(b);
    expect(refreshed.inputs![field]).toEqual(b);
    expect(driftedFields(outs, refreshed.props!, declared)).toEqual([{ field, from: a, to: b }]);
    expect((await product.diff(h.ctx, { name, id, olds: refreshed.props!, news: declared })).changed).toEqual([field]);
    h.sim.clearRequests();
    await product.update(h.ctx, { name, id, olds: refreshed.props!, news: declared });
    expect(h.bodies()).toEqual([{ [field]: a }]);
  });

  it("import: the live value becomes an input", async () => {
    const h = await harness();
    const { id } = await product.create(h.ctx, { name: "made-elsewhere", inputs: declaring(a) });
    const imported = await product.importRecord(h.ctx, { name, id: `${project}/${id}`, hint: {} });
    expect(imported.inputs![field]).toEqual(a);
    expect(imported.props![field]).toEqual(a);
  });

  it("adoption and give-back: taken over as found, set by one PATCH, given back as found at delete", async () => {
    const h = await harness();
    const { id } = await product.create(h.ctx, { name: "made-elsewhere", inputs: declaring(a) });
    h.sim.clearRequests();
    const { outs } = await product.create(h.ctx, { name, inputs: { ...declaring(b), adoptId: id } });
    expect(h.bodies()).toEqual([{}, { [field]: b }]);
    // The destroy is another command: a provider process of its own.
    const destroy = await harness({}, h.sim);
    h.sim.clearRequests();
    await product.remove(destroy.ctx, { name, id, state: opened(outs) });
    // A status is given back only when that makes the product no more live than it is (archived < draft < active).
    const livelier =
      field === "status" && ["archived", "draft", "active"].indexOf(a as string) > ["archived", "draft", "active"].indexOf(b as string);
    expect(h.bodies()).toEqual(livelier ? [{}] : [{}, { [field]: a }]);
    expect((await live(h, id))[field]).toEqual(livelier ? b : a);
  });

  it("catalog: an entry declares it, checked as the resource checks it; drift --write writes the service's value", () => {
    const dir = mkdtempSync(join(tmpdir(), "field-table-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const text = stringify({ walked: { project: "Acme Web", title: "Walked", [field]: a } });
    writeFileSync(join(dir, "plans.yaml"), text);
    const catalog = parseCatalog([{ file: "plans.yaml", text }]);
    expect(catalog.get("walked")!.entry).toMatchObject({ [field]: a });
    writeDrift(dir, catalog, [{ key: "walked", op: "drift", fields: [{ field, from: a, to: b }], reasons: [] }]);
    expect((parse(readFileSync(join(dir, "plans.yaml"), "utf8")) as Record<string, Record<string, unknown>>).walked![field]).toEqual(b);
    expect(() =>
      parseCatalog([{ file: "plans.yaml", text: stringify({ walked: { project: "Acme Web", title: "Walked", [field]: {} } }) }]),
    ).toThrow(`plans.yaml: walked: ${field} `);
  });

  it("plugin schema and docs: an input of the Product with the contract's description and JSON type; docs/resources.md lists it", () => {
    const resources = packageSchema().resources as Record<
      string,
      { inputProperties: Record<string, { type?: string; description: string }> }
    >;
    const input = resources["serviceapi:index:Product"]!.inputProperties[field]!;
    expect(input.description.startsWith(spec.description)).toBe(true);
    expect(input.type ?? "string").toBe(jsonType(spec.value));
    const docs = readFileSync(join(REPO, "docs", "resources.md"), "utf8");
    const section = docs.slice(docs.indexOf("## `Product`")).split("\n## ")[0]!;
    expect(section).toMatch(new RegExp(`^\\| \`${field}\` \\|`, "m"));
  });
});

describe("the wire type a field's schema gives (the plugin schema's type, how stored inputs are read back)", () => {
  it("is the value's type, nullable and optional or not: an integer field is never read as a string", async () => {
    const { z } = await import("zod");
    const integer = z.number().int().min(0);
    expect([integer, integer.nullable(), integer.nullable().optional(), integer.optional()].map(jsonType)).toEqual(
      Array(4).fill("integer"),
    );
    expect([z.string(), z.string().nullable().optional(), z.enum(["a", "b"]).optional()].map(jsonType)).toEqual(Array(3).fill("string"));
    expect(jsonType(z.boolean().nullable())).toBe("boolean");
  });
});
