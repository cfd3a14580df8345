/**
 * The provider functions called directly against the simulator: exact request bodies from its
 * request log, what each function returns to the engine, and the data sources. (Unit tests; the
 * same behaviour under the real CLI is in test/engine/.)
 */
import * as pulumi from "@pulumi/pulumi";
import { beforeEach, describe, expect, it } from "vitest";
import * as product from "../provider/dynamic/product";
import * as site from "../provider/dynamic/site";
import * as task from "../provider/dynamic/task";
import { UNKNOWN } from "../provider/lifecycle/checks";
import { buildProductPatch, productInputFailures, type ProductInputs, type ProductOutputs } from "../provider/lifecycle/product";
import type { Stored } from "../provider/lifecycle/stored-state";
import { getProject, getProjects, getProjectsOutput, getSite, getSites, getSitesOutput } from "../provider";
import { DEFAULT_IDS } from "../simulator/seed";
import type { Simulator } from "../simulator";
import { configureRequest, simulator } from "./helpers";

const project = DEFAULT_IDS.acmeWeb;
const STUB = "exports.handler = …";

let sim: Simulator;

async function configure(sim: Simulator, extra: Record<string, string> = {}): Promise<void> {
  const config: Record<string, string> = { "serviceapi:token": sim.token, "serviceapi:baseUrl": sim.url, ...extra };
  await product.configure(configureRequest(config));
}

function bodies(operation?: string) {
  return sim.requests(operation).map((r) => r.body);
}

beforeEach(async () => {
  sim = await simulator();
  await configure(sim);
});

describe("buildProductPatch", () => {
  const live = { title: "Pro", description: "Old", slug: "pro", status: "draft", externalCheckoutUrl: null };
  it.each([
    ["nothing changed", { projectId: project, title: "Pro", description: "Old", slug: "pro" }, {}],
    ["one field", { projectId: project, title: "Pro 2", description: "Old", slug: "pro" }, { title: "Pro 2" }],
    ["nullable fields removed from the program become null", { projectId: project, title: "Pro" }, { description: null, slug: null }],
    ["status and title left out are not managed", { projectId: project, description: "Old", slug: "pro" } as Stored<ProductInputs>, {}],
    ["status declared", { projectId: project, title: "Pro", description: "Old", slug: "pro", status: "active" as const }, { status: "active" }],
    ["url added", { projectId: project, title: "Pro", description: "Old", slug: "pro", externalCheckoutUrl: "https://x.example/c" },
      { externalCheckoutUrl: "https://x.example/c" }],
  ])("%s", (_name, desired, patch) => {
    expect(buildProductPatch(live, desired)).toEqual(patch);
  });
});

