import { describe, expect, it } from "vitest";
import { RequestValidationError, type ServiceApiClient } from "../../provider/client";
import { DEFAULT_IDS, type Simulator } from "pulumi-serviceapi-simulator";
import { clientFor, envelope, raw, rejectionOf, simulator } from "../helpers";
import { daysAhead } from "../support/time";

/** A time the service takes as ahead, whenever the test runs. */
const LATER = daysAhead(365, 0);

const P = DEFAULT_IDS.acmeWeb;
const s = (n: number, ch = "a") => ch.repeat(n);
/** Absolute URIs the WHATWG URL parser accepts but RFC 3986 does not: a space, non-ASCII, a bad escape, a `|`. */
const NOT_RFC3986 = [
  "https://shop.example.com/a b",
  "https://exämple.com/ü",
  "https://shop.example.com/%zz",
  "https://shop.example.com/a|b",
];

/** List queries are checked when the list is made, before any iteration. */
function refusedAtCreation(sim: Simulator, make: () => unknown, message: string): void {
  const before = sim.requests().length;
  expect(make).toThrow(RequestValidationError);
  expect(make).toThrow(message);
  expect(sim.requests().length).toBe(before);
}

/** The client refuses before sending: the simulator saw no request. */
async function refusedBeforeSending(sim: Simulator, call: Promise<unknown>, message: string): Promise<void> {
  const before = sim.requests().length;
  const err = await rejectionOf(call);
  expect(err).toBeInstanceOf(RequestValidationError);
  expect((err as Error).message).toBe(message);
  expect(sim.requests().length).toBe(before);
}

async function productId(client: ServiceApiClient): Promise<string> {
  return (await client.createProduct({ title: "seed", projectId: P })).id;
}

