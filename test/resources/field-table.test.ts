/**
 * The contract's field tables (`PRODUCT_FIELD_SPECS`, `SITE_FIELD_SPECS`, `TASK_FIELD_SPECS`) walked
 * field by field: each field, with the two example values its table gives it, through every place
 * derived from the table — the simulator's columns, create (a product's POST, or one PATCH after for
 * a field a create cannot take; a site's take-over; a task's POST), update (a PATCH of exactly that
 * field) or replacement (a task), leaving it out, drift found at refresh where the API can read the
 * record, import, adoption and give-back where they apply, the catalog's entries and `drift --write`
 * (products), the plugin schema and docs/resources.md. A field added to a table is tested here
 * without editing this file; a place that misses it fails.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { parse, stringify } from "yaml";
import { parseCatalog } from "../../provider/catalog/catalog";
import { writeDrift } from "../../provider/catalog/write-back";
import type { FieldSpec } from "../../provider/contract/fields";
import {
  PRODUCT_FIELD_NAMES,
  PRODUCT_FIELD_SPECS,
  SITE_FIELD_SPECS,
  TASK_FIELD_SPECS,
  type ProductField,
  type SiteFieldSpec,
} from "../../provider/contract/schemas";
import { packageSchema } from "../../provider/plugin/schema";
import { apiFields } from "../../provider/resources/api-fields";
import { revealed } from "../../provider/resources/secret-output";
import { Failures, checkInputs } from "../../provider/resources/checks";
import { jsonType, type ResourceFields } from "../../provider/resources/field-table";
import { SITE, SITE_FIELDS, originalKey, site as siteLifecycle, type SiteOutputs } from "../../provider/resources/site";
import { TASK, TASK_FIELDS, task as taskLifecycle } from "../../provider/resources/task";
import { driftedFields, product as lifecycle, productChanges, productInputFailures } from "../../provider/resources/product";
import { withDefaults } from "../../provider/resources/with-defaults";
import { DEFAULT_IDS } from "../../simulator/seed";
import { documentedInputs, documentedSection } from "../helpers";
import { daysAhead } from "../support/time";
import { harness, type Harness } from "./harness";

/** A resource of the plugin's schema, as the walk reads it. */
interface SchemaResource {
  inputProperties: Record<string, { type?: string; description: string; willReplaceOnChanges?: boolean }>;
  requiredInputs: string[];
  properties: Record<string, { type?: string; description: string }>;
}

const product = withDefaults(lifecycle);
const project = DEFAULT_IDS.acmeWeb;
const name = "walked";

/** A state as the engine hands it back: secret outputs (what a product or a site was when taken over, …) opened. */
function opened<T extends object>(outs: T): T {
  return Object.fromEntries(Object.entries(outs).map(([key, value]) => [key, revealed(value)])) as T;
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
});

// ---- Site: taken over, updated in place, given back; read from the project's listing ----

const siteProject = DEFAULT_IDS.acmeDocs;
const site = withDefaults(siteLifecycle);

/** A site as if made elsewhere, with `values` for the walked field (the rest the seed's rule: a name, a subdomain). */
function existingSite(h: Harness, values: Record<string, unknown>) {
  return h.sim.addSite({ projectId: siteProject, name: "Walked", subdomain: "walked", ...values });
}

/** The site as the project's listing shows it now. */
async function listed(h: Harness, id: string): Promise<Record<string, unknown>> {
  const sites = await h.ctx.client().listSites({ projectId: siteProject }).toArray();
  return sites.find((s) => s.id === id) as Record<string, unknown>;
}

/** The failures of the table's own checks (what `check` refuses before any read). */
function tableFailures(fields: ResourceFields<unknown>, inputs: Record<string, unknown>): string[] {
  const failures = new Failures();
  checkInputs(failures, fields, inputs);
  return failures.list.map((f) => f.reason);
}

/** A field only the service sets: two different examples a response may carry, and a program that sets it is refused by name. */
function itIsAnOutput(fields: ResourceFields<unknown>, spec: FieldSpec, property: string, inputs: Record<string, unknown>): void {
  it("has two different examples, each a value a response may carry; a program cannot set it", () => {
    const [a, b] = spec.examples;
    expect(a).not.toEqual(b);
    for (const value of [a, b]) expect(spec.record!.safeParse(value).success, JSON.stringify(value)).toBe(true);
    expect(tableFailures(fields, { ...inputs, [property]: a })).toEqual([
      `${property} is an output of ${fields.resource}, set by the service; it cannot be set`,
    ]);
  });
}