describe("Product provider", () => {
  const inputs = { projectId: project, title: "Pro plan", slug: "pro", status: "active" as const, __provider: STUB };

  it("create POSTs without status, then PATCHes only status; outputs carry every record field", async () => {
    const { id, outs } = await product.create(inputs);
    expect(bodies()).toEqual([{ title: "Pro plan", projectId: project, slug: "pro" }, { status: "active" }]);
    expect(outs).toEqual({
      projectId: project, title: "Pro plan", description: null, slug: "pro", status: "active", type: "digital",
      externalCheckoutUrl: null, onDelete: "archive", __declared: ["projectId", "slug", "status", "title"],
    });
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("create without a declared status sends no PATCH", async () => {
    await product.create({ projectId: project, title: "Draft one", __provider: STUB });
    expect(sim.requests().map((r) => r.operation)).toEqual(["products.create"]);
  });

  it("a failed status PATCH after create throws the partial-create object the engine records", async () => {
    await configure(sim, { "serviceapi:initialRetryDelayMs": "1", "serviceapi:maxRetryDelayMs": "5" });
    sim.addFault({ operation: "products.update", kind: "error", status: 500, times: 4 });
    const error = await product.create(inputs).catch((e: unknown) => e) as { id: string; properties: Record<string, unknown>; reasons: string[] };
    expect(error.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(error.properties).toMatchObject({ status: "draft", title: "Pro plan", __provider: STUB });
    expect(error.reasons).toHaveLength(1);
    expect(error.reasons[0]).toContain(`Product ${error.id} was created, but setting its status failed: products.update failed: 500`);
    expect(sim.counts().products).toBe(1);
  });

  it("diff sends no request but the read that previews an adoption; replaces on projectId or a different adoptId", async () => {
    const { id, outs } = await product.create(inputs);
    const { id: other } = await product.create({ ...inputs, title: "Other" });
    sim.clearRequests();
    expect(await product.diff(id, outs, { ...inputs })).toEqual({ changes: false, replaces: [], changed: [] });
    expect(await product.diff(id, outs, { ...inputs, title: "New" })).toEqual({ changes: true, replaces: [], changed: ["title"] });
    expect(await product.diff(id, outs, { ...inputs, projectId: DEFAULT_IDS.acmeDocs }))
      .toEqual({ changes: true, replaces: ["projectId"], changed: ["projectId"] });
    expect(await product.diff(id, outs, { ...inputs, title: UNKNOWN })).toEqual({ changes: true, replaces: [], changed: ["title"] });
    // null and absent are the same for nullable fields.
    expect(await product.diff(id, outs, { ...inputs, description: null })).toEqual({ changes: false, replaces: [], changed: [] });
    expect(sim.requests()).toEqual([]);
    expect((await product.diff(id, outs, { ...inputs, adoptId: id })).replaces).toEqual([]);
    expect(sim.requests()).toEqual([]);
    // Another product to adopt: a replacement, and one read to say what adopting it changes.
    expect(await product.diff(id, outs, { ...inputs, adoptId: other })).toEqual({ changes: true, replaces: ["adoptId"], changed: ["adoptId"] });
    expect(bodies()).toEqual([{}]);
    await expect(product.diff(id, outs, { ...inputs, adoptId: DEFAULT_IDS.acmeDocs })).rejects.toThrow(
      "adoptId names no product this token can see: reading it (an empty PATCH, the API's only read) was answered 404.");
  });

  it("update sends one PATCH with exactly the changed fields, and none when only onDelete changed", async () => {
    const { id, outs } = await product.create({ ...inputs, description: "Long text" });
    sim.clearRequests();
    const { outs: after } = await product.update(id, outs, { projectId: project, title: "Pro plan 2", status: "active", __provider: STUB });
    expect(bodies()).toEqual([{ title: "Pro plan 2", description: null, slug: null }]);
    sim.clearRequests();
    const { outs: retained } = await product.update(id, after, { projectId: project, title: "Pro plan 2", status: "active", onDelete: "retain", __provider: STUB });
    expect(sim.requests()).toEqual([]);
    expect(retained.onDelete).toBe("retain");
  });

  it("read uses an empty PATCH and returns live values under the declared input names", async () => {
    const { id, outs } = await product.create(inputs);
    const client = (await import("../provider/lifecycle/service")).apiClient();
    await client.updateProduct(id, { title: "Edited", description: "Added in UI" });
    sim.clearRequests();
    const result = await product.read(id, outs) as unknown as { id: string; props: Record<string, unknown>; inputs: Record<string, unknown> };
    expect(bodies()).toEqual([{}]);
    expect(result.props).toMatchObject({ title: "Edited", description: "Added in UI", status: "active" });
    expect(result.inputs).toEqual({ projectId: project, title: "Edited", slug: "pro", status: "active", description: "Added in UI" });
    // The engine's drift check: diff(refreshed outputs, old inputs).
    expect(await product.diff(id, result.props as unknown as ProductOutputs, inputs))
      .toEqual({ changes: true, replaces: [], changed: ["title", "description"] });
  });

  it("read of a product that is gone returns no id; productRefresh=false reads nothing", async () => {
    expect(await product.read("0b3f2a8e-5b7c-4f1e-9a6d-2c4e8f0a1b3d", { projectId: project } as ProductOutputs)).toEqual({});
    await configure(sim, { "serviceapi:productRefresh": "false" });
    sim.clearRequests();
    const props = { projectId: project, title: "Kept" } as ProductOutputs;
    expect(await product.read("0b3f2a8e-5b7c-4f1e-9a6d-2c4e8f0a1b3d", props)).toEqual({ id: "0b3f2a8e-5b7c-4f1e-9a6d-2c4e8f0a1b3d", props });
    expect(sim.requests()).toEqual([]);
  });

  it("delete archives whatever the state says, retain sends nothing, a vanished product is fine", async () => {
    const { id, outs } = await product.create(inputs);
    sim.clearRequests();
    await product.delete(id, outs);
    expect(bodies()).toEqual([{ status: "archived" }]);
    sim.clearRequests();
    // The state says archived, but the live record may not be: archiving is idempotent, so it is always sent.
    await product.delete(id, { ...outs, status: "archived" });
    expect(bodies()).toEqual([{ status: "archived" }]);
    sim.clearRequests();
    await product.delete(id, { ...outs, onDelete: "retain" });
    expect(sim.requests()).toEqual([]);
    await product.delete("0b3f2a8e-5b7c-4f1e-9a6d-2c4e8f0a1b3d", outs);
  });

  it("adoptId: one empty PATCH, one PATCH of the differences, no POST", async () => {
    const { id } = await product.create({ projectId: project, title: "Old", __provider: STUB });
    sim.clearRequests();
    const adopted = await product.create({ projectId: project, title: "New", adoptId: id, __provider: STUB });
    expect(adopted.id).toBe(id);
    expect(bodies()).toEqual([{}, { title: "New" }]);
    expect(sim.requests("products.create")).toEqual([]);
    const missing = await product.create({ projectId: project, title: "New", adoptId: "0b3f2a8e-5b7c-4f1e-9a6d-2c4e8f0a1b3d", __provider: STUB })
      .catch((e: Error) => e.message);
    expect(missing).toContain("adoptId 0b3f2a8e-5b7c-4f1e-9a6d-2c4e8f0a1b3d: no product with this id is visible to this token");
  });

  it("check names the field and limit, skips unknown values, and refuses to run without a token", async () => {
    const { failures } = await product.check({}, { projectId: UNKNOWN, title: "", slug: "s".repeat(1025), description: null, __provider: STUB });
    // An empty property: the engine would print the value beside a named one, and any value may be a secret.
    expect(failures).toEqual([
      { property: "", reason: "title must be 1 to 1024 characters long (got 0)" },
      { property: "", reason: "slug must be 1 to 1024 characters long (got 1025)" },
    ]);
    expect((await product.check({}, { projectId: project, title: null, __provider: STUB })).failures)
      .toEqual([{ property: "", reason: "title is required" }]);
    expect((await product.check({}, { projectId: project, title: "T", status: "published", externalCheckoutUrl: "not a url", __provider: STUB }))
      .failures!.map((f) => f.reason)).toEqual([
      'status must be one of "active", "archived", "draft"',
      "externalCheckoutUrl must be an absolute URI (RFC 3986: a scheme such as https:, ASCII only, no spaces, % only in %XX escapes)",
    ]);
    expect(productInputFailures({ projectId: project, title: "T", Title: "t", slgu: "x", __logicalName: "p" }).map((f) => f.reason)).toEqual([
      "Title is not an input of Product; did you mean title?",
      "slgu is not an input of Product; did you mean slug?",
    ]);
    await product.configure(configureRequest({}));
    const saved = { token: process.env.SERVICEAPI_TOKEN, url: process.env.SERVICEAPI_BASE_URL };
    delete process.env.SERVICEAPI_TOKEN;
    try {
      await expect(product.check({}, { projectId: project, title: "x" })).rejects.toThrow(
        "serviceapi: no API token. Set it with `pulumi config set --secret serviceapi:token <token>` or the SERVICEAPI_TOKEN environment variable.");
    } finally {
      if (saved.token !== undefined) process.env.SERVICEAPI_TOKEN = saved.token;
    }
    expect(sim.requests()).toEqual([]);
  });
});

describe("Site provider", () => {
  it("create renames only when the name differs and remembers the original name", async () => {
    const [a, b] = sim.seed.sites.filter((s) => s.projectId === DEFAULT_IDS.acmeDocs);
    const created = await site.create({ projectId: DEFAULT_IDS.acmeDocs, siteId: a!.id, name: "Docs", __provider: STUB });
    expect(created.outs).toMatchObject({ name: "Docs", originalName: a!.name, subdomain: a!.subdomain, restoreNameOnDelete: true });
    const same = await site.create({ projectId: DEFAULT_IDS.acmeDocs, siteId: b!.id, name: b!.name, __provider: STUB });
    expect(same.outs.originalName).toBe(b!.name);
    // One listing shared by both creates, one rename.
    expect(sim.requests().map((r) => r.operation)).toEqual(["sites.list", "sites.update"]);
    expect(bodies("sites.update")).toEqual([{ name: "Docs" }]);
    await site.delete(created.id, created.outs);
    expect(bodies("sites.update")).toEqual([{ name: "Docs" }, { name: a!.name }]);
  });

  it("a site outside the project is a clear error", async () => {
    const other = sim.seed.sites.find((s) => s.projectId === DEFAULT_IDS.globexShop)!;
    const refusal = "siteId is not a site of the project given as projectId: sites.list returned 3 sites for that project and none has this id.";
    // At preview, as an input problem naming the field, not the value.
    const checked = await site.check({}, { projectId: DEFAULT_IDS.acmeDocs, siteId: other.id, name: "X", __logicalName: "x" });
    expect((checked.failures ?? []).map((f) => f.reason)).toEqual([`${refusal} Check siteId and projectId (getSite looks a site up by name or subdomain)`]);
    // And at create, should the site have left the project since.
    await expect(site.create({ projectId: DEFAULT_IDS.acmeDocs, siteId: other.id, name: "X", __provider: STUB })).rejects.toThrow(refusal);
  });

  it("refreshing ten sites of one project costs one listing", async () => {
    const tenSites = sim.seed.sites.filter((s) => s.projectId === project).slice(0, 10);
    const states = tenSites.map((s) => ({
      projectId: project, siteId: s.id, name: s.name, subdomain: s.subdomain, isDefault: s.is_default,
      originalName: s.name, restoreNameOnDelete: true, __declared: ["name", "projectId", "siteId"],
    }));
    const results = await Promise.all(states.map((s) => site.read(s.siteId, s)));
    expect(results.every((r) => "id" in r && r.id !== undefined)).toBe(true);
    // 250 sites in the project: one listing is 3 pages, shared by all ten reads.
    expect(sim.requests("sites.list")).toHaveLength(3);
  });
});

describe("Task provider", () => {
  const inputs = { projectId: project, title: "Weekly", prompt: "Summarize", scheduledAt: "2026-12-07T09:00:00Z", rrule: "FREQ=WEEKLY;BYDAY=MO" };

  it("every change is a replacement; read and update keep state", async () => {
    const { id, outs } = await task.create({ ...inputs, __provider: STUB });
    expect(bodies()).toEqual([inputs]);
    expect(await task.diff(id, outs, { ...inputs })).toEqual({ changes: false, replaces: [], changed: [], deleteBeforeReplace: false });
    expect(await task.diff(id, outs, { ...inputs, rrule: "FREQ=DAILY", emoji: "📈" }))
      .toEqual({ changes: true, replaces: ["rrule", "emoji"], changed: ["rrule", "emoji"], deleteBeforeReplace: false });
    expect(await task.read(id, outs)).toEqual({ id, props: outs });
    expect(await task.update(id, outs, { ...inputs, __provider: STUB })).toEqual({ outs });
    await task.delete(id, outs);
    expect(sim.requests()).toHaveLength(1);
  });

  it("check refuses an rrule that never reaches an occurrence", async () => {
    const { failures } = await task.check({}, { ...inputs, rrule: "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30" });
    expect(failures!.map((f) => f.reason)).toEqual(["rrule is not a valid RRULE: no date matches its BYMONTH and BYMONTHDAY together, so it has no occurrence"]);
    expect(sim.requests()).toEqual([]);
  });
});

describe("data sources", () => {
  beforeEach(() => {
    process.env.SERVICEAPI_TOKEN = sim.token;
    process.env.SERVICEAPI_BASE_URL = sim.url;
  });

  it("getProjects and getSites follow every cursor: ⌈N/100⌉ requests", async () => {
    const { sites } = await getSites({ projectId: project });
    expect(sites).toHaveLength(250);
    expect(sites[0]).toEqual({ id: expect.any(String), name: "Acme Web 001", subdomain: "acme-web-001", isDefault: true });
    expect(sim.requests("sites.list")).toHaveLength(3);
    const { projects } = await getProjects({ workspaceId: DEFAULT_IDS.acmeWorkspace });
    expect(projects.map((p) => p.name).sort()).toEqual(["Acme Docs", "Acme Web"]);
  });

  it("getProject and getSite return exactly one record or say why not", async () => {
    expect((await getProject({ name: "Acme Docs" })).id).toBe(DEFAULT_IDS.acmeDocs);
    await expect(getProject({ name: "Nope" })).rejects.toThrow(new RegExp('^getProject: no project is named "Nope"; the 4 listed projects are: ' +
      `"Acme Web" \\(id ${DEFAULT_IDS.acmeWeb}, workspace ${DEFAULT_IDS.acmeWorkspace}\\), .*\\. Check the name \\(it is matched exactly, case included\\)\\.$`));
    await expect(getProject({ name: "Acme Docs", id: DEFAULT_IDS.acmeDocs })).rejects.toThrow("getProject: pass exactly one of `name` and `id`");
    sim.addSite({ projectId: DEFAULT_IDS.acmeDocs, name: "Acme Docs 001", subdomain: "docs-twin" });
    await expect(getSite({ projectId: DEFAULT_IDS.acmeDocs, name: "Acme Docs 001" })).rejects.toThrow(
      `getSite: 2 sites are named "Acme Docs 001" in project ${DEFAULT_IDS.acmeDocs}: "Acme Docs 001" (subdomain "acme-docs-001", id `);
    // Up to five candidates are listed, then how many more.
    for (let i = 1; i <= 6; i++) sim.addSite({ projectId: DEFAULT_IDS.acmeDocs, name: "Twin", subdomain: `twin-${i}` });
    const several = await getSite({ projectId: DEFAULT_IDS.acmeDocs, name: "Twin" }).catch((e: Error) => e);
    expect(several).toBeInstanceOf(pulumi.RunError);
    expect((several as Error).message).toMatch(new RegExp(`^getSite: 6 sites are named "Twin" in project ${DEFAULT_IDS.acmeDocs}: ` +
      '"Twin" \\(subdomain "twin-1", id [0-9a-f-]{36}\\), (("Twin" \\(subdomain "twin-\\d", id [0-9a-f-]{36}\\)), ){4}and 1 more\\. ' +
      "Look the site up by subdomain to choose\\.$"));
    expect((await getSite({ projectId: DEFAULT_IDS.acmeDocs, subdomain: "docs-twin" })).name).toBe("Acme Docs 001");
    expect((await getSite({ projectId: DEFAULT_IDS.acmeDocs, isDefault: true })).subdomain).toBe("acme-docs-001");
  });

  it("Output forms: an unknown argument gives an unknown result without a request; a secret one a secret result", async () => {
    const unknownResult = getSitesOutput({ projectId: pulumi.output(pulumi.unknown) as pulumi.Output<string> });
    expect(await (unknownResult as unknown as { isKnown: Promise<boolean> }).isKnown).toBe(false);
    expect(sim.requests()).toEqual([]);
    const secretResult = getProjectsOutput({ workspaceId: pulumi.secret(DEFAULT_IDS.acmeWorkspace) });
    expect(await pulumi.isSecret(secretResult)).toBe(true);
    expect(sim.requests("projects.list")).toHaveLength(1);
  });
});

describe("messages name a setting as the stack config key the user sets", () => {
  it("429 give-ups say serviceapi:maxRetryAfterMs and serviceapi:maxRateLimitRetries; nothing is created", async () => {
    await configure(sim, {
      "serviceapi:maxRetryAfterMs": "5000", "serviceapi:maxRateLimitRetries": "1", "serviceapi:minRateLimitDelayMs": "10",
    });
    const inputs = { projectId: project, title: "Pro plan", __provider: STUB };
    sim.addFault({ operation: "products.create", kind: "error", status: 429, retryAfter: "120" });
    const tooLong = await product.create(inputs).catch((e: unknown) => e);
    expect((tooLong as Error).message).toMatch(/ The server asked to wait 120000 ms, more than serviceapi:maxRetryAfterMs \(5000 ms\); not retried\.$/);
    sim.addFault({ operation: "products.create", kind: "error", status: 429, retryAfter: "0", times: 2 });
    const tooMany = await product.create(inputs).catch((e: unknown) => e);
    expect((tooMany as Error).message).toMatch(/ Answered 429 on 2 attempts; serviceapi:maxRateLimitRetries \(1\) allows no further retry\.$/);
    expect(sim.requests("products.create")).toHaveLength(3);
    expect(sim.counts().products).toBe(0);
  });

  it("a base URL or token the client refuses fails when the settings are read (at preview), named by where it was set", async () => {
    const { readSettings } = await import("../provider/settings");
    expect(() => readSettings((k) => ({ token: "sim_test_token", baseUrl: "http://api.example.com" })[k as "token"], {}))
      .toThrow(/^serviceapi:baseUrl must use https:\/\//);
    expect(() => readSettings(() => undefined, { SERVICEAPI_TOKEN: "sim_test_token", SERVICEAPI_BASE_URL: "http://api.example.com" }))
      .toThrow(/^SERVICEAPI_BASE_URL must use https:\/\//);
    expect(() => readSettings((k) => ({ token: "sim_test_token", baseUrl: "127.0.0.1:18950" })[k as "token"], {}))
      .toThrow('serviceapi:baseUrl must be an absolute URL such as https://api.example.com (got "127.0.0.1:18950")');
    expect(() => readSettings((k) => ({ token: "tok-a", baseUrl: "https://api.example.com" })[k as "token"], {}))
      .toThrow("token is too short (5 characters; at least 8): check SERVICEAPI_TOKEN or serviceapi:token");
  });
});

describe("Pulumi's unknown value", () => {
  it("the lifecycle's UNKNOWN is the SDK's own sentinel (written out so the plugin does not load the SDK runtime)", async () => {
    const { UNKNOWN } = await import("../provider/lifecycle/checks");
    const { unknownValue } = await import("@pulumi/pulumi/runtime");
    expect(UNKNOWN).toBe(unknownValue);
  });
});

describe("settings", () => {
  it("a numeric config value that is not an integer in range names the key, the range and the value", async () => {
    const { readSettings } = await import("../provider/settings");
    const base = { token: "sim_test_token", baseUrl: "http://127.0.0.1:1" };
    expect(() => readSettings((k) => ({ ...base, timeoutMs: "abc" })[k as "token"])).toThrow(
      'serviceapi:timeoutMs must be an integer from 1 to 3600000 (got "abc")');
    expect(() => readSettings((k) => ({ ...base, maxRetries: "11" })[k as "token"])).toThrow(
      'serviceapi:maxRetries must be an integer from 0 to 10 (got "11")');
    expect(readSettings((k) => ({ ...base, maxRetries: " 2 " })[k as "token"]).client.maxRetries).toBe(2);
  });
});
