import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "undici";
import { describe, expect, it } from "vitest";
import { MIN_TOKEN_LENGTH } from "../../provider/client";
import { MIN_TOKEN_LENGTH as SIMULATOR_MIN_TOKEN_LENGTH } from "../../simulator/seed";
import { ACME_ONLY_TOKEN, DEFAULT_IDS, READ_ONLY_TOKEN, seedId } from "pulumi-serviceapi-simulator";
import { envelope, raw, simulator, siteRecord, until } from "../helpers";
import { daysAhead } from "../support/time";

/** A time the service takes as ahead, whenever the test runs. */
const LATER = daysAhead(365, 0);

const P = DEFAULT_IDS.acmeWeb;
const OPS = [
  { op: "projects.list", method: "GET", path: "/v1/projects", version: "2026-07-11" },
  { op: "sites.list", method: "GET", path: `/api/v1/public/sites?projectId=${P}`, version: "2026-07-11" },
  { op: "sites.update", method: "PATCH", path: `/v1/sites/${seedId("site:acme-web:001")}`, version: "2026-07-11", body: { name: "n" } },
  {
    op: "tasks.create",
    method: "POST",
    path: "/v1/tasks",
    version: "2026-07-11",
    body: { title: "t", prompt: "p", scheduledAt: LATER, projectId: P },
  },
  { op: "products.create", method: "POST", path: "/api/v1/public/products", version: "2026-06-27", body: { title: "t", projectId: P } },
] as const;

describe("simulator: version header, per endpoint", () => {
  it.each(OPS)("$op accepts only $version", async ({ op, method, path, version, ...rest }) => {
    const sim = await simulator();
    const body = "body" in rest ? rest.body : undefined;
    const ok = await raw(sim, method, path, { version, body });
    expect(ok.status).toBeLessThan(300);
    const other = version === "2026-07-11" ? "2026-06-27" : "2026-07-11";
    expect(await raw(sim, method, path, { version: other, body })).toEqual(
      expect.objectContaining({
        status: 400,
        body: envelope("unsupported_api_version", `Service-Api-Version "${other}" is not supported by ${op}; it accepts ${version}`, sim),
      }),
    );
    expect(await raw(sim, method, path, { version: null, body })).toEqual(
      expect.objectContaining({
        status: 400,
        body: envelope("missing_api_version", `Service-Api-Version header is required; ${op} accepts ${version}`, sim),
      }),
    );
  });

  it("products.update accepts only 2026-07-11", async () => {
    const sim = await simulator();
    const { body: product } = await raw(sim, "POST", "/api/v1/public/products", { body: { title: "t", projectId: P } });
    const path = `/api/v1/public/products/${product.id}`;
    expect((await raw(sim, "PATCH", path, { body: {} })).status).toBe(200);
    expect((await raw(sim, "PATCH", path, { body: {}, version: "2026-06-27" })).status).toBe(400);
  });
});