describe("limits at their boundaries, in the client before sending", () => {
  it("product title: 1 to 1024 characters (create and update)", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim);
    expect((await client.createProduct({ title: s(1024), projectId: P })).title).toHaveLength(1024);
    expect((await client.createProduct({ title: "x", projectId: P })).title).toBe("x");
    await refusedBeforeSending(
      sim,
      client.createProduct({ title: s(1025), projectId: P }),
      "products.create: invalid request, nothing was sent: title must be 1 to 1024 characters long (got 1025)",
    );
    await refusedBeforeSending(
      sim,
      client.createProduct({ title: "", projectId: P }),
      "products.create: invalid request, nothing was sent: title must be 1 to 1024 characters long (got 0)",
    );
    const id = await productId(client);
    expect((await client.updateProduct(id, { title: s(1024) })).title).toHaveLength(1024);
    await refusedBeforeSending(
      sim,
      client.updateProduct(id, { title: s(1025) }),
      "products.update: invalid request, nothing was sent: title must be 1 to 1024 characters long (got 1025)",
    );
  });

  it("limits count characters, not UTF-16 units: 1024 emoji fit a title", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim);
    const product = await client.createProduct({ title: s(1024, "🚀"), projectId: P });
    expect([...product.title]).toHaveLength(1024);
    await refusedBeforeSending(
      sim,
      client.createProduct({ title: s(1025, "🚀"), projectId: P }),
      "products.create: invalid request, nothing was sent: title must be 1 to 1024 characters long (got 1025)",
    );
  });

  it("product description: at most 10000 characters, empty and null allowed", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim);
    expect((await client.createProduct({ title: "t", projectId: P, description: s(10000) })).description).toHaveLength(10000);
    expect((await client.createProduct({ title: "t", projectId: P, description: "" })).description).toBe("");
    await refusedBeforeSending(
      sim,
      client.createProduct({ title: "t", projectId: P, description: s(10001) }),
      "products.create: invalid request, nothing was sent: description must be at most 10000 characters long (got 10001)",
    );
    const id = await productId(client);
    expect((await client.updateProduct(id, { description: s(10000) })).description).toHaveLength(10000);
    await refusedBeforeSending(
      sim,
      client.updateProduct(id, { description: s(10001) }),
      "products.update: invalid request, nothing was sent: description must be at most 10000 characters long (got 10001)",
    );
  });

  it("product slug: 1 to 1024 characters or null", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim);
    expect((await client.createProduct({ title: "t", projectId: P, slug: s(1024) })).slug).toHaveLength(1024);
    await refusedBeforeSending(
      sim,
      client.createProduct({ title: "t", projectId: P, slug: s(1025) }),
      "products.create: invalid request, nothing was sent: slug must be 1 to 1024 characters long (got 1025)",
    );
    await refusedBeforeSending(
      sim,
      client.createProduct({ title: "t", projectId: P, slug: "" }),
      "products.create: invalid request, nothing was sent: slug must be 1 to 1024 characters long (got 0)",
    );
    const id = await productId(client);
    expect((await client.updateProduct(id, { slug: null })).slug).toBeNull();
  });

  it("product status, externalCheckoutUrl, projectId and productId formats", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim);
    const id = await productId(client);
    for (const status of ["active", "archived", "draft"] as const) {
      expect((await client.updateProduct(id, { status })).status).toBe(status);
    }
    await refusedBeforeSending(
      sim,
      client.updateProduct(id, { status: "published" as "active" }),
      "products.update: invalid request, nothing was sent: status must be one of active, archived, draft",
    );
    // RFC 3986, as OpenAPI's format: uri means it: the WHATWG URL parser would accept (and rewrite) every one of these.
    for (const url of ["not a uri", ...NOT_RFC3986]) {
      await refusedBeforeSending(
        sim,
        client.updateProduct(id, { externalCheckoutUrl: url }),
        "products.update: invalid request, nothing was sent: externalCheckoutUrl must be an absolute URI (RFC 3986: a scheme such as https:, ASCII only, no spaces, % only in %XX escapes)",
      );
    }
    for (const url of [
      "https://shop.example.com/a%20b?q=1#top",
      "https://xn--exmple-cua.com/%C3%BC",
      "mailto:sales@example.com",
      "urn:isbn:0451450523",
    ]) {
      expect((await client.updateProduct(id, { externalCheckoutUrl: url })).externalCheckoutUrl).toBe(url);
    }
    await refusedBeforeSending(
      sim,
      client.updateProduct("42", {}),
      "products.update: invalid request, nothing was sent: productId must be a UUID (8-4-4-4-12 hex digits)",
    );
    await refusedBeforeSending(
      sim,
      client.createProduct({ title: "t", projectId: "acme" }),
      "products.create: invalid request, nothing was sent: projectId must be a UUID (8-4-4-4-12 hex digits)",
    );
    await refusedBeforeSending(
      sim,
      client.createProduct({ title: "t" } as never),
      "products.create: invalid request, nothing was sent: projectId is required",
    );
    await refusedBeforeSending(
      sim,
      client.createProduct({ title: "t", projectId: P, status: "active" } as never),
      "products.create: invalid request, nothing was sent: status is not a field of this request",
    );
  });

  it("site name: 1 to 255 characters", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim);
    const site = (await client.listSites({ projectId: DEFAULT_IDS.acmeDocs, limit: 1 }).firstPage()).items[0]!;
    expect((await client.updateSite(site.id!, { name: s(255) })).name).toHaveLength(255);
    expect((await client.updateSite(site.id!, { name: "x" })).name).toBe("x");
    await refusedBeforeSending(
      sim,
      client.updateSite(site.id!, { name: s(256) }),
      "sites.update: invalid request, nothing was sent: name must be 1 to 255 characters long (got 256)",
    );
    await refusedBeforeSending(
      sim,
      client.updateSite(site.id!, { name: "" }),
      "sites.update: invalid request, nothing was sent: name must be 1 to 255 characters long (got 0)",
    );
  });

  it("list page size: 1 to 100; cursor: 1 to 200 characters", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim);
    expect((await client.listSites({ projectId: P, limit: 100 }).firstPage()).items).toHaveLength(100);
    expect((await client.listProjects({ limit: 1 }).firstPage()).items).toHaveLength(1);
    refusedAtCreation(
      sim,
      () => client.listProjects({ limit: 101 }),
      "projects.list: invalid request, nothing was sent: limit must be at most 100",
    );
    refusedAtCreation(
      sim,
      () => client.listSites({ projectId: P, limit: 0 }),
      "sites.list: invalid request, nothing was sent: limit must be at least 1",
    );
    refusedAtCreation(
      sim,
      () => client.listProjects({ limit: 2.5 }),
      "projects.list: invalid request, nothing was sent: limit must be an integer",
    );
    refusedAtCreation(
      sim,
      () => client.listProjects({ cursor: s(201) }),
      "projects.list: invalid request, nothing was sent: cursor must be 1 to 200 characters long (got 201)",
    );
    refusedAtCreation(
      sim,
      () => client.listSites({ projectId: P, cursor: "" }),
      "sites.list: invalid request, nothing was sent: cursor must be 1 to 200 characters long (got 0)",
    );
    refusedAtCreation(
      sim,
      () => client.listProjects({ workspaceId: "acme" }),
      "projects.list: invalid request, nothing was sent: workspaceId must be a UUID (8-4-4-4-12 hex digits)",
    );
    // A 200-character cursor is sent; the server then judges it.
    const sent = await client
      .listProjects({ cursor: s(200) })
      .firstPage()
      .catch((e: Error) => e);
    expect((sent as Error).message).toContain("400 invalid_request: cursor is not a cursor this API returned");
  });

  it("task fields: scheduledAt is RFC 3339, rrule is a valid RRULE, projectId a UUID", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim);
    const base = { title: "t", prompt: "p", scheduledAt: LATER.replace("Z", "+02:00"), projectId: P };
    // The offset is read: 00:00 at +02:00 is 22:00 the day before, in UTC.
    expect((await client.createTask(base)).nextRunAt).toBe(new Date(Date.parse(LATER) - 2 * 3_600_000).toISOString());
    await refusedBeforeSending(
      sim,
      client.createTask({ ...base, scheduledAt: "next tuesday" }),
      "tasks.create: invalid request, nothing was sent: scheduledAt must be an RFC 3339 date-time such as 2026-07-11T09:00:00Z",
    );
    await refusedBeforeSending(
      sim,
      client.createTask({ ...base, rrule: "FREQ=SOMETIMES" }),
      "tasks.create: invalid request, nothing was sent: rrule is not a valid RRULE: FREQ must be one of YEARLY, MONTHLY, WEEKLY, DAILY, HOURLY, MINUTELY, SECONDLY",
    );
    await refusedBeforeSending(
      sim,
      client.createTask({ ...base, rrule: "FREQ=DAILY;BOGUS=1" }),
      "tasks.create: invalid request, nothing was sent: rrule is not a valid RRULE: part 2 is not an RRULE part " +
        "(parts: FREQ, UNTIL, COUNT, INTERVAL, BYSECOND, BYMINUTE, BYHOUR, BYDAY, BYMONTHDAY, BYYEARDAY, BYWEEKNO, BYMONTH, BYSETPOS, WKST)",
    );
    await refusedBeforeSending(
      sim,
      client.createTask({ ...base, rrule: "FREQ=DAILY;COUNT=x" }),
      "tasks.create: invalid request, nothing was sent: rrule is not a valid RRULE: COUNT must be an integer",
    );
    // nextRunAt must stay an RFC 3339 date-time: nothing after the year 9999 (UTC).
    await refusedBeforeSending(
      sim,
      client.createTask({ ...base, scheduledAt: "9999-03-01T00:00:00Z", rrule: "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29" }),
      "tasks.create: invalid request, nothing was sent: rrule has no occurrence before the year 10000 (RFC 3339 dates end at 9999)",
    );
    await refusedBeforeSending(
      sim,
      client.createTask({ ...base, scheduledAt: "9999-12-31T23:00:00-05:00" }),
      "tasks.create: invalid request, nothing was sent: scheduledAt is after the year 9999 in UTC (RFC 3339 dates end at 9999)",
    );
    await refusedBeforeSending(
      sim,
      client.createTask({ ...base, title: "", prompt: "" }),
      "tasks.create: invalid request, nothing was sent: title must not be empty; prompt must not be empty",
    );
  });
});