describe.each(SITE.inputs)("the site field %s (an input: set by the take-over, updated in place, given back)", (field) => {
  const spec: FieldSpec = SITE_FIELD_SPECS[field as keyof typeof SITE_FIELD_SPECS];
  const property = SITE.property(field);
  const [a, b] = spec.examples;
  /** The program's inputs for `existing`, declaring `value` for this field (and the site's name, which every Site declares). */
  const declaring = (existing: { id: string; name?: string }, value: unknown) => ({
    projectId: siteProject,
    siteId: existing.id,
    name: existing.name,
    [property]: value,
  });

  it("has two different examples, each a value a request may send", () => {
    expect(a).not.toEqual(b);
    for (const value of [a, b]) {
      expect(tableFailures(SITE_FIELDS, declaring({ id: project, name: "Walked" }, value)), JSON.stringify(value)).toEqual([]);
    }
  });

  it("take-over: one PATCH of this field when it differs; the state holds it, and what it was", async () => {
    const h = await harness();
    const existing = existingSite(h, { [field]: a });
    const same = await site.create(h.ctx, { name, inputs: declaring(existing, a) });
    expect(h.bodies("sites.update")).toEqual([]);
    expect(same.outs).toMatchObject({ [property]: a, [originalKey(field)]: a });
    const { outs } = await site.create(h.ctx, { name: "again", inputs: declaring(existing, b) });
    expect(h.bodies("sites.update")).toEqual([{ [field]: b }]);
    expect(outs).toMatchObject({ [property]: b, [originalKey(field)]: a });
    expect((await listed(h, existing.id))[field]).toEqual(b);
  });

  it("update: a change is one PATCH of exactly this field, in place, as the diff says", async () => {
    const h = await harness();
    const existing = existingSite(h, { [field]: a });
    const { id, outs } = await site.create(h.ctx, { name, inputs: declaring(existing, a) });
    const news = declaring(existing, b);
    expect(await site.diff(h.ctx, { name, id, olds: outs, news })).toEqual({ changes: true, replaces: [], changed: [property] });
    const { outs: after } = await site.update(h.ctx, { name, id, olds: outs, news });
    expect(h.bodies("sites.update")).toEqual([{ [field]: b }]);
    expect(after[property as keyof typeof after]).toEqual(b);
    expect((await listed(h, existing.id))[field]).toEqual(b);
  });

  it("left out of the program: required is refused by name; any other is left as it is", async () => {
    const h = await harness();
    const existing = existingSite(h, { [field]: a });
    const { [property]: _left, ...without } = declaring(existing, b);
    if (spec.create === "required") {
      expect(tableFailures(SITE_FIELDS, without)).toEqual([`${property} is required`]);
      return;
    }
    const { outs } = await site.create(h.ctx, { name, inputs: without });
    expect(h.bodies("sites.update")).toEqual([]);
    expect(outs[property as keyof typeof outs]).toEqual(a);
  });

  it("drift: changed on the service, refresh shows the live value from the listing, up sets it back", async () => {
    const h = await harness();
    const existing = existingSite(h, { [field]: a });
    const declared = declaring(existing, a);
    const { id, outs } = await site.create(h.ctx, { name, inputs: declared });
    await h.ctx.client().updateSite(id, { [field]: b });
    // A refresh is another command: a provider process (and a listing) of its own.
    const refresh = await harness({}, h.sim);
    const refreshed = await site.read(refresh.ctx, { name, id, state: opened(outs) });
    expect(refreshed.props![property as keyof SiteOutputs]).toEqual(b);
    expect(refreshed.inputs![property]).toEqual(b);
    expect((await site.diff(refresh.ctx, { name, id, olds: refreshed.props!, news: declared })).changed).toEqual([property]);
    h.sim.clearRequests();
    await site.update(refresh.ctx, { name, id, olds: refreshed.props!, news: declared });
    expect(h.bodies("sites.update")).toEqual([{ [field]: a }]);
  });

  it("import: the live value becomes an input, and what the site is given back at delete", async () => {
    const h = await harness();
    const existing = existingSite(h, { [field]: a });
    const imported = await site.importRecord(h.ctx, { name, id: `${siteProject}/${existing.id}`, hint: {} });
    expect(imported.inputs![property]).toEqual(a);
    expect(imported.props).toMatchObject({ [property]: a, [originalKey(field)]: a });
  });

  it("give-back: taken over as found, set by one PATCH, given back as found at delete", async () => {
    const h = await harness();
    const existing = existingSite(h, { [field]: a });
    const { id, outs } = await site.create(h.ctx, { name, inputs: declaring(existing, b) });
    // The destroy is another command: a provider process of its own.
    const destroy = await harness({}, h.sim);
    h.sim.clearRequests();
    await site.remove(destroy.ctx, { name, id, state: opened(outs) });
    expect(h.bodies("sites.update")).toEqual([{ [field]: a }]);
    expect((await listed(h, id))[field]).toEqual(a);
  });
});

