/**
 * An adoption or import of a product another stack of the state backend manages (provider/resources/product/
 * managed-elsewhere.ts, other-stacks.ts), over the index the catalog tool writes
 * (`SERVICEAPI_OTHER_STACKS_INDEX`): refused by default, with the stacks and the names they give it
 * and no request sent; a warning and an adoption with serviceapi:adoptManaged=allow; the provider's
 * own stack left out; an index that cannot be read said once, and the adoption goes on. Reading a
 * real backend is proven with the real CLI (test/engine/managed-elsewhere.test.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { product } from "../../provider/resources/product";
import { isOwn, readOtherStacks } from "../../provider/resources/product/other-stacks";
import { otherStacksText, TOOL_ENV, type Manager } from "../../provider/resources/tool-protocol";
import { readSettings } from "../../provider/resources/settings";
import { withDefaults } from "../../provider/resources/with-defaults";
import { ProviderContext } from "../../provider/resources/context";
import { DEFAULT_IDS } from "../../simulator/seed";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { harness } from "./harness";

const project = DEFAULT_IDS.acmeWeb;
const { check, create, importRecord } = withDefaults(product);

/** An index file as the catalog tool writes it (`tool-protocol.ts`), or any text. */
function indexFile(index: Record<string, Manager[]> | string): string {
  const file = join(mkdtempSync(join(tmpdir(), "serviceapi-index-")), "other-stacks.json");
  writeFileSync(file, typeof index === "string" ? index : otherStacksText(index));
  return file;
}

/** A provider context of one command on `sim`, reading `index` as the other stacks, `settings` added. */
function command(sim: Simulator, index: string, settings: Record<string, string> = {}, env: NodeJS.ProcessEnv = {}) {
  const messages: string[] = [];
  const ctx = new ProviderContext({
    sink: (severity, message) => messages.push(`${severity}: ${message}`),
    env: { [TOOL_ENV.otherStacks]: index, ...env },
    urn: () => "urn:pulumi:team2::shop::serviceapi:index:Product::pro-plan",
  });
  const all: Record<string, string> = { token: sim.token, baseUrl: sim.url, ...settings };
  ctx.useSettings(() => readSettings((key) => all[key], env));
  return { ctx, messages };
}

const REFUSAL =
  'adoptId names a product that other stacks of this state backend manage: organization/catalog/prod (as "pro") and ' +
  'organization/web/dev (as "pro-dev"). Adopted here too, the two stacks would undo each other\'s changes at every `pulumi up`, ' +
  "and a `pulumi destroy` of either would archive the product, or set back its fields, under the other. Either those stacks give " +
  'it up first (onDelete: "retain" on its resource, `pulumi up`, then remove the resource from its program and `pulumi up` again), ' +
  "or, for a deliberate hand-over, set serviceapi:adoptManaged to allow";

