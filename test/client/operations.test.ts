import { describe, expect, it } from "vitest";
import { DEFAULT_IDS } from "pulumi-serviceapi-simulator";
import { OPERATIONS } from "../../provider/contract/schemas";
import { NULL_PRODUCT_FIELDS, clientFor, simulator, siteRecord, taskRecord } from "../helpers";
import { nextWeeklyAt } from "../support/time";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("each operation against the simulator", () => {
  it("projects.list: GET /v1/projects with version 2026-07-11, page size 100, every project once", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim);
    const projects = await client.listProjects().toArray();
    expect(projects.map((p) => p.name)).toEqual(["Acme Web", "Acme Docs", "Globex Shop", null]);
    expect(projects[0]).toEqual({
      object: "project",
      id: DEFAULT_IDS.acmeWeb,
      name: "Acme Web",
      workspaceId: DEFAULT_IDS.acmeWorkspace,
    });
    const [req] = sim.requests();
    expect(req).toMatchObject({ method: "GET", path: "/v1/projects?limit=100", body: null });
    expect(req!.headers).toMatchObject({
      authorization: "Bearer [REDACTED]",
      "service-api-version": "2026-07-11",
      accept: "application/json",
    });
    expect(req!.headers["content-type"]).toBeUndefined();
  });

  it("projects.list filters by workspaceId", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim);
    const projects = await client.listProjects({ workspaceId: DEFAULT_IDS.globexWorkspace }).toArray();
    expect(projects.map((p) => p.id)).toEqual([DEFAULT_IDS.globexShop, DEFAULT_IDS.globexUnnamed]);
    expect(sim.requests()[0]!.path).toBe(`/v1/projects?workspaceId=${DEFAULT_IDS.globexWorkspace}&limit=100`);
  });

  it("sites.list: GET /api/v1/public/sites?projectId=…", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim);
    const sites = await client.listSites({ projectId: DEFAULT_IDS.globexShop }).toArray();
    expect(sites).toHaveLength(5);
    // The first seeded site of the project, as the seed gave it: every field of the contract's site table.
    const seeded = sim.seed.sites.find((site) => site.projectId === DEFAULT_IDS.globexShop)!;
    expect(seeded).toMatchObject({ name: "Globex Shop 001", subdomain: "globex-shop-001", is_default: true });
    expect(sites[0]).toEqual(siteRecord(seeded));
    expect(sites.filter((s) => s.is_default)).toHaveLength(1);
    const [req] = sim.requests();
    expect(req).toMatchObject({ method: "GET", path: `/api/v1/public/sites?projectId=${DEFAULT_IDS.globexShop}&limit=100` });
    expect(req!.headers["service-api-version"]).toBe("2026-07-11");
  });

  it("sites.update: PATCH /v1/sites/{id} with exactly {name}", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim);
    const [site] = await client
      .listSites({ projectId: DEFAULT_IDS.acmeDocs, limit: 1 })
      .firstPage()
      .then((p) => p.items);
    const renamed = await client.updateSite(site!.id!, { name: "Docs (primary)" });
    expect(renamed).toEqual({ ...site, name: "Docs (primary)" });
    const req = sim.requests("sites.update")[0]!;
    expect(req).toMatchObject({ method: "PATCH", path: `/v1/sites/${site!.id}`, body: { name: "Docs (primary)" } });
    expect(req.headers).toMatchObject({ "service-api-version": "2026-07-11", "content-type": "application/json" });
    const again = await client.listSites({ projectId: DEFAULT_IDS.acmeDocs }).toArray();
    expect(again[0]!.name).toBe("Docs (primary)");
  });

  it("tasks.create: POST /v1/tasks; a one-off task runs at scheduledAt", async () => {
    // The service's clock at a fixed instant: createdAt is exactly it.
    const now = "2029-06-01T12:34:56.789Z";
    const sim = await simulator({ clock: { date: () => Date.parse(now) } });
    const { client } = clientFor(sim);
    const body = {
      title: "Weekly digest",
      prompt: "Summarise last week's changes",
      scheduledAt: "2030-01-07T09:00:00Z",
      projectId: DEFAULT_IDS.acmeWeb,
      emoji: "📰",
    };
    const task = await client.createTask(body);
    // The body's fields a task record carries, an empty rrule (none was sent), and what the service sets.
    expect(task).toEqual(
      taskRecord({
        ...body,
        id: expect.stringMatching(UUID),
        rrule: "",
        nextRunAt: "2030-01-07T09:00:00.000Z",
        createdAt: now,
        updatedAt: now,
      }),
    );
    const req = sim.requests("tasks.create")[0]!;
    expect(req).toMatchObject({ method: "POST", path: "/v1/tasks", body });
    expect(req.headers["service-api-version"]).toBe("2026-07-11");
  });

  it("tasks.create: a recurring task's nextRunAt is the first RRULE occurrence from now", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim);
    // Started on a Monday in the past, every Monday at 09:00 UTC.
    const task = await client.createTask({
      title: "Monday check",
      prompt: "Check the sites",
      scheduledAt: "2024-01-01T09:00:00Z",
      rrule: "FREQ=WEEKLY;BYDAY=MO",
      projectId: DEFAULT_IDS.acmeWeb,
    });
    expect(task.rrule).toBe("FREQ=WEEKLY;BYDAY=MO");
    // "Now" is the service's: the createdAt it reports, read in the same moment as nextRunAt.
    expect(task.nextRunAt).toBe(nextWeeklyAt(new Date(task.createdAt!), 1, 9).toISOString());
  });

  it("products.create: POST /api/v1/public/products with version 2026-06-27; starts as draft", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim);
    const product = await client.createProduct({ title: "Pro plan", projectId: DEFAULT_IDS.acmeWeb, slug: "pro" });
    expect(product).toEqual({
      ...NULL_PRODUCT_FIELDS,
      object: "product",
      id: expect.stringMatching(UUID),
      title: "Pro plan",
      slug: "pro",
      status: "draft",
      type: "digital",
    });
    const req = sim.requests("products.create")[0]!;
    expect(req).toMatchObject({
      method: "POST",
      path: "/api/v1/public/products",
      body: { title: "Pro plan", projectId: DEFAULT_IDS.acmeWeb, slug: "pro" },
    });
    expect(req.headers["service-api-version"]).toBe("2026-06-27");
  });

  it("products.update: PATCH sends only the given fields; null clears; {} changes nothing", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim);
    const created = await client.createProduct({
      title: "Pro plan",
      projectId: DEFAULT_IDS.acmeWeb,
      description: "All features",
      externalCheckoutUrl: "https://shop.example.com/pro",
    });
    const updated = await client.updateProduct(created.id, { status: "active", description: null });
    expect(updated).toEqual({ ...created, status: "active", description: null });
    const unchanged = await client.updateProduct(created.id, {});
    expect(unchanged).toEqual(updated);
    const patches = sim.requests("products.update");
    expect(patches.map((r) => r.body)).toEqual([{ status: "active", description: null }, {}]);
    expect(patches[0]!.path).toBe(`/api/v1/public/products/${created.id}`);
    expect(patches[0]!.headers["service-api-version"]).toBe("2026-07-11");
  });

  it("covers every operation of the contract: each has a test above named after it", ({ task }) => {
    const names = task.suite!.tasks.map((t) => t.name);
    expect(Object.keys(OPERATIONS).filter((op) => !names.some((n) => n.startsWith(`${op}:`)))).toEqual([]);
  });

  it("publicBaseUrl sends the /api/v1/public operations to their own host", async () => {
    const main = await simulator();
    const pub = await simulator();
    const { client } = clientFor(main, { publicBaseUrl: pub.url });
    await client.listProjects().toArray();
    await client.listSites({ projectId: DEFAULT_IDS.acmeDocs }).toArray();
    expect(main.requests().map((r) => r.operation)).toEqual(["projects.list"]);
    expect(pub.requests().map((r) => r.operation)).toEqual(["sites.list"]);
  });

  it("a baseUrl path prefix is kept in front of the documented paths", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim, { baseUrl: `${sim.url}/` });
    await client.listProjects({ limit: 1 }).firstPage();
    expect(sim.requests()[0]!.path).toBe("/v1/projects?limit=1");
  });

  it("reuses keep-alive connections instead of opening one per request", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim);
    await client.listSites({ projectId: DEFAULT_IDS.acmeWeb }).toArray();
    for (let i = 0; i < 5; i++) await client.createProduct({ title: `t${i}`, projectId: DEFAULT_IDS.acmeWeb });
    const ports = new Set(sim.requests().map((r) => r.remotePort));
    expect(sim.requests()).toHaveLength(8);
    // undici may open a second socket while the first finishes its bookkeeping; never one per request.
    expect(ports.size).toBeLessThanOrEqual(2);
  });
});