describe("simulator: authentication and access", () => {
  it("401 for a missing, malformed or unknown bearer token, without echoing it", async () => {
    const sim = await simulator();
    expect(await raw(sim, "GET", "/v1/projects", { token: null })).toMatchObject({
      status: 401,
      body: envelope("unauthorized", "missing bearer token: send Authorization: Bearer <token>", sim),
    });
    expect(await raw(sim, "GET", "/v1/projects", { token: "nope-nope" })).toMatchObject({
      status: 401,
      body: envelope("unauthorized", "invalid public API token", sim),
    });
    const basic = await request(`${sim.url}/v1/projects`, { headers: { authorization: "Basic abc", "service-api-version": "2026-07-11" } });
    expect(basic.statusCode).toBe(401);
    await basic.body.dump();
  });

  it("403 for records in a workspace the token may not access; 404 for unknown ids", async () => {
    const sim = await simulator();
    const globexSite = seedId("site:globex-shop:001");
    const opts = { token: ACME_ONLY_TOKEN };
    expect((await raw(sim, "PATCH", `/v1/sites/${globexSite}`, { ...opts, body: { name: "x" } })).status).toBe(403);
    expect((await raw(sim, "GET", `/api/v1/public/sites?projectId=${DEFAULT_IDS.globexShop}`, opts)).status).toBe(403);
    expect(
      (
        await raw(sim, "POST", "/v1/tasks", {
          ...opts,
          body: { title: "t", prompt: "p", scheduledAt: LATER, projectId: DEFAULT_IDS.globexShop },
        })
      ).status,
    ).toBe(403);
    const { body: product } = await raw(sim, "POST", "/api/v1/public/products", {
      body: { title: "t", projectId: DEFAULT_IDS.globexShop },
    });
    expect((await raw(sim, "PATCH", `/api/v1/public/products/${product.id}`, { ...opts, body: {} })).status).toBe(403);
    const unknownWs = "00000000-0000-4000-8000-0000000000aa";
    expect(await raw(sim, "GET", `/v1/projects?workspaceId=${unknownWs}`)).toMatchObject({
      status: 404,
      body: envelope("not_found", `workspace ${unknownWs} not found`, sim),
    });
    expect(await raw(sim, "GET", "/v1/nothing")).toMatchObject({
      status: 404,
      body: envelope("not_found", "no endpoint GET /v1/nothing", sim),
    });
  });

  it("a read-only token lists; each of its writes is 403 naming the operation, and changes nothing", async () => {
    const sim = await simulator();
    const opts = { token: READ_ONLY_TOKEN };
    expect((await raw(sim, "GET", "/v1/projects", opts)).status).toBe(200);
    expect((await raw(sim, "GET", `/api/v1/public/sites?projectId=${P}`, opts)).status).toBe(200);
    const { body: product } = await raw(sim, "POST", "/api/v1/public/products", { body: { title: "t", projectId: P } });
    const writes: { op: string; method: "POST" | "PATCH"; path: string; body: unknown }[] = OPS.filter((o) => o.method !== "GET").map(
      (o) => ({
        op: o.op,
        method: o.method,
        path: o.path,
        body: "body" in o ? o.body : {},
      }),
    );
    writes.push({ op: "products.update", method: "PATCH", path: `/api/v1/public/products/${product.id}`, body: {} });
    const before = sim.counts();
    for (const w of writes) {
      const version = OPS.find((o) => o.op === w.op)?.version ?? "2026-07-11";
      expect(await raw(sim, w.method, w.path, { ...opts, version, body: w.body })).toMatchObject({
        status: 403,
        body: envelope("forbidden", `this token may only read: ${w.op} (${w.method}) needs a token that may write`, sim),
      });
    }
    expect(sim.counts()).toEqual(before);
  });
});