describe.each(SITE.outputs)("the site field %s (set by the service: an output of Site)", (field) => {
  const spec: FieldSpec = SITE_FIELD_SPECS[field as keyof typeof SITE_FIELD_SPECS];
  const property = SITE.property(field);
  const [a, b] = spec.examples;

  itIsAnOutput(SITE_FIELDS, spec, property, { projectId: siteProject, siteId: project, name: "Walked" });

  it("take-over, refresh and import: the state holds the listing's value; nothing is sent for it", async () => {
    const h = await harness();
    const existing = existingSite(h, { [field]: a });
    const { id, outs } = await site.create(h.ctx, { name, inputs: { projectId: siteProject, siteId: existing.id, name: "Walked" } });
    expect(outs[property as keyof typeof outs]).toEqual(a);
    expect(h.bodies("sites.update")).toEqual([]);
    // A state that holds another value (the site changed on the service): refresh shows the live one.
    const refresh = await harness({}, h.sim);
    const refreshed = await site.read(refresh.ctx, { name, id, state: { ...opened(outs), [property]: b } });
    expect(refreshed.props![property as keyof SiteOutputs]).toEqual(a);
    const imported = await site.importRecord(refresh.ctx, { name, id: `${siteProject}/${id}`, hint: {} });
    expect(imported.props![property as keyof SiteOutputs]).toEqual(a);
    expect(imported.inputs).not.toHaveProperty(property);
  });
});

// ---- Task: created, never updated or read; every change replaces it ----

const task = withDefaults(taskLifecycle);
/** A task every field's examples can be declared in: a weekly rule, so a start in the past still runs. */
const TASK_BASE = { projectId: project, title: "Walked", prompt: "Walk", scheduledAt: daysAhead(365), rrule: "FREQ=WEEKLY;BYDAY=MO" };

describe.each(TASK.inputs)("the task field %s (an input: a create takes it, a change replaces the task)", (field) => {
  const spec: FieldSpec = TASK_FIELD_SPECS[field as keyof typeof TASK_FIELD_SPECS];
  const property = TASK.property(field);
  const [a, b] = spec.examples;
  const declaring = (value: unknown): Record<string, unknown> => ({ ...TASK_BASE, [property]: value });

  it("has two different examples, each a value a request may send, with a schedule that runs", async () => {
    expect(a).not.toEqual(b);
    const h = await harness();
    for (const value of [a, b]) {
      const { failures } = await task.check(h.ctx, { name, olds: {}, news: declaring(value) });
      expect(failures, JSON.stringify(value)).toEqual([]);
    }
    expect(h.sim.requests()).toEqual([]);
  });

  it("create: the POST carries it; the state holds it as declared; the service holds it", async () => {
    const h = await harness();
    const { id, outs } = await task.create(h.ctx, { name, inputs: declaring(a) });
    expect(h.bodies("tasks.create")).toEqual([expect.objectContaining({ [field]: a })]);
    expect(outs[property as keyof typeof outs]).toEqual(a);
    expect(h.sim.tasks().find((t) => t.id === id)).toMatchObject({ [field]: a });
  });

  it("replace: a change replaces the task (the API cannot update one), said with the task that keeps running; nothing sent", async () => {
    const h = await harness();
    const { id, outs } = await task.create(h.ctx, { name, inputs: declaring(a) });
    h.sim.clearRequests();
    expect(await task.diff(h.ctx, { name, id, olds: outs, news: declaring(b) })).toEqual({
      changes: true,
      replaces: [property],
      changed: [property],
      deleteBeforeReplace: false,
    });
    expect(h.messages.at(-1)!.message).toContain(`will be replaced because ${property} changed.`);
    expect(h.sim.requests()).toEqual([]);
  });

  it("left out of the program: required is refused by name; any other is not sent", async () => {
    const { [property]: _left, ...without } = declaring(a);
    if (spec.create === "required") {
      expect(tableFailures(TASK_FIELDS, without)).toEqual([`${property} is required`]);
      return;
    }
    const h = await harness();
    const { outs } = await task.create(h.ctx, { name, inputs: without });
    expect(h.bodies("tasks.create")[0]).not.toHaveProperty(field);
    expect(outs).not.toHaveProperty(property);
  });

  it("refresh: nothing to read (the API cannot read tasks), the state kept as it is", async () => {
    const h = await harness();
    const { id, outs } = await task.create(h.ctx, { name, inputs: declaring(a) });
    h.sim.clearRequests();
    const refreshed = await task.read(h.ctx, { name, id, state: outs });
    expect(refreshed.props![property as keyof typeof outs]).toEqual(a);
    expect(h.sim.requests()).toEqual([]);
  });
});

