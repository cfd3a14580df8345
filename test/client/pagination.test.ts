import { MockAgent } from "undici";
import { describe, expect, it } from "vitest";
import { PaginationError, ServiceApiClient } from "../../provider/client";
import { DEFAULT_IDS, defaultSeed, seedId } from "pulumi-serviceapi-simulator";
import { clientFor, raw, simulator } from "../helpers";

describe("cursor pagination", () => {
  it("lists 250 sites in ⌈250/100⌉ = 3 requests, each record exactly once", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim);
    const ids: string[] = [];
    for await (const site of client.listSites({ projectId: DEFAULT_IDS.acmeWeb })) ids.push(site.id!);
    expect(ids).toHaveLength(250);
    expect(new Set(ids).size).toBe(250);
    const requests = sim.requests("sites.list");
    expect(requests).toHaveLength(3);
    expect(requests.map((r) => new URL(r.path, sim.url).searchParams.get("limit"))).toEqual(["100", "100", "100"]);
    const cursors = requests.map((r) => new URL(r.path, sim.url).searchParams.get("cursor"));
    expect(cursors[0]).toBeNull();
    expect(cursors[1]).toMatch(/^.{1,200}$/);
    expect(cursors[2]).toMatch(/^.{1,200}$/);
    expect(cursors[1]).not.toBe(cursors[2]);
  });

  it("lists 301 projects in 4 requests and 300 in 3", async () => {
    for (const n of [300, 301]) {
      const seed = defaultSeed();
      const ws = seed.workspaces[0]!.id;
      seed.projects = Array.from({ length: n }, (_, i) => ({ id: seedId(`bulk:${n}:${i}`), workspaceId: ws, name: `P${i}` }));
      seed.sites = [];
      const sim = await simulator({ seed });
      const { client } = clientFor(sim);
      const projects = await client.listProjects({ workspaceId: ws }).toArray();
      expect(projects.map((p) => p.name)).toEqual(Array.from({ length: n }, (_, i) => `P${i}`));
      expect(sim.requests("projects.list")).toHaveLength(Math.ceil(n / 100));
    }
  });

  it("gives page-level access: pages() and firstPage()", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim);
    const sizes: number[] = [];
    for await (const page of client.listSites({ projectId: DEFAULT_IDS.acmeWeb, limit: 40 }).pages()) sizes.push(page.items.length);
    expect(sizes).toEqual([40, 40, 40, 40, 40, 40, 10]);
    const first = await client.listSites({ projectId: DEFAULT_IDS.acmeWeb, limit: 40 }).firstPage();
    expect(first.hasMore).toBe(true);
    const resumed = await client.listSites({ projectId: DEFAULT_IDS.acmeWeb, cursor: first.nextCursor! }).toArray();
    expect(resumed).toHaveLength(210);
  });

  it("stays stable while records change: renames and new sites mid-listing skip or repeat nothing", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim);
    const before = await client.listSites({ projectId: DEFAULT_IDS.acmeWeb }).toArray();
    const seen: string[] = [];
    let pages = 0;
    for await (const page of client.listSites({ projectId: DEFAULT_IDS.acmeWeb, limit: 50 }).pages()) {
      seen.push(...page.items.map((s) => s.id!));
      pages += 1;
      if (pages === 2) {
        // Rename records on pages already read and pages still to come, and add one.
        await client.updateSite(before[0]!.id!, { name: "zzz renamed first" });
        await client.updateSite(before[200]!.id!, { name: "aaa renamed later" });
        sim.addSite({ projectId: DEFAULT_IDS.acmeWeb, name: "Added during listing", subdomain: "added" });
      }
    }
    expect(seen).toHaveLength(251);
    expect(new Set(seen).size).toBe(251);
    expect(seen.slice(0, 250)).toEqual(before.map((s) => s.id));
  });

  it("the simulator's default page size is 20 and its cursors are opaque and bounded", async () => {
    const sim = await simulator();
    const page = await raw(sim, "GET", `/api/v1/public/sites?projectId=${DEFAULT_IDS.acmeWeb}`);
    expect(page.body.data).toHaveLength(20);
    expect(page.body).toMatchObject({ object: "list", has_more: true });
    expect(page.body.next_cursor.length).toBeGreaterThanOrEqual(1);
    expect(page.body.next_cursor.length).toBeLessThanOrEqual(200);
    const other = await raw(sim, "GET", `/api/v1/public/sites?projectId=${DEFAULT_IDS.acmeDocs}&cursor=${page.body.next_cursor}`);
    expect(other.status).toBe(400);
    expect(other.body.error.message).toBe("cursor belongs to a different listing (other filters)");
    const last = await raw(sim, "GET", `/api/v1/public/sites?projectId=${DEFAULT_IDS.acmeDocs}`);
    expect(last.body).toMatchObject({ has_more: false, next_cursor: null });
  });
});

describe("loop guard (MockAgent: a faulty server the simulator does not imitate)", () => {
  const P = "00000000-0000-4000-8000-000000000001";
  const project = (i: number) => ({ object: "project", id: P, name: `p${i}`, workspaceId: P });

  function serverReplying(pages: unknown[]) {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const pool = agent.get("https://api.example.com");
    for (const page of pages) pool.intercept({ path: /\/v1\/projects/, method: "GET" }).reply(200, page as object);
    const client = new ServiceApiClient({ baseUrl: "https://api.example.com", token: "tok_mock_abcdef", dispatcher: agent });
    return { client, agent };
  }

  it("stops with a clear error when a cursor comes back a second time", async () => {
    const { client } = serverReplying([
      { object: "list", data: [project(1)], has_more: true, next_cursor: "c1" },
      { object: "list", data: [project(2)], has_more: true, next_cursor: "c2" },
      { object: "list", data: [project(3)], has_more: true, next_cursor: "c1" },
    ]);
    const names: (string | null)[] = [];
    const err = await (async () => {
      for await (const p of client.listProjects()) names.push(p.name);
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PaginationError);
    expect((err as Error).message).toBe('projects.list: pagination stopped: the server returned cursor "c1" a second time');
    expect(names).toEqual(["p1", "p2", "p3"]);
  });

  it("stops when has_more is true but next_cursor is null", async () => {
    const { client } = serverReplying([{ object: "list", data: [project(1)], has_more: true, next_cursor: null }]);
    const err = await client
      .listProjects()
      .toArray()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PaginationError);
    expect((err as Error).message).toBe(
      "projects.list: pagination stopped: the server sent an unfollowable page: has_more is true but next_cursor is null",
    );
  });
});
