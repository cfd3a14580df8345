/**
 * The Product lifecycle called as a face calls it (`withDefaults`), on a fresh context, against the
 * simulator: the exact request bodies from its log, what each operation returns to a face, and what
 * it says. (The same behaviour under the real CLI is in test/engine/.)
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { UNKNOWN } from "../../provider/resources/checks";
import { NotFoundError } from "../../provider/client";
import { PartialFailure } from "../../provider/resources/errors";
import { readCreated, readWrites, TOOL_ENV } from "../../provider/resources/tool-protocol";
import {
  buildProductPatch,
  product as lifecycle,
  productInputFailures,
  type ProductInputs,
  type ProductOutputs,
} from "../../provider/resources/product";
import type { Stored } from "../../provider/resources/stored-state";
import { withDefaults } from "../../provider/resources/with-defaults";
import { DEFAULT_IDS } from "../../simulator/seed";
import { NULL_PRODUCT_FIELDS } from "../helpers";
import { harness } from "./harness";

const product = withDefaults(lifecycle);
const project = DEFAULT_IDS.acmeWeb;
const inputs = { projectId: project, title: "Pro plan", slug: "pro", status: "active" as const };
const MISSING = "0b3f2a8e-5b7c-4f1e-9a6d-2c4e8f0a1b3d";
const name = "pro";
/** What every adoption's preview says the stack holds from then on. */
const MANAGED = ["title", ...Object.keys(NULL_PRODUCT_FIELDS)];
const OWNED =
  `From then on this stack manages its ${MANAGED.slice(0, -1).join(", ")} and ${MANAGED.at(-1)}: every \`pulumi up\` sets them as the program ` +
  "declares, undoing changes made elsewhere (adopt a product in one stack only). projectId is taken on trust: the API cannot say which project a product is in.";