describe("simulator: test control over HTTP", () => {
  it("faults, rate limit, request log (token redacted) and reset under /_simulator", async () => {
    const sim = await simulator({ token: "tok_secret_control" });
    const control = async (method: "GET" | "POST" | "PUT" | "DELETE", path: string, body?: unknown) => {
      const res = await request(`${sim.url}/_simulator/${path}`, {
        method,
        body: body === undefined ? undefined : JSON.stringify(body),
        headers: body === undefined ? {} : { "content-type": "application/json" },
      });
      const text = await res.body.text();
      return { status: res.statusCode, body: text ? JSON.parse(text) : null };
    };

    const fault = await control("POST", "faults", { operation: "projects.list", kind: "error", status: 503, retryAfter: "2", times: 2 });
    expect(fault).toMatchObject({
      status: 201,
      body: { operation: "projects.list", kind: "error", status: 503, remaining: 2, when: "before" },
    });
    expect((await control("POST", "faults", { kind: "error" })).body.error.message).toBe("status is required for an error fault");
    const first = await raw(sim, "GET", "/v1/projects");
    expect(first).toMatchObject({ status: 503, body: { error: { code: "service_unavailable" } } });
    expect(first.headers["retry-after"]).toBe("2");
    expect((await raw(sim, "GET", "/v1/projects")).status).toBe(503);
    expect((await raw(sim, "GET", "/v1/projects")).status).toBe(200);
    // A number of seconds, as simulator/README.md's table reads, is the same header.
    expect((await control("POST", "faults", { operation: "projects.list", kind: "error", status: 429, retryAfter: 2 })).status).toBe(201);
    expect((await raw(sim, "GET", "/v1/projects")).headers["retry-after"]).toBe("2");
    expect((await control("POST", "faults", { kind: "error", status: 429, retryAfter: 1.5 })).body.error.message).toBe(
      "retryAfter must be a whole number of seconds, or a string",
    );

    await control("PUT", "rate-limit", { limit: 1, windowMs: 60_000 });
    expect((await raw(sim, "GET", "/v1/projects")).status).toBe(200);
    const limited = await raw(sim, "GET", "/v1/projects");
    expect(limited).toMatchObject({ status: 429, body: { error: { code: "rate_limited" } } });
    expect(Number(limited.headers["retry-after"])).toBeGreaterThanOrEqual(59);
    await control("DELETE", "rate-limit");
    expect((await raw(sim, "GET", "/v1/projects")).status).toBe(200);

    const log = await control("GET", "requests?operation=projects.list");
    expect(log.body.data.map((r: { status: number }) => r.status)).toEqual([503, 503, 200, 429, 200, 429, 200]);
    expect(log.body.data[0].headers.authorization).toBe("Bearer [REDACTED]");
    expect(JSON.stringify(log.body)).not.toContain("tok_secret_control");

    await raw(sim, "POST", "/api/v1/public/products", { body: { title: "t", projectId: P } });
    expect(sim.counts().products).toBe(1);
    expect((await control("POST", "reset")).status).toBe(204);
    expect(sim.counts().products).toBe(0);
    expect((await control("GET", "requests")).body.data).toEqual([]);
    expect((await control("GET", "errors/rate_limited")).body).toMatchObject({ code: "rate_limited", status: 429 });
  });

  it("a reset fault drops the connection without a response", async () => {
    const sim = await simulator();
    sim.addFault({ kind: "reset" });
    const err = await raw(sim, "GET", "/v1/projects").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(sim.requests()[0]!.status).toBe("reset");
  });

  it("renames persist in the seed-backed store and reset restores the seed", async () => {
    const sim = await simulator();
    const id = seedId("site:acme-docs:001");
    await raw(sim, "PATCH", `/v1/sites/${id}`, { body: { name: "Renamed" } });
    const listed = await raw(sim, "GET", `/api/v1/public/sites?projectId=${DEFAULT_IDS.acmeDocs}`);
    // The seeded site, renamed: every other field of the contract's site table as the seed gave it.
    const seeded = sim.seed.sites.find((site) => site.id === id)!;
    expect(listed.body.data[0]).toEqual(siteRecord({ ...seeded, name: "Renamed" }));
    sim.reset();
    const after = await raw(sim, "GET", `/api/v1/public/sites?projectId=${DEFAULT_IDS.acmeDocs}`);
    expect(after.body.data[0].name).toBe("Acme Docs 001");
  });
});

describe("simulator: seed files", () => {
  it("loads workspaces, projects, sites and tokens from --seed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sim-seed-"));
    const file = join(dir, "seed.json");
    const ws = seedId("t:ws");
    const project = seedId("t:project");
    writeFileSync(
      file,
      JSON.stringify({
        workspaces: [{ id: ws, name: "Solo" }],
        projects: [{ id: project, workspaceId: ws, name: "Only" }],
        sites: [{ id: seedId("t:site"), projectId: project, name: "Home", subdomain: "home", is_default: true }],
        tokens: [{ token: "solo-token-1", workspaces: [ws] }],
      }),
    );
    const sim = await simulator({ seedFile: file });
    expect(sim.token).toBe("solo-token-1");
    expect((await raw(sim, "GET", "/v1/projects")).body.data).toEqual([{ object: "project", id: project, name: "Only", workspaceId: ws }]);
  });

  it("rejects an inconsistent seed with the reason", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sim-seed-"));
    const file = join(dir, "seed.json");
    const ws = seedId("t:ws");
    writeFileSync(
      file,
      JSON.stringify({
        workspaces: [{ id: ws, name: "Solo" }],
        projects: [{ id: seedId("p"), workspaceId: seedId("other"), name: null }],
        sites: [],
        tokens: [{ token: "xxxxxxxx", workspaces: [ws] }],
      }),
    );
    await expect(simulator({ seedFile: file })).rejects.toThrow(
      `invalid seed ${file}: project ${seedId("p")} names unknown workspace ${seedId("other")}`,
    );
  });
});