describe("an adoption of a product another stack manages", () => {
  async function setUp() {
    const { sim, ctx: maker } = await harness();
    const { id } = await product.create(maker, { name: "pro", inputs: { projectId: project, title: "Pro", slug: "pro" } });
    // The index as the catalog tool writes it: upper-case ids are read as the same product.
    const index = indexFile({
      [id.toUpperCase()]: [
        { stack: "organization/web/dev", name: "pro-dev" },
        { stack: "organization/catalog/prod", name: "pro" },
      ],
      // The provider's own stack, were the index to name it: not another stack.
      "0b3f5a7c-0000-4000-8000-000000000001": [{ stack: "organization/shop/team2", name: "pro-plan" }],
    });
    sim.clearRequests();
    return { sim, id, index };
  }

  it("is refused at check, naming each stack and its name for it, before any request; the create never runs", async () => {
    const { sim, id, index } = await setUp();
    const { ctx, messages } = command(sim, index);
    const news = { projectId: project, title: "Pro plan", adoptId: id };
    const { failures } = await check(ctx, { name: "pro-plan", olds: {}, news, secrets: [] });
    expect(failures).toEqual([{ property: "", reason: REFUSAL }]);
    expect(sim.requests()).toEqual([]);
    expect(messages).toEqual([
      expect.stringMatching(
        new RegExp(
          `^info: serviceapi: the adoption check read 2 other stacks of the index ${index} \\(SERVICEAPI_OTHER_STACKS_INDEX\\) in \\d+ ms\\.$`,
        ),
      ),
    ]);
  });

  it("with serviceapi:adoptManaged=allow (or SERVICEAPI_ADOPT_MANAGED=allow) it warns, naming the stacks, and adopts", async () => {
    const { sim, id, index } = await setUp();
    for (const [settings, env, name, before, title] of [
      [{ adoptManaged: "allow" }, {}, "serviceapi:adoptManaged", "Pro", "Pro plan"],
      [{}, { SERVICEAPI_ADOPT_MANAGED: "Allow" }, "SERVICEAPI_ADOPT_MANAGED", "Pro plan", "Pro plan 2"],
    ] as const) {
      const { ctx, messages } = command(sim, index, settings, env);
      const news = { projectId: project, title, adoptId: id };
      expect((await check(ctx, { name: "pro-plan", olds: {}, news, secrets: [] })).failures).toEqual([]);
      expect(messages[1]).toBe(
        `warning: serviceapi: Product "pro-plan" (id ${id}): adoptId names a product that other stacks of this state backend manage: ` +
          'organization/catalog/prod (as "pro") and organization/web/dev (as "pro-dev"). ' +
          `${name} is allow, so it is adopted: from then on the two stacks undo each other's changes at every \`pulumi up\`, and a ` +
          "`pulumi destroy` of either archives the product, or sets back its fields, under the other, until those stacks give it up " +
          '(onDelete: "retain", `pulumi up`, then remove it from its program).',
      );
      expect(messages[2]).toContain(`sets title (${JSON.stringify(before)} → ${JSON.stringify(title)})`);
      expect((await create(ctx, { name: "pro-plan", inputs: news })).id).toBe(id);
    }
  });

  it("is read once per process: a second adoption of the command does not read again, nor does the create", async () => {
    const { sim, id, index } = await setUp();
    const { ctx: maker } = await harness({}, sim);
    const free = (await product.create(maker, { name: "free", inputs: { projectId: project, title: "Free" } })).id;
    const { ctx, messages } = command(sim, index, { adoptManaged: "allow" });
    const first = { projectId: project, title: "Pro plan", adoptId: id };
    expect((await check(ctx, { name: "pro-plan", olds: {}, news: first, secrets: [] })).failures).toEqual([]);
    // Gone after the first read: a second read would say it cannot be read.
    rmSync(index);
    expect(
      (await check(ctx, { name: "free", olds: {}, news: { projectId: project, title: "Free", adoptId: free }, secrets: [] })).failures,
    ).toEqual([]);
    await create(ctx, { name: "pro-plan", inputs: first });
    expect(messages.filter((m) => m.includes("adoption check read") || m.includes("not checked"))).toHaveLength(1);
  });

  it("an import (the plugin) is refused the same way, before any request", async () => {
    const { sim, id, index } = await setUp();
    const { ctx } = command(sim, index);
    await expect(importRecord(ctx, { name: "pro-plan", id, hint: {} })).rejects.toThrow(
      `Product "pro-plan" (id ${id}): the import takes over a product that other stacks of this state backend manage: ` +
        'organization/catalog/prod (as "pro") and organization/web/dev (as "pro-dev"). Imported here too,',
    );
    expect(sim.requests()).toEqual([]);
  });

  it("a product only the provider's own stack records, or none, is adopted without a word about other stacks", async () => {
    const { sim, index } = await setUp();
    const { ctx: maker } = await harness({}, sim);
    const own = (await product.create(maker, { name: "x", inputs: { projectId: project, title: "X" } })).id;
    const ownIndex = indexFile({ [own]: [{ stack: "organization/shop/team2", name: "x" }] });
    for (const file of [ownIndex, index]) {
      const { ctx, messages } = command(sim, file);
      expect(
        (await check(ctx, { name: "x", olds: {}, news: { projectId: project, title: "X", adoptId: own }, secrets: [] })).failures,
      ).toEqual([]);
      expect(messages.filter((m) => m.startsWith("warning"))).toEqual([]);
    }
  });

  it("an index that cannot be read is said once, and the adoption goes on", async () => {
    const { sim, id } = await setUp();
    for (const [file, why] of [
      ["/nonexistent/other-stacks.json", "which cannot be read: ENOENT: no such file or directory, open '/nonexistent/other-stacks.json'"],
      [indexFile('{"v": 1, "products": {"x": "not a list"}}'), "which is not an index of product ids to stacks"],
      [indexFile('{"v": 2, "products": {}}'), "which is of version 2 (this provider reads 1)"],
    ]) {
      const { ctx, messages } = command(sim, file!);
      const news = { projectId: project, title: "Pro plan", adoptId: id };
      expect((await check(ctx, { name: "a", olds: {}, news, secrets: [] })).failures).toEqual([]);
      expect(messages[0]).toBe(
        `warning: serviceapi: the adoptions and imports of this command are not checked against the other stacks of the state backend: ` +
          `SERVICEAPI_OTHER_STACKS_INDEX names ${file}, ${why}. They go on as if no other stack managed those products.`,
      );
      expect(messages.filter((m) => m.includes("not checked"))).toHaveLength(1);
    }
  });

  it("a setting other than refuse or allow fails, naming where it was set", () => {
    const base = { token: "sim_test_token", baseUrl: "http://127.0.0.1:1" };
    expect(() => readSettings((k) => ({ ...base, adoptManaged: "yes" })[k as "token"], {})).toThrow(
      'serviceapi:adoptManaged must be refuse or allow (got "yes")',
    );
    expect(() => readSettings((k) => base[k as "token"], { SERVICEAPI_ADOPT_MANAGED: "maybe" })).toThrow(
      'SERVICEAPI_ADOPT_MANAGED must be refuse or allow (got "maybe")',
    );
    expect(readSettings((k) => base[k as "token"], {}).adoptManaged).toBe("refuse");
  });
});