const SECRET_SIG = { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270" };
/** A state as the engine hands it back: secret outputs opened. */
function opened(outs: object): ProductOutputs {
  const state = { ...outs } as Record<string, unknown>;
  const record = state.__takenOver as { value?: unknown } | undefined;
  if (record?.value !== undefined) state.__takenOver = record.value;
  return state as unknown as ProductOutputs;
}

describe("buildProductPatch", () => {
  const live = { ...NULL_PRODUCT_FIELDS, title: "Pro", description: "Old", slug: "pro", status: "draft" };
  it.each([
    ["nothing changed", { projectId: project, title: "Pro", description: "Old", slug: "pro" }, {}],
    ["one field", { projectId: project, title: "Pro 2", description: "Old", slug: "pro" }, { title: "Pro 2" }],
    ["nullable fields removed from the program become null", { projectId: project, title: "Pro" }, { description: null, slug: null }],
    ["status and title left out are not managed", { projectId: project, description: "Old", slug: "pro" } as Stored<ProductInputs>, {}],
    [
      "status declared",
      { projectId: project, title: "Pro", description: "Old", slug: "pro", status: "active" as const },
      { status: "active" },
    ],
    [
      "url added",
      { projectId: project, title: "Pro", description: "Old", slug: "pro", externalCheckoutUrl: "https://x.example/c" },
      { externalCheckoutUrl: "https://x.example/c" },
    ],
  ])("%s", (_name, desired, patch) => {
    expect(buildProductPatch(live, desired)).toEqual(patch);
  });

  it("a status archived behind Pulumi's back, with none declared, is set back to the one last recorded", () => {
    const archived = { ...live, status: "archived", __statusBeforeArchive: "active" };
    expect(buildProductPatch(archived, { projectId: project, title: "Pro", description: "Old", slug: "pro" })).toEqual({
      status: "active",
    });
    expect(buildProductPatch(archived, { projectId: project, title: "Pro", description: "Old", slug: "pro", status: "archived" })).toEqual(
      {},
    );
  });
});

describe("create", () => {
  it("POSTs without status, then PATCHes only status; outputs carry every record field; says what it created", async () => {
    const { ctx, bodies, messages } = await harness();
    const { id, outs } = await product.create(ctx, { name, inputs });
    expect(bodies()).toEqual([{ title: "Pro plan", projectId: project, slug: "pro" }, { status: "active" }]);
    expect(outs).toEqual({
      ...NULL_PRODUCT_FIELDS,
      projectId: project,
      title: "Pro plan",
      slug: "pro",
      status: "active",
      type: "digital",
      onDelete: "archive",
      __declared: ["projectId", "slug", "status", "title"],
    });
    expect(messages).toEqual([{ severity: "info", message: `serviceapi: created Product "pro" ${id}` }]);
  });

  it("with a create journal (a catalog stack): the create is one journal line and no message; a journal that cannot be written: a warning and the line", async () => {
    const dir = mkdtempSync(join(tmpdir(), "journal-"));
    try {
      const journal = join(dir, "stack.jsonl");
      vi.stubEnv(TOOL_ENV.createdJournal, journal);
      const first = await harness();
      const { id } = await product.create(first.ctx, { name, inputs });
      expect(first.messages).toEqual([]);
      expect(readCreated(readFileSync(journal, "utf8")).map(({ type, name, id }) => ({ type, name, id }))).toEqual([
        { type: "Product", name, id },
      ]);

      const unwritable = join(dir, "gone", "stack.jsonl");
      vi.stubEnv(TOOL_ENV.createdJournal, unwritable);
      const second = await harness();
      const made = await product.create(second.ctx, { name: "team", inputs: { ...inputs, slug: "team" } });
      expect(second.messages).toEqual([
        {
          severity: "warning",
          message: `serviceapi: the create journal ${unwritable} cannot be written (ENOENT); the run's output names each create instead`,
        },
        { severity: "info", message: `serviceapi: created Product "team" ${made.id}` },
      ]);
    } finally {
      vi.unstubAllEnvs();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("without a declared status sends no PATCH", async () => {
    const { ctx, sim } = await harness();
    await product.create(ctx, { name, inputs: { projectId: project, title: "Draft one" } });
    expect(sim.requests().map((r) => r.operation)).toEqual(["products.create"]);
  });

  it("a failed status PATCH after create is a partial failure: the product is recorded", async () => {
    const { ctx, sim } = await harness({ initialRetryDelayMs: "1", maxRetryDelayMs: "5" });
    sim.addFault({ operation: "products.update", kind: "error", status: 500, times: 4 });
    const error = await product.create(ctx, { name, inputs }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PartialFailure);
    const partial = error as PartialFailure;
    expect(partial.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(partial.outputs).toMatchObject({ status: "draft", title: "Pro plan" });
    expect(partial.message).toContain(
      `Product "pro" (id ${partial.id}) was created, but setting its status failed: products.update failed: 500`,
    );
    expect(sim.counts().products).toBe(1);
  });

  it("a create whose answer was lost is recorded as an unconfirmed placeholder, not retried", async () => {
    const { ctx, sim } = await harness();
    sim.addFault({ operation: "products.create", kind: "reset", when: "after" });
    const error = await product.create(ctx, { name, inputs }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PartialFailure);
    const partial = error as PartialFailure;
    expect(partial.id).toMatch(/^unconfirmed-create-[0-9a-f]{8}$/);
    expect(partial.outputs).toMatchObject({ title: "Pro plan", __unconfirmedCreate: { operation: "products.create" } });
    expect(partial.message).toContain('The stack records Product "pro" as an unconfirmed create');
    expect(sim.requests("products.create")).toHaveLength(1);
    expect(sim.counts().products).toBe(1);
  });
});

describe("diff", () => {
  it("sends nothing but the read that previews an adoption; replaces on projectId or a different adoptId", async () => {
    const { ctx, sim, bodies } = await harness();
    const { id, outs } = await product.create(ctx, { name, inputs });
    const { id: other } = await product.create(ctx, { name: "other", inputs: { ...inputs, title: "Other" } });
    sim.clearRequests();
    const diff = (news: object) => product.diff(ctx, { name, id, olds: outs, news });
    expect(await diff({ ...inputs })).toEqual({ changes: false, replaces: [], changed: [] });
    expect(await diff({ ...inputs, title: "New" })).toEqual({ changes: true, replaces: [], changed: ["title"] });
    expect(await diff({ ...inputs, projectId: DEFAULT_IDS.acmeDocs })).toEqual({
      changes: true,
      replaces: ["projectId"],
      changed: ["projectId"],
    });
    expect(await diff({ ...inputs, title: UNKNOWN })).toEqual({ changes: true, replaces: [], changed: ["title"] });
    // null and absent are the same for nullable fields.
    expect(await diff({ ...inputs, description: null })).toEqual({ changes: false, replaces: [], changed: [] });
    expect((await diff({ ...inputs, adoptId: id })).replaces).toEqual([]);
    expect(sim.requests()).toEqual([]);
    // Another product to adopt: a replacement, and one read to say what adopting it changes.
    expect(await diff({ ...inputs, adoptId: other })).toEqual({
      changes: true,
      replaces: ["adoptId"],
      changed: ["adoptId"],
    });
    expect(bodies()).toEqual([{}]);
    await expect(diff({ ...inputs, adoptId: MISSING })).rejects.toThrow(
      "adoptId names no product this token can see: reading it (an empty PATCH, the API's only read) was answered 404.",
    );
  });

  it("names the fields it will send, once per command, as planning after check or as drift before it", async () => {
    const { ctx, messages } = await harness();
    const { id, outs } = await product.create(ctx, { name, inputs });
    messages.length = 0;
    const edited = { ...inputs, title: "Edited" };
    await product.diff(ctx, { name, id, olds: outs, news: edited });
    await product.diff(ctx, { name, id, olds: outs, news: edited });
    await product.check(ctx, { name, olds: inputs, news: edited });
    await product.diff(ctx, { name, id, olds: outs, news: edited });
    expect(messages.map((m) => m.message)).toEqual([
      `serviceapi: Product "pro" (id ${id}): changed on the service since the last \`pulumi up\`: title.`,
      `serviceapi: Product "pro" (id ${id}): \`pulumi up\` will send PATCH {title}.`,
    ]);
  });
});

describe("update, read, remove", () => {
  it("update sends one PATCH with exactly the changed fields, and none when only onDelete changed", async () => {
    const { ctx, sim, bodies, messages } = await harness();
    const { id, outs } = await product.create(ctx, { name, inputs: { ...inputs, description: "Long text" } });
    sim.clearRequests();
    const { outs: after } = await product.update(ctx, {
      name,
      id,
      olds: outs,
      news: { projectId: project, title: "Pro plan 2", status: "active" },
    });
    expect(bodies()).toEqual([{ title: "Pro plan 2", description: null, slug: null }]);
    expect(messages.at(-1)!.message).toBe(`serviceapi: updated Product "pro" (id ${id}): sent PATCH {title, description, slug}.`);
    sim.clearRequests();
    const { outs: retained } = await product.update(ctx, {
      name,
      id,
      olds: after,
      news: { projectId: project, title: "Pro plan 2", status: "active", onDelete: "retain" },
    });
    expect(sim.requests()).toEqual([]);
    expect(retained.onDelete).toBe("retain");
  });

  it("read uses an empty PATCH and returns live values under the declared input names", async () => {
    const { ctx, sim, bodies } = await harness();
    const { id, outs } = await product.create(ctx, { name, inputs });
    await ctx.client().updateProduct(id, { title: "Edited", description: "Added in UI" });
    sim.clearRequests();
    const result = await product.read(ctx, { name, id, state: outs });
    expect(bodies()).toEqual([{}]);
    expect(result.props).toMatchObject({ title: "Edited", description: "Added in UI", status: "active" });
    expect(result.inputs).toEqual({ projectId: project, title: "Edited", slug: "pro", status: "active", description: "Added in UI" });
    // The engine's drift check: diff(refreshed outputs, old inputs).
    expect(await product.diff(ctx, { name, id, olds: result.props!, news: inputs })).toEqual({
      changes: true,
      replaces: [],
      changed: ["title", "description"],
    });
  });

  it("read of a product that is gone returns no id; productRefresh=false reads nothing and says so once", async () => {
    const { ctx } = await harness();
    expect(await product.read(ctx, { name, id: MISSING, state: { projectId: project } })).toEqual({});
    const off = await harness({ productRefresh: "false" });
    const props = { projectId: project, title: "Kept", __declared: ["projectId", "title"] } as ProductOutputs;
    expect(await product.read(off.ctx, { name, id: MISSING, state: props })).toEqual({ id: MISSING, props });
    await product.read(off.ctx, { name, id: MISSING, state: props });
    expect(off.sim.requests()).toEqual([]);
    expect(off.messages).toEqual([
      {
        severity: "warning",
        message:
          "serviceapi: serviceapi:productRefresh is false: products keep their stored state at refresh, so drift in products cannot be seen.",
      },
    ]);
  });

  it("remove archives whatever the state says, retain sends nothing, a vanished product is fine", async () => {
    const { ctx, sim, bodies } = await harness();
    const { id, outs } = await product.create(ctx, { name, inputs });
    sim.clearRequests();
    await product.remove(ctx, { name, id, state: outs });
    expect(bodies()).toEqual([{ status: "archived" }]);
    sim.clearRequests();
    // The state says archived, but the live record may not be: archiving is idempotent, so it is always sent.
    await product.remove(ctx, { name, id, state: { ...outs, status: "archived" } });
    expect(bodies()).toEqual([{ status: "archived" }]);
    sim.clearRequests();
    await product.remove(ctx, { name, id, state: { ...outs, onDelete: "retain" } });
    expect(sim.requests()).toEqual([]);
    await product.remove(ctx, { name, id: MISSING, state: outs });
  });
});

describe("adoption", () => {
  it("one empty PATCH, one PATCH of the differences, no POST; the preview's read is reused", async () => {
    const { ctx, sim, bodies, messages } = await harness();
    const { id } = await product.create(ctx, { name: "old", inputs: { projectId: project, title: "Old", slug: "old" } });
    sim.clearRequests();
    const declared = { projectId: project, title: "New", adoptId: id };
    expect((await product.check(ctx, { name: "x", olds: {}, news: declared, secrets: [] })).failures).toEqual([]);
    expect(messages.at(-1)).toEqual({
      severity: "warning",
      message:
        `serviceapi: Product "x" (id ${id}): adoptId takes over this existing product, ` +
        'and `pulumi up` will change it in one PATCH: sets title ("Old" → "New"); clears slug (now "old"). ' +
        "A field the program leaves out is cleared; declare it to keep its live value. " +
        OWNED +
        " `pulumi destroy` does not archive it: it gives back the fields this stack changed, as it found them " +
        '(declare onDelete: "archive" to archive it instead).',
    });
    const adopted = await product.create(ctx, { name: "x", inputs: declared });
    expect(adopted.id).toBe(id);
    expect(bodies()).toEqual([{}, { title: "New", slug: null }]);
    expect(sim.requests("products.create")).toEqual([]);
    expect(messages.at(-1)!.message).toBe(`serviceapi: adopted Product "x" (id ${id}): sent PATCH {title, slug}.`);
  });

  it("with a writes file (a catalog stack): each previewed adoption's fields as data, live → declared, a secret one as [secret]", async () => {
    const { ctx: maker, sim } = await harness();
    const { id } = await product.create(maker, { name: "old", inputs: { projectId: project, title: "Old", slug: "old" } });
    const dir = mkdtempSync(join(tmpdir(), "adoptions-"));
    try {
      const file = join(dir, "stack.jsonl");
      vi.stubEnv(TOOL_ENV.writes, file);
      for (const [name, secrets] of [
        ["plain", []],
        ["secret", ["title"]],
      ] as const) {
        const { ctx } = await harness({}, sim);
        await product.check(ctx, {
          name,
          olds: {},
          news: { projectId: project, title: "New", slug: "old", adoptId: id },
          secrets: [...secrets],
        });
      }
      expect([...readWrites(readFileSync(file, "utf8")).adoptions.values()]).toEqual([
        { v: 1, op: "adopt", name: "plain", id, fields: [{ field: "title", from: "Old", to: "New" }] },
        { v: 1, op: "adopt", name: "secret", id, fields: [{ field: "title", from: "[secret]", to: "[secret]" }] },
      ]);
    } finally {
      vi.unstubAllEnvs();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the preview shows live and declared values, shortened; a value the program marked secret, or any when the face cannot tell, by name only", async () => {
    const { ctx: maker, sim } = await harness();
    const description = "Everything in Starter, plus priority support, single sign-on and an audit log for every workspace.";
    const { id } = await product.create(maker, { name: "old", inputs: { projectId: project, title: "Old", slug: "old", description } });
    // Each in a command of its own: one command refuses a second resource adopting the same product.
    const preview = async (name: string, secrets: string[] | undefined, more: object = {}) => {
      const { ctx, messages } = await harness({}, sim);
      const news = { projectId: project, title: "New", adoptId: id, ...more };
      await product.check(ctx, { name, olds: {}, news, ...(secrets !== undefined && { secrets }) });
      return /will change it in one PATCH: (.*?)\. A field/.exec(messages.at(-1)!.message)?.[1];
    };
    expect(await preview("plain", [])).toBe(
      `sets title ("Old" → "New"); clears description (now "Everything in Starter, plus priority support, single sign-o…" (${description.length} characters)), slug (now "old")`,
    );
    expect(await preview("secret", ["title"])).toBe(
      `sets title (marked secret: not shown); clears description (now "Everything in Starter, plus priority support, single sign-o…" (${description.length} characters)), slug (now "old")`,
    );
    // A field the program leaves out but marked secret (a secret null): its live value is not shown either.
    expect(await preview("secret-null", ["slug"], { status: "archived" })).toBe(
      'sets title ("Old" → "New"), status ("draft" → "archived"); clears description (now "Everything in Starter, plus priority support, single sign-o…" (98 characters)), slug (marked secret: not shown)',
    );
    expect(await preview("unknown", undefined)).toBe(
      `sets title (marked secret: not shown); clears description (now "Everything in Starter, plus priority support, single sign-o…" (${description.length} characters)), slug (now "old")`,
    );
  });

  it("an adoptId the token cannot see fails check naming the field; at create it says the same", async () => {
    const { ctx } = await harness();
    const news = { projectId: project, title: "New", adoptId: MISSING };
    const { failures } = await product.check(ctx, { name: "x", olds: {}, news });
    expect(failures.map((f) => f.reason)).toEqual([
      "adoptId names no product this token can see: reading it (an empty PATCH, the API's only read) " +
        "was answered 404. Check the id, and that the token has access to the product's workspace",
    ]);
    const missing = await product.create(ctx, { name: "x", inputs: news }).catch((e: Error) => e);
    expect((missing as Error).message).toContain(`adoptId ${MISSING}: no product with this id is visible to this token`);
    // The advice keeps the client's error whole: its class, status and code.
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ status: 404, code: "not_found" });
  });

  it("an archived product adopted without a declared status stays archived, and the preview says so", async () => {
    const { ctx, messages } = await harness();
    const { id } = await product.create(ctx, { name, inputs: { projectId: project, title: "Gone" } });
    await ctx.client().updateProduct(id, { status: "archived" });
    await product.check(ctx, { name: "gone", olds: {}, news: { projectId: project, title: "Gone", adoptId: id } });
    expect(messages.at(-1)!.message).toBe(
      `serviceapi: Product "gone" (id ${id}): adoptId takes over this existing product; it already matches ` +
        `the program, so \`pulumi up\` sends nothing to it. It is archived, and stays so: the program declares no status. ${OWNED} ` +
        '`pulumi destroy` does not archive it: it gives back the fields this stack changed, as it found them (declare onDelete: "archive" to archive it instead).',
    );
  });

  it("two resources claiming one product: whichever is asked second refuses, in either order; a delete never archives the other's", async () => {
    const { ctx, sim } = await harness();
    const { id } = await product.create(ctx, { name: "shared", inputs: { projectId: project, title: "Shared" } });
    const adopting = { projectId: project, title: "Shared", adoptId: id };
    const taken =
      'adoptId names the product that Product "a" of this stack already manages or adopts: one product, one resource. ' +
      "Remove one of the two, or point adoptId at another product";
    // Two new resources adopting it: the second check fails.
    expect((await product.check(ctx, { name: "a", olds: {}, news: adopting })).failures).toEqual([]);
    expect((await product.check(ctx, { name: "b", olds: {}, news: adopting })).failures.map((f) => f.reason)).toEqual([taken]);

    // "a" manages it (its state names it) and "b" adopts it: refused whether a's diff or b's check comes first.
    const outs = (await product.create(ctx, { name: "a", inputs: adopting })).outs;
    const diffFirst = await harness({}, sim);
    await product.diff(diffFirst.ctx, { name: "a", id, olds: outs, news: adopting });
    expect((await product.check(diffFirst.ctx, { name: "b", olds: {}, news: adopting })).failures.map((f) => f.reason)).toEqual([taken]);
    const checkFirst = await harness({}, sim);
    expect((await product.check(checkFirst.ctx, { name: "b", olds: {}, news: adopting })).failures).toEqual([]);
    await expect(product.diff(checkFirst.ctx, { name: "a", id, olds: outs, news: adopting })).rejects.toThrow(
      `Product "a" (id ${id}): Product "b" of this stack sets adoptId to this same product: one product, one resource.`,
    );

    // A stack that already holds both (from before this check): the one left in the program keeps the product.
    const { ctx: later, messages } = await harness({}, sim);
    await product.diff(later, { name: "a", id, olds: outs, news: adopting });
    sim.clearRequests();
    await product.remove(later, { name: "b", id, state: outs });
    expect(sim.requests()).toEqual([]);
    expect(messages.at(-1)).toEqual({
      severity: "warning",
      message:
        `serviceapi: Product "b" (id ${id}): nothing sent; Product "a" of this stack ` +
        "manages the same product, so it is not archived (one product, one resource).",
    });
  });
});

describe("what destroy does with a product this stack did not create", () => {
  const declared = { projectId: project, title: "Taken", slug: "taken", adoptId: "" };
  /** A product made elsewhere, with a description, adopted by a program that renames it and leaves the description out. */
  async function adopted(extra: object = {}) {
    const h = await harness();
    const made = await h.ctx.client().createProduct({ projectId: project, title: "Made elsewhere", slug: "taken", description: "Theirs" });
    const inputs = { ...declared, adoptId: made.id, ...extra };
    const { outs } = await product.create(h.ctx, { name: "x", inputs });
    return { ...h, id: made.id, made, inputs, outs };
  }

  it("adoption records what it found, as a secret; destroy gives back the fields the stack changed, not archived", async () => {
    const { sim, id, made, outs, messages } = await adopted();
    expect(outs).toMatchObject({
      __takenOver: {
        ...SECRET_SIG,
        value: { found: { title: "Made elsewhere", description: "Theirs" }, set: { title: "Taken", description: null } },
      },
    });
    const destroy = await harness({}, sim);
    sim.clearRequests();
    await product.remove(destroy.ctx, { name: "x", id, state: opened(outs) });
    // One read (the live record), one PATCH of what this stack changed.
    expect(destroy.bodies()).toEqual([{}, { title: "Made elsewhere", description: "Theirs" }]);
    expect(destroy.messages.at(-1)!.message).toBe(
      `serviceapi: Product "x" (id ${id}): given back as found: sent PATCH {title, description} with the values it had when this stack ` +
        'took it over. It is not archived: this stack took it over rather than creating it (declare onDelete: "archive" for that).',
    );
    const live = await destroy.ctx.client().updateProduct(id, {});
    expect([live.title, live.description, live.status]).toEqual([made.title, made.description, made.status]);
    expect(messages.length).toBeGreaterThan(0);
  });

  it("a give-back never makes the product more live: taken over on sale and archived here, it stays archived; the rest goes back", async () => {
    const h = await harness();
    const made = await h.ctx.client().createProduct({ projectId: project, title: "On sale", slug: "on-sale" });
    await h.ctx.client().updateProduct(made.id, { status: "active" });
    const { outs } = await product.create(h.ctx, {
      name: "retired",
      inputs: { projectId: project, title: "Retired", slug: "on-sale", status: "archived", adoptId: made.id },
    });
    const destroy = await harness({}, h.sim);
    h.sim.clearRequests();
    await product.remove(destroy.ctx, { name: "retired", id: made.id, state: opened(outs) });
    // One read, and the title back; never `status: "active"`.
    expect(destroy.bodies()).toEqual([{}, { title: "On sale" }]);
    expect(destroy.messages.at(-1)!.message).toBe(
      `serviceapi: Product "retired" (id ${made.id}): given back as found: sent PATCH {title} with the values it had when this stack took it over. ` +
        "Its status stays archived, as this stack set it (it was active when taken over): removing a resource never makes a product more live.",
    );
    expect((await destroy.ctx.client().updateProduct(made.id, {})).status).toBe("archived");
  });

  it("nothing changed: nothing read, nothing sent; a field changed since by someone else is left, with a warning", async () => {
    const h = await harness();
    const made = await h.ctx.client().createProduct({ projectId: project, title: "Same", slug: "same" });
    const same = await product.create(h.ctx, {
      name: "same",
      inputs: { projectId: project, title: "Same", slug: "same", adoptId: made.id },
    });
    // The destroy is another command (the command that adopts never sends the delete of what it took in).
    const later = await harness({}, h.sim);
    h.sim.clearRequests();
    await product.remove(later.ctx, { name: "same", id: made.id, state: opened(same.outs) });
    expect(h.sim.requests()).toEqual([]);
    expect(later.messages.at(-1)!.message).toContain("nothing sent; this stack took it over and changed none of its fields");

    const { sim, id, outs } = await adopted();
    // Another stack sets the title after this one; this stack's refresh records it as the state's title.
    await (await harness({}, sim)).ctx.client().updateProduct(id, { title: "Another stack's title" });
    const refresh = await harness({}, sim);
    const refreshed = await product.read(refresh.ctx, { name: "x", id, state: opened(outs) });
    expect(refreshed.props).toMatchObject({ title: "Another stack's title" });
    const destroy = await harness({}, sim);
    sim.clearRequests();
    // A catalog stack's provider says what it sent and left, for the report (names only: the values are the state's secret).
    const writes = join(mkdtempSync(join(tmpdir(), "writes-")), "stack.jsonl");
    vi.stubEnv(TOOL_ENV.writes, writes);
    try {
      await product.remove(destroy.ctx, { name: "x", id, state: opened(refreshed.props!) });
    } finally {
      vi.unstubAllEnvs();
    }
    expect(destroy.bodies()).toEqual([{}, { description: "Theirs" }]);
    expect([...readWrites(readFileSync(writes, "utf8")).giveBacks.values()]).toEqual([
      { v: 1, op: "give-back", name: "x", id, sent: ["description"], since: ["title"] },
    ]);
    rmSync(dirname(writes), { recursive: true, force: true });
    expect(destroy.messages.map((m) => [m.severity, m.message])).toEqual([
      [
        "warning",
        `serviceapi: Product "x" (id ${id}): title is left as the service shows it: changed since this stack last set them — by a person, ` +
          "or by another stack that manages the same product — so giving back what this stack found would undo that change.",
      ],
      [
        "info",
        `serviceapi: Product "x" (id ${id}): given back as found: sent PATCH {description} with the values it had when this stack took it over. ` +
          'It is not archived: this stack took it over rather than creating it (declare onDelete: "archive" for that).',
      ],
    ]);
  });

  it('onDelete declared: "archive" archives, "retain" sends nothing; the preview says which', async () => {
    const archive = await adopted({ onDelete: "archive" });
    archive.sim.clearRequests();
    await product.remove((await harness({}, archive.sim)).ctx, { name: "x", id: archive.id, state: opened(archive.outs) });
    expect(archive.bodies()).toEqual([{ status: "archived" }]);
    const retain = await adopted({ onDelete: "retain" });
    retain.sim.clearRequests();
    await product.remove((await harness({}, retain.sim)).ctx, { name: "x", id: retain.id, state: opened(retain.outs) });
    expect(retain.sim.requests()).toEqual([]);
    const preview = await harness({}, retain.sim);
    await product.check(preview.ctx, { name: "y", olds: {}, news: { ...retain.inputs, title: "Other", onDelete: "archive" } });
    expect(preview.messages.at(-1)!.message).toMatch(/ `pulumi destroy` archives it \(onDelete: "archive"\)\.$/);
  });

  it("an update keeps the record and what it last set; the import of a product records it too", async () => {
    const { ctx, sim, id, inputs, outs } = await adopted();
    const { outs: updated } = await product.update(ctx, { name: "x", id, olds: opened(outs), news: { ...inputs, title: "Taken 2" } });
    expect(updated).toMatchObject({
      __takenOver: { ...SECRET_SIG, value: { found: { title: "Made elsewhere" }, set: { title: "Taken 2" } } },
    });
    const imported = await product.importRecord(ctx, { name: "i", id: `${project}/${id}`, hint: {} });
    expect(imported.props).toMatchObject({
      __takenOver: { ...SECRET_SIG, value: { found: { title: "Taken 2" }, set: { title: "Taken 2" } } },
    });
    sim.clearRequests();
    const destroy = await harness({}, sim);
    await product.remove(destroy.ctx, { name: "i", id, state: opened(imported.props!) });
    expect(sim.requests()).toEqual([]);
    expect(destroy.messages.at(-1)!.message).toContain("this stack took it over and changed none of its fields");
  });

  it("adopted by an older version (adoptId, no record): left as it is, and said so", async () => {
    const { sim, id, outs } = await adopted();
    const { __takenOver: _dropped, ...legacy } = opened(outs);
    sim.clearRequests();
    const destroy = await harness({}, sim);
    await product.remove(destroy.ctx, { name: "x", id, state: legacy as ProductOutputs });
    expect(sim.requests()).toEqual([]);
    expect(destroy.messages).toEqual([
      {
        severity: "warning",
        message:
          `serviceapi: Product "x" (id ${id}): nothing sent; it was adopted (adoptId) by a version of pulumi-serviceapi that did not ` +
          'record what it found, so it is left as it is, not archived. To archive it, declare onDelete: "archive" and run `pulumi up` before `pulumi destroy`.',
      },
    ]);
  });

  it("a lost create taken over with adoptId is this stack's own: the preview and destroy say it is archived", async () => {
    const { ctx, sim, messages } = await harness();
    sim.addFault({ operation: "products.create", kind: "reset", when: "after" });
    const lost = (await product.create(ctx, { name, inputs }).catch((e: unknown) => e)) as PartialFailure;
    const made = sim.products().find((p) => p.title === inputs.title)!;
    // The next command: check, then the replacement's diff and create.
    const next = await harness({}, sim);
    const news = { ...inputs, adoptId: made.id };
    await product.check(next.ctx, { name, olds: inputs, news });
    await product.diff(next.ctx, { name, id: lost.id, olds: lost.outputs as ProductOutputs, news });
    expect(next.messages.at(-1)!.message).toMatch(/`pulumi destroy` archives it: this stack created it\.$/);
    const { outs } = await product.create(next.ctx, { name, inputs: news });
    expect(outs).toMatchObject({ __createdByThisStack: true });
    expect(outs).not.toHaveProperty("__takenOver");
    sim.clearRequests();
    await product.remove(ctx, { name, id: made.id, state: opened(outs) });
    expect(sim.requests().map((r) => r.body)).toEqual([{ status: "archived" }]);
    expect(messages.length).toBeGreaterThan(0);
  });

  it("a replacement that adopts its own product (projectId changed) keeps what the old resource found", async () => {
    const { sim, id, inputs, outs } = await adopted();
    const next = await harness({}, sim);
    const news = { ...inputs, projectId: DEFAULT_IDS.acmeDocs };
    await product.check(next.ctx, { name: "x", olds: inputs, news });
    expect((await product.diff(next.ctx, { name: "x", id, olds: opened(outs), news })).replaces).toEqual(["projectId"]);
    const replaced = await product.create(next.ctx, { name: "x", inputs: news });
    expect(replaced.outs).toMatchObject({ __takenOver: { value: { found: { title: "Made elsewhere", description: "Theirs" } } } });
  });
});

describe("check", () => {
  it("names the field and limit, skips unknown values, and refuses to run without a token", async () => {
    const { ctx, sim } = await harness();
    const check = (news: object) => product.check(ctx, { name, olds: {}, news });
    const { failures } = await check({ projectId: UNKNOWN, title: "", slug: "s".repeat(1025), description: null });
    // An empty property: the engine would print the value beside a named one, and any value may be a secret.
    expect(failures).toEqual([
      { property: "", reason: "title must be 1 to 1024 characters long (got 0)", field: "title" },
      { property: "", reason: "slug must be 1 to 1024 characters long (got 1025)", field: "slug" },
    ]);
    expect((await check({ projectId: project, title: null })).failures).toEqual([
      { property: "", reason: "title is required", field: "title" },
    ]);
    expect(
      (await check({ projectId: project, title: "T", status: "published", externalCheckoutUrl: "not a url" })).failures.map(
        (f) => f.reason,
      ),
    ).toEqual([
      'status must be one of "active", "archived", "draft"',
      "externalCheckoutUrl must be an absolute URI (RFC 3986: a scheme such as https:, ASCII only, no spaces, % only in %XX escapes)",
    ]);
    expect(
      productInputFailures({ projectId: project, title: "T", Title: "t", slgu: "x", __logicalName: "p" }).map((f) => f.reason),
    ).toEqual(["Title is not an input of Product; did you mean title?", "slgu is not an input of Product; did you mean slug?"]);
    const noToken = await harness({ token: "" });
    await expect(product.check(noToken.ctx, { name, olds: {}, news: { projectId: project, title: "x" } })).rejects.toThrow(
      "serviceapi: no API token. Set it with `pulumi config set --secret serviceapi:token <token>` or the SERVICEAPI_TOKEN environment variable.",
    );
    expect(sim.requests()).toEqual([]);
  });

  it("returns the inputs decoded by the field table: the engine's keys and nulls dropped, the values kept", async () => {
    const { ctx } = await harness();
    const { inputs: checked } = await product.check(ctx, {
      name,
      olds: {},
      news: { ...inputs, description: null, __provider: "exports.handler = …", __logicalName: "pro" },
    });
    expect(checked).toEqual(inputs);
  });
});