describe("limits at their boundaries, in the simulator (raw requests bypassing the client)", () => {
  const bad = (sim: Simulator, message: string) => ({ status: 400, body: envelope("invalid_request", message, sim) });

  it("product create and update", async () => {
    const sim = await simulator();
    const post = (body: unknown) => raw(sim, "POST", "/api/v1/public/products", { body });
    expect((await post({ title: s(1024), projectId: P, slug: s(1024), description: s(10000) })).status).toBe(201);
    expect(await post({ title: s(1025), projectId: P })).toMatchObject(bad(sim, "title must be 1 to 1024 characters long (got 1025)"));
    expect(await post({ title: "", projectId: P })).toMatchObject(bad(sim, "title must be 1 to 1024 characters long (got 0)"));
    expect(await post({ title: "t", projectId: P, slug: s(1025) })).toMatchObject(
      bad(sim, "slug must be 1 to 1024 characters long (got 1025)"),
    );
    expect(await post({ title: "t", projectId: P, description: s(10001) })).toMatchObject(
      bad(sim, "description must be at most 10000 characters long (got 10001)"),
    );
    for (const url of ["nope", ...NOT_RFC3986]) {
      expect(await post({ title: "t", projectId: P, externalCheckoutUrl: url })).toMatchObject(
        bad(
          sim,
          "externalCheckoutUrl must be an absolute URI (RFC 3986: a scheme such as https:, ASCII only, no spaces, % only in %XX escapes)",
        ),
      );
    }
    expect(await post({ title: "t" })).toMatchObject(bad(sim, "projectId is required"));
    expect(await post({ title: "t", projectId: "p1" })).toMatchObject(bad(sim, "projectId must be a UUID (8-4-4-4-12 hex digits)"));
    expect(await post({ title: "t", projectId: P, status: "active" })).toMatchObject(
      bad(sim, "status is not accepted when creating a product; set it with products.update"),
    );
    expect(await post({ title: "t", projectId: P, colour: "red" })).toMatchObject(bad(sim, "colour is not a field of this request"));
    expect(await post([1, 2])).toMatchObject(bad(sim, "body must be a JSON object"));

    const id = (await post({ title: "t", projectId: P })).body.id as string;
    const patch = (body: unknown, path = `/api/v1/public/products/${id}`) => raw(sim, "PATCH", path, { body });
    expect(
      (await patch({ title: s(1024), slug: null, description: null, externalCheckoutUrl: null, status: "archived" })).body,
    ).toMatchObject({ title: s(1024), slug: null, description: null, externalCheckoutUrl: null, status: "archived" });
    expect(await patch({ title: s(1025) })).toMatchObject(bad(sim, "title must be 1 to 1024 characters long (got 1025)"));
    expect(await patch({ status: "live" })).toMatchObject(bad(sim, "status must be one of active, archived, draft"));
    expect(await patch({}, "/api/v1/public/products/not-a-uuid")).toMatchObject(
      bad(sim, "productId must be a UUID (8-4-4-4-12 hex digits)"),
    );
  });

  it("site name and list queries", async () => {
    const sim = await simulator();
    const sites = await raw(sim, "GET", `/api/v1/public/sites?projectId=${DEFAULT_IDS.acmeDocs}&limit=100`);
    expect(sites.body.data).toHaveLength(3);
    const id = sites.body.data[0].id as string;
    expect((await raw(sim, "PATCH", `/v1/sites/${id}`, { body: { name: s(255) } })).status).toBe(200);
    expect(await raw(sim, "PATCH", `/v1/sites/${id}`, { body: { name: s(256) } })).toMatchObject(
      bad(sim, "name must be 1 to 255 characters long (got 256)"),
    );
    expect(await raw(sim, "PATCH", `/v1/sites/${id}`, { body: {} })).toMatchObject(bad(sim, "name is required"));

    expect((await raw(sim, "GET", "/v1/projects?limit=100")).status).toBe(200);
    expect(await raw(sim, "GET", "/v1/projects?limit=101")).toMatchObject(bad(sim, "limit must be at most 100"));
    expect(await raw(sim, "GET", "/v1/projects?limit=0")).toMatchObject(bad(sim, "limit must be at least 1"));
    expect(await raw(sim, "GET", "/v1/projects?limit=ten")).toMatchObject(bad(sim, "limit must be an integer"));
    expect(await raw(sim, "GET", `/api/v1/public/sites?projectId=${P}&limit=101`)).toMatchObject(bad(sim, "limit must be at most 100"));
    expect(await raw(sim, "GET", `/v1/projects?cursor=${s(201)}`)).toMatchObject(
      bad(sim, "cursor must be 1 to 200 characters long (got 201)"),
    );
    expect(await raw(sim, "GET", `/v1/projects?cursor=${s(200)}`)).toMatchObject(bad(sim, "cursor is not a cursor this API returned"));
    expect(await raw(sim, "GET", "/v1/projects?cursor=")).toMatchObject(bad(sim, "cursor must be 1 to 200 characters long (got 0)"));
    expect(await raw(sim, "GET", "/api/v1/public/sites")).toMatchObject(bad(sim, "projectId is required"));
    expect(await raw(sim, "GET", "/v1/projects?workspaceId=w1")).toMatchObject(
      bad(sim, "workspaceId must be a UUID (8-4-4-4-12 hex digits)"),
    );
    expect(await raw(sim, "GET", "/v1/projects?page_size=5")).toMatchObject(bad(sim, "page_size is not a field of this request"));
  });

  it("tasks: required fields, RRULE and a series that already ended", async () => {
    const sim = await simulator();
    const post = (body: unknown) => raw(sim, "POST", "/v1/tasks", { body });
    const base = { title: "t", prompt: "p", scheduledAt: LATER, projectId: P };
    expect((await post(base)).status).toBe(201);
    expect(await post({ ...base, rrule: "garbage" })).toMatchObject(
      bad(sim, "rrule is not a valid RRULE: part 1 is not a NAME=VALUE part"),
    );
    expect(await post({ ...base, rrule: "DTSTART:20300101T000000Z\nRRULE:FREQ=DAILY" })).toMatchObject(
      bad(sim, "rrule is not a valid RRULE: must be a single line without DTSTART (scheduledAt sets the start)"),
    );
    expect(await post({ ...base, scheduledAt: "2020-01-01T00:00:00Z", rrule: "FREQ=DAILY;COUNT=3" })).toMatchObject(
      bad(sim, "rrule has no occurrence at or after the current time (COUNT or UNTIL ends the series in the past, or no date matches)"),
    );
    expect(await post({ ...base, scheduledAt: LATER.slice(0, 10) })).toMatchObject(
      bad(sim, "scheduledAt must be an RFC 3339 date-time such as 2026-07-11T09:00:00Z"),
    );
    expect(await post({ title: "t" })).toMatchObject(bad(sim, "prompt is required; scheduledAt is required; projectId is required"));
    // The simulator never answers with a nextRunAt past 9999 (it would not be RFC 3339: `+010000-02-29…`).
    expect(await post({ ...base, scheduledAt: "9999-03-01T00:00:00Z", rrule: "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29" })).toMatchObject(
      bad(sim, "rrule has no occurrence before the year 10000 (RFC 3339 dates end at 9999)"),
    );
    expect(await post({ ...base, scheduledAt: "9999-12-31T23:00:00-05:00" })).toMatchObject(
      bad(sim, "scheduledAt is after the year 9999 in UTC (RFC 3339 dates end at 9999)"),
    );
  });

  it("malformed bodies", async () => {
    const sim = await simulator();
    const path = "/api/v1/public/products";
    expect(await raw(sim, "POST", path, { rawBody: "{nope" })).toMatchObject(bad(sim, "body is not valid JSON"));
    expect(await raw(sim, "POST", path, { rawBody: "{}", contentType: "text/plain" })).toMatchObject(
      bad(sim, "Content-Type must be application/json (optionally with a charset)"),
    );
    expect(await raw(sim, "POST", path, {})).toMatchObject(bad(sim, "body must be a JSON object"));
  });
});
