import { MockAgent } from "undici";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import {
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConfigError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ResponseValidationError,
  ServiceApiClient,
  ServiceApiError,
  ServiceUnavailableError,
} from "../../provider/client";
import { ACME_ONLY_TOKEN, DEFAULT_IDS } from "pulumi-serviceapi-simulator";
import { VirtualClock, clientFor, productRecord, rejectionOf, simulator } from "../helpers";

const MISSING = "00000000-0000-4000-8000-000000000000";

const failure = (promise: Promise<unknown>) => rejectionOf(promise, ServiceApiError);

describe("error responses become typed ApiErrors built from the envelope", () => {
  it("400: the server's message names the field", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim);
    // A cursor the server never issued passes the client's length check but not the server's.
    const err = await failure(client.listProjects({ cursor: "bm90LWEtY3Vyc29y" }).toArray());
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err).toMatchObject({
      status: 400,
      code: "invalid_request",
      operation: "projects.list",
      serverMessage: "cursor is not a cursor this API returned",
      docUrl: `${sim.url}/_simulator/errors/invalid_request`,
      mayHaveSucceeded: false,
    });
    expect((err as ApiError).requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(err.message).toBe(
      `projects.list failed: 400 invalid_request: cursor is not a cursor this API returned (docs: ${sim.url}/_simulator/errors/invalid_request) [request id ${(err as ApiError).requestId}]`,
    );
  });

  it("401: an invalid token", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim, { token: "wrong-token-value" });
    const err = await failure(client.listProjects().toArray());
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err).toMatchObject({ status: 401, code: "unauthorized", serverMessage: "invalid public API token" });
    expect(err.message).toContain(`(docs: ${sim.url}/_simulator/errors/unauthorized)`);
    expect(err.message).not.toContain("wrong-token-value");
    expect(sim.requests()).toHaveLength(1);
  });

  it("403: a token without access to the workspace or project", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim, { token: ACME_ONLY_TOKEN });
    const err = await failure(client.listProjects({ workspaceId: DEFAULT_IDS.globexWorkspace }).toArray());
    expect(err).toBeInstanceOf(PermissionDeniedError);
    expect(err).toMatchObject({
      status: 403,
      code: "forbidden",
      serverMessage: `this token may not access workspace ${DEFAULT_IDS.globexWorkspace}`,
    });
    const create = await failure(client.createProduct({ title: "x", projectId: DEFAULT_IDS.globexShop }));
    expect(create).toMatchObject({
      status: 403,
      serverMessage: `this token may not access project ${DEFAULT_IDS.globexShop}`,
      mayHaveSucceeded: false,
    });
    // The limited token still sees its own workspace only.
    const visible = await client.listProjects().toArray();
    expect(visible.map((p) => p.workspaceId)).toEqual([DEFAULT_IDS.acmeWorkspace, DEFAULT_IDS.acmeWorkspace]);
  });

  it("404: unknown ids", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim);
    const product = await failure(client.updateProduct(MISSING, { title: "x" }));
    expect(product).toBeInstanceOf(NotFoundError);
    expect(product).toMatchObject({ status: 404, code: "not_found", serverMessage: `product ${MISSING} not found` });
    const site = await failure(client.updateSite(MISSING, { name: "x" }));
    expect(site).toMatchObject({ status: 404, serverMessage: `site ${MISSING} not found` });
    const sites = await failure(client.listSites({ projectId: MISSING }).toArray());
    expect(sites).toMatchObject({ status: 404, serverMessage: `project ${MISSING} not found` });
  });

  it("429 past the rate-limit budget: RateLimitError with retryAfterMs, without waiting", async () => {
    const sim = await simulator();
    const clock = new VirtualClock();
    const { client } = clientFor(sim, { maxRetries: 0, rateLimitBudgetMs: 5000, clock });
    sim.addFault({ operation: "projects.list", kind: "error", status: 429, retryAfter: "7" });
    const err = await failure(client.listProjects().toArray());
    expect(clock.sleeps).toEqual([]);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err).toMatchObject({ status: 429, code: "rate_limited", retryAfterMs: 7000, mayHaveSucceeded: false });
    expect(err.message).toContain("Waited 0 ms on 429 responses; another 7000 ms would pass rateLimitBudgetMs (5000 ms).");
  });

  it("500 and 503 after the retries are spent", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim, { maxRetries: 1 });
    sim.addFault({ operation: "projects.list", kind: "error", status: 500, times: 2 });
    const e500 = await failure(client.listProjects().toArray());
    expect(e500).toBeInstanceOf(InternalServerError);
    expect(e500).toMatchObject({ status: 500, code: "internal_error" });
    expect(e500.message).toContain("Gave up after 2 attempts.");
    sim.addFault({ operation: "sites.list", kind: "error", status: 503, times: 2 });
    const e503 = await failure(client.listSites({ projectId: DEFAULT_IDS.acmeDocs }).toArray());
    expect(e503).toBeInstanceOf(ServiceUnavailableError);
    expect(e503).toBeInstanceOf(InternalServerError);
    expect(e503).toMatchObject({ status: 503, code: "service_unavailable" });
    expect(sim.requests().map((r) => r.status)).toEqual([500, 500, 503, 503]);
  });
});