describe.each(TASK.outputs)("the task field %s (set by the service: an output of Task)", (field) => {
  const spec: FieldSpec = TASK_FIELD_SPECS[field as keyof typeof TASK_FIELD_SPECS];
  const property = TASK.property(field);

  itIsAnOutput(TASK_FIELDS, spec, property, TASK_BASE);

  it("create: the state holds what the service answered; unknown (null) for a task adopted on trust", async () => {
    const h = await harness();
    const { id, outs } = await task.create(h.ctx, { name, inputs: TASK_BASE });
    const answered = h.sim.tasks().find((t) => t.id === id) as Record<string, unknown>;
    expect(answered[field]).toEqual(expect.anything());
    expect(outs[property as keyof typeof outs]).toEqual(answered[field]);
    const adopted = await task.create(h.ctx, { name: "adopted", inputs: { ...TASK_BASE, adoptId: id } });
    expect(adopted.outs[property as keyof typeof outs]).toBeNull();
  });
});

it("a task cannot be imported: the API cannot read tasks, so no field of one can be known", async () => {
  const h = await harness();
  const id = "7a8b91c2-0000-4000-8000-000000000001";
  await expect(task.importRecord(h.ctx, { name, id, hint: {} })).rejects.toThrow(
    `Task ${id} cannot be imported: the API cannot read tasks, so their fields cannot be known.`,
  );
});

// ---- Every table: the plugin schema and docs/resources.md ----

/** The paragraph of a resource's section in docs/resources.md that lists its outputs (`Outputs: …`). */
function documentedOutputs(type: string): string {
  return documentedSection(`\`${type}\``)
    .split("\n\n")
    .find((paragraph) => paragraph.startsWith("Outputs: "))!;
}

const TABLES = [
  { type: "Product", api: apiFields(PRODUCT_FIELD_SPECS) },
  { type: "Site", api: SITE },
  { type: "Task", api: TASK },
] as const;
const EVERY_FIELD = TABLES.flatMap(({ type, api }) => Object.keys(api.specs).map((field) => ({ type, api, field })));

describe.each(EVERY_FIELD)("$type.$field in the plugin schema and docs/resources.md", ({ type, api, field }) => {
  const spec = api.specs[field]!;
  const property = api.property(field);
  const resource = (packageSchema().resources as Record<string, SchemaResource>)[`serviceapi:index:${type}`]!;

  if (spec.value !== undefined) {
    it("an input with the contract's description, JSON type and replacement; a row of the resource's table in the docs", () => {
      const input = resource.inputProperties[property]!;
      expect(input.description.startsWith(spec.description)).toBe(true);
      expect(input.type ?? "string").toBe(jsonType(spec.value!));
      expect(input.willReplaceOnChanges === true).toBe(spec.change === "replace");
      expect(resource.requiredInputs.includes(property)).toBe(spec.create === "required");
      const documented = documentedInputs(type);
      expect(documented.has(property), `docs/resources.md lists ${type}.${property}`).toBe(true);
      expect(documented.get(property)!.startsWith("replace")).toBe(spec.change === "replace");
    });
  } else {
    it("an output (never an input) with the contract's description and JSON type; the docs name it among the outputs", () => {
      expect(resource.inputProperties).not.toHaveProperty(property);
      expect(resource.properties[property]).toEqual({ type: jsonType(spec.record!), description: spec.description });
      expect(documentedOutputs(type)).toContain(`\`${property}\``);
    });
  }

  if (type === "Site") {
    const listedAs = (spec as SiteFieldSpec).listed;
    it("a field of getSite's and getSites' results, described as the table's `listed` says; the docs name it", () => {
      const info = (packageSchema().types as Record<string, { properties: Record<string, { description: string }> }>)[
        "serviceapi:index:SiteInfo"
      ]!;
      expect(info.properties[property]!.description).toBe(listedAs);
      const row = documentedSection("Data sources")
        .split("\n")
        .find((line) => line.startsWith("| `getSites`"))!;
      expect(row).toMatch(new RegExp(`\\b${property}\\b`));
    });
    if (spec.change === "update") {
      it("what it was when the site was taken over is an output (`original…`), which the docs name", () => {
        expect(resource.properties[originalKey(field)]).toMatchObject({
          description: `The ${property} the site had before this stack took it over.`,
        });
        expect(documentedOutputs("Site")).toContain(`\`${originalKey(field)}\``);
      });
    }
  }
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