describe("the other stacks", () => {
  it("the provider's own stack is left out: the plugin's (no organization in a URN) by project and stack, the dynamic face's by its full name", () => {
    const ref = { organization: "organization", project: "shop", stack: "team2" };
    expect(isOwn(ref, { project: "shop", stack: "team2" })).toBe(true);
    expect(isOwn(ref, { organization: "organization", project: "shop", stack: "team2" })).toBe(true);
    expect(isOwn(ref, { organization: "acme", project: "shop", stack: "team2" })).toBe(false);
    expect(isOwn(ref, { project: "web", stack: "team2" })).toBe(false);
    expect(isOwn({ ...ref, project: "" }, { project: "web", stack: "team2" })).toBe(true);
  });

  it("without an index and without its own stack's name, nothing is read: its own records would read as another stack's", async () => {
    expect(await readOtherStacks(undefined, { PULUMI_BACKEND_URL: "file:///nonexistent" }, undefined)).toEqual({
      readable: false,
      why: "this provider could not tell which stack it runs for",
    });
  });

  it("without PULUMI_BACKEND_URL the CLI is asked which backend; without a CLI, that is the reason given", async () => {
    const read = await readOtherStacks({ project: "shop", stack: "team2" }, { PATH: "/nonexistent" }, undefined);
    expect(read).toEqual({
      readable: false,
      why: "the state backend `pulumi whoami` names cannot be read: pulumi whoami --verbose --json --non-interactive failed: spawn pulumi ENOENT",
    });
  });

  it("a backend that cannot be read says which and why", async () => {
    const read = await readOtherStacks({ project: "shop", stack: "team2" }, { PULUMI_BACKEND_URL: "file:///nonexistent/state" }, undefined);
    expect(read).toEqual({
      readable: false,
      why: "the state backend file:///nonexistent/state cannot be read: ENOENT: no such file or directory, stat '/nonexistent/state'",
    });
  });
});