describe("the token never leaks", () => {
  it("is absent from every error message, log event and the request log", async () => {
    const secret = "tok_live_5f1b2c9a8e7d";
    const sim = await simulator({ token: secret });
    const { client, events } = clientFor(sim, { maxRetries: 1 });
    sim.addFault({ kind: "error", status: 503, times: 1 });
    sim.addFault({ operation: "products.create", kind: "error", status: 500 });
    const errors: unknown[] = [];
    await client.listProjects().toArray();
    errors.push(await failure(client.createProduct({ title: "x", projectId: DEFAULT_IDS.acmeWeb })));
    errors.push(await failure(client.updateProduct(MISSING, { title: "x" })));
    errors.push(await failure(new ServiceApiClient({ baseUrl: sim.url, token: "other-token-value" }).listProjects().toArray()));
    errors.push(await failure(client.createProduct({ title: "", projectId: DEFAULT_IDS.acmeWeb })));
    expect(events.length).toBeGreaterThan(4);
    const text = JSON.stringify([
      events,
      sim.requests(),
      errors.map((e) => [String(e), (e as Error).stack, JSON.stringify(e), Object.values(e as object)]),
    ]);
    expect(text).not.toContain(secret);
    expect(JSON.stringify(client)).not.toContain(secret);
    const { inspect } = await import("node:util");
    expect(inspect(client, { depth: 5 })).not.toContain(secret);
  });

  it("is redacted even when a server echoes it in an error body", async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent
      .get("https://api.example.com")
      .intercept({ path: /\/v1\/projects/, method: "GET" })
      .reply(400, {
        error: { code: "bad", message: "token tok_secret_123 is malformed", doc_url: "https://docs.example.com/bad" },
      });
    const client = new ServiceApiClient({ baseUrl: "https://api.example.com", token: "tok_secret_123", dispatcher: agent });
    const err = await failure(client.listProjects().toArray());
    expect(err.message).toBe("projects.list failed: 400 bad: token [REDACTED] is malformed (docs: https://docs.example.com/bad)");
  });
});