describe("simulator: what the API cannot list", () => {
  it("GET /_simulator/products and /_simulator/tasks list every record with its project, oldest first", async () => {
    const sim = await simulator();
    const first = await raw(sim, "POST", "/api/v1/public/products", { body: { title: "First", projectId: P } });
    const second = await raw(sim, "POST", "/api/v1/public/products", {
      body: { title: "Second", projectId: DEFAULT_IDS.acmeDocs, slug: "s" },
    });
    const task = await raw(sim, "POST", "/v1/tasks", {
      body: { title: "T", prompt: "P", scheduledAt: LATER, projectId: P },
    });
    const products = (await request(`${sim.url}/_simulator/products`).then((r) => r.body.json())) as { data: unknown[] };
    expect(products.data).toEqual([
      { ...first.body, projectId: P },
      { ...second.body, projectId: DEFAULT_IDS.acmeDocs },
    ]);
    const tasks = (await request(`${sim.url}/_simulator/tasks`).then((r) => r.body.json())) as { data: unknown[] };
    expect(tasks.data).toEqual([{ ...task.body, projectId: P, prompt: "P", scheduledAt: LATER }]);
    expect(sim.products()).toEqual(products.data);
    expect(sim.tasks()).toEqual(tasks.data);
  });

  it("a hang fault holds a request until its client leaves, and never processes it", async () => {
    const sim = await simulator();
    sim.addFault({ operation: "products.create", kind: "hang" });
    const gone = await request(`${sim.url}/api/v1/public/products`, {
      method: "POST",
      signal: AbortSignal.timeout(200),
      headers: { authorization: `Bearer ${sim.token}`, "service-api-version": "2026-06-27", "content-type": "application/json" },
      body: JSON.stringify({ title: "Left early", projectId: P }),
    }).catch((e: Error) => e);
    expect(gone).toBeInstanceOf(Error);
    // The simulator sees the client go at once; its close event arrives on a later turn.
    await until("the simulator to drop the request", () => sim.requests("products.create")[0]?.status === "dropped");
    expect(sim.products()).toEqual([]);
    expect(sim.requests("products.create").map((r) => r.status)).toEqual(["dropped"]);
  });
});

describe("the simulator's clock (startSimulator({ clock }))", () => {
  it("dates records and the request log, and computes nextRunAt, from the clock it is given", async () => {
    let now = Date.parse("2040-02-29T08:00:00.000Z"); // a Wednesday
    const sim = await simulator({ clock: { date: () => now } });
    const weekly = { title: "t", prompt: "p", scheduledAt: "2040-01-02T09:00:00Z", rrule: "FREQ=WEEKLY;BYDAY=MO", projectId: P };
    const first = await raw(sim, "POST", "/v1/tasks", { body: weekly });
    expect(first.body).toMatchObject({
      nextRunAt: "2040-03-05T09:00:00.000Z",
      createdAt: "2040-02-29T08:00:00.000Z",
      updatedAt: "2040-02-29T08:00:00.000Z",
    });
    now = Date.parse("2040-03-05T09:00:00.001Z"); // just after that Monday's run
    const second = await raw(sim, "POST", "/v1/tasks", { body: weekly });
    expect(second.body).toMatchObject({ nextRunAt: "2040-03-12T09:00:00.000Z", createdAt: "2040-03-05T09:00:00.001Z" });
    expect(sim.requests().map((r) => r.time)).toEqual(["2040-02-29T08:00:00.000Z", "2040-03-05T09:00:00.001Z"]);
  });

  it("counts rate-limit windows in the clock's time: a 60 s window ends when the clock says so, with no wait", async () => {
    let now = Date.parse("2030-01-01T00:00:00Z");
    const sim = await simulator({ clock: { date: () => now } });
    sim.setRateLimit({ limit: 1, windowMs: 60_000 });
    const list = () => raw(sim, "GET", "/v1/projects");
    expect((await list()).status).toBe(200);
    expect(await list()).toMatchObject({ status: 429, headers: { "retry-after": "60" } });
    now += 59_000;
    expect(await list()).toMatchObject({ status: 429, headers: { "retry-after": "1" } });
    now += 1_000;
    expect((await list()).status).toBe(200);
  });
});

describe("the simulator's own reading of the spec", () => {
  it("refuses the tokens the client refuses: the two minimum lengths agree", () => {
    expect(SIMULATOR_MIN_TOKEN_LENGTH).toBe(MIN_TOKEN_LENGTH);
  });
});