describe("responses that break the schema (MockAgent: the simulator cannot produce them)", () => {
  function mocked(status: number, body: unknown, headers: Record<string, string> = {}) {
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent
      .get("https://api.example.com")
      .intercept({ path: /.*/, method: /.*/ })
      .reply(status, typeof body === "string" ? body : JSON.stringify(body), { headers });
    return new ServiceApiClient({ baseUrl: "https://api.example.com", token: "tok_mock_abcdef", dispatcher: agent, maxRetries: 0 });
  }

  it("a record missing a field raises ResponseValidationError naming the operation and field", async () => {
    const { status: _left, ...record } = productRecord({ id: MISSING });
    const client = mocked(200, record);
    const err = await failure(client.updateProduct(MISSING, {}));
    expect(err).toBeInstanceOf(ResponseValidationError);
    expect(err.message).toBe(
      "products.update: the 200 response does not match the API schema: status is required. The service accepted the update; read the record again to see its state.",
    );
    expect(err.mayHaveSucceeded).toBe(true);
  });

  it("a wrong type deep in a list is reported with its path", async () => {
    const client = mocked(200, {
      object: "list",
      data: [{ object: "project", id: MISSING, name: 5, workspaceId: MISSING }],
      has_more: false,
      next_cursor: null,
    });
    const err = await failure(client.listProjects().toArray());
    expect(err.message).toBe("projects.list: the 200 response does not match the API schema: data.0.name must be a string.");
  });

  it("unknown extra fields are tolerated and dropped", async () => {
    const record = productRecord({ id: MISSING });
    const client = mocked(200, { ...record, createdAt: "2026-01-01", tags: ["new"] });
    expect(await client.updateProduct(MISSING, {})).toEqual(record);
  });

  it("a body that is not JSON", async () => {
    const client = mocked(200, "<html>ok</html>");
    const err = await failure(client.listProjects().toArray());
    expect(err.message).toBe("projects.list: the 200 response does not match the API schema: body is not valid JSON.");
  });

  it("an error without an envelope (a proxy page) still becomes an ApiError", async () => {
    const client = mocked(502, "<html>Bad Gateway</html>");
    const err = await failure(client.createProduct({ title: "x", projectId: MISSING }));
    expect(err).toBeInstanceOf(InternalServerError);
    expect(err).toMatchObject({ status: 502, code: "http_502", mayHaveSucceeded: true });
    expect(err.message).toBe(
      "products.create failed: 502 http_502: unexpected 502 response without an error envelope: <html>Bad Gateway</html> " +
        "The request was not retried because the record may have been created: check for it before creating it again.",
    );
  });
});

describe("configuration", () => {
  it("refuses plain http to a non-loopback host", () => {
    expect(() => new ServiceApiClient({ baseUrl: "http://api.example.com", token: "tok_0123456789" })).toThrow(
      new ConfigError(
        "baseUrl must use https:// (got http://api.example.com); plain http is allowed only for loopback hosts (localhost, 127.0.0.0/8, ::1)",
      ),
    );
    expect(
      () => new ServiceApiClient({ baseUrl: "https://api.example.com", publicBaseUrl: "http://10.0.0.5:8080", token: "tok_0123456789" }),
    ).toThrow("publicBaseUrl must use https:// (got http://10.0.0.5:8080)");
  });

  it("allows http on loopback and https anywhere", () => {
    for (const baseUrl of [
      "http://127.0.0.1:8787",
      "http://localhost:1",
      "http://[::1]:8787",
      "http://127.10.0.3",
      "https://api.example.com/prefix",
    ]) {
      expect(() => new ServiceApiClient({ baseUrl, token: "tok_0123456789" })).not.toThrow();
    }
  });

  it("requires a token and a base URL, reading SERVICEAPI_* from the environment", () => {
    // vi.stubEnv, never an assignment to process.env: files share a worker (isolate: false), and a
    // replaced process.env object outlives this test and hides later stubs from the code under test.
    onTestFinished(() => void vi.unstubAllEnvs());
    vi.stubEnv("SERVICEAPI_TOKEN", undefined);
    vi.stubEnv("SERVICEAPI_BASE_URL", undefined);
    expect(() => new ServiceApiClient({ baseUrl: "https://x.example" })).toThrow("token is required: pass `token` or set SERVICEAPI_TOKEN");
    expect(() => new ServiceApiClient({ token: "tok_0123456789" })).toThrow(
      "baseUrl is required: pass `baseUrl` or set SERVICEAPI_BASE_URL",
    );
    vi.stubEnv("SERVICEAPI_TOKEN", "from-env-token");
    vi.stubEnv("SERVICEAPI_BASE_URL", "https://x.example");
    expect(new ServiceApiClient().baseUrl).toBe("https://x.example/");
  });

  it("rejects credentials in the URL and bad numbers", () => {
    expect(() => new ServiceApiClient({ baseUrl: "https://user:pw@x.example", token: "tok_0123456789" })).toThrow(
      "baseUrl must not contain credentials",
    );
    expect(() => new ServiceApiClient({ baseUrl: "https://x.example", token: "tok_0123456789", maxRetries: -1 })).toThrow(
      "maxRetries must be an integer from 0 to 10 (got -1)",
    );
    expect(() => new ServiceApiClient({ baseUrl: "not a url", token: "tok_0123456789" })).toThrow(
      'baseUrl must be an absolute URL such as https://api.example.com (got "not a url")',
    );
  });
});
