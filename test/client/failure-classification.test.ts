import { MockAgent } from "undici";
import { describe, expect, it } from "vitest";
import {
  ClientUsageError,
  ConfigError,
  ConnectionError,
  InternalServerError,
  ResponseTooLargeError,
  ResponseValidationError,
  ServiceApiClient,
  ServiceUnavailableError,
  TimeoutError,
} from "../../provider/client";
import { DEFAULT_IDS } from "pulumi-serviceapi-simulator";
import { VirtualClock, clientFor, rejectionOf, simulator } from "../helpers";

const P = DEFAULT_IDS.acmeWeb;

describe("programmer errors fail at once, never as retried connection errors", () => {
  it("a token that is not a valid header value is a ConfigError at construction", () => {
    for (const token of ["tok_line\nbreak", "tok_\u0007bell_value", "tok_del\u007f_value", "tok_ünïcode_value", "tok with space"]) {
      expect(() => new ServiceApiClient({ baseUrl: "https://x.example", token })).toThrow(
        new ConfigError(
          "token must be printable ASCII without spaces, control characters or non-ASCII letters (it is sent in the Authorization header)",
        ),
      );
    }
  });

  it("a token too short to redact safely is refused", () => {
    expect(() => new ServiceApiClient({ baseUrl: "https://x.example", token: "e" })).toThrow(
      "token is too short (1 characters; at least 8): check SERVICEAPI_TOKEN or serviceapi:token",
    );
  });

  it("a call on a closed client fails at once with ClientUsageError, sending nothing", async () => {
    const sim = await simulator();
    const clock = new VirtualClock();
    const { client, events } = clientFor(sim, { clock });
    await client.close();
    const err = await rejectionOf(client.createProduct({ title: "x", projectId: P }));
    expect(clock.sleeps).toEqual([]);
    expect(err).toBeInstanceOf(ClientUsageError);
    expect(err).not.toBeInstanceOf(ConnectionError);
    expect(err.message).toMatch(
      /^products\.create was not sent: the client is closed; create a new ServiceApiClient \(UND_ERR_(DESTROYED|CLOSED): /,
    );
    expect(err.mayHaveSucceeded).toBe(false);
    expect(events.filter((e) => e.type === "retry")).toEqual([]);
    expect(sim.requests()).toHaveLength(0);
  });
});

describe("one rule for a Retry-After longer than maxRetryAfterMs: 429 and 503 both fail at once", () => {
  for (const status of [429, 503] as const) {
    it(`${status} with Retry-After 120 s and maxRetryAfterMs 5 s`, async () => {
      const sim = await simulator();
      const clock = new VirtualClock();
      const { client } = clientFor(sim, { maxRetryAfterMs: 5000, clock });
      sim.addFault({ operation: "products.update", kind: "error", status, retryAfter: "120" });
      const err = await rejectionOf(client.updateProduct(DEFAULT_IDS.acmeWeb, {}));
      expect(clock.sleeps).toEqual([]);
      expect(err.message).toContain("The server asked to wait 120000 ms, more than maxRetryAfterMs (5000 ms); not retried.");
      expect(sim.requests()).toHaveLength(1);
    });
  }
});

describe("mayHaveSucceeded is true for every ambiguous outcome", () => {
  it("a PATCH that timed out on every attempt: TimeoutError, a kind of ConnectionError", async () => {
    const sim = await simulator();
    // The product made by a client with the usual timeout: on a busy machine a create can take more than 100 ms.
    const product = await clientFor(sim).client.createProduct({ title: "x", projectId: P });
    const { client } = clientFor(sim, { timeoutMs: 100, maxRetries: 1 });
    sim.addFault({ operation: "products.update", kind: "delay", delayMs: 400, times: 2 });
    const err = await rejectionOf(client.updateProduct(product.id, { title: "y" }));
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.code).toBe("SERVICEAPI_TIMEOUT");
    expect(err.mayHaveSucceeded).toBe(true);
    expect(err.message).toBe(
      "products.update failed: no response within 100 ms (2 attempts). The update may have been applied: read the record again before relying on its state.",
    );
  });

  it("a GET that timed out has not changed anything", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim, { timeoutMs: 100, maxRetries: 0 });
    sim.addFault({ operation: "projects.list", kind: "delay", delayMs: 400 });
    const err = await rejectionOf(client.listProjects().toArray());
    expect(err).toMatchObject({ code: "SERVICEAPI_TIMEOUT", mayHaveSucceeded: false });
  });

  it("a PATCH that exhausted its 500 retries", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim, { maxRetries: 1 });
    const product = await client.createProduct({ title: "x", projectId: P });
    sim.addFault({ operation: "products.update", kind: "error", status: 500, times: 2, when: "after" });
    const err = await rejectionOf(client.updateProduct(product.id, { title: "applied" }));
    expect(err).toBeInstanceOf(InternalServerError);
    expect(err.mayHaveSucceeded).toBe(true);
    expect(err.message).toContain("Gave up after 2 attempts. The update may have been applied");
    // It was: the fault answered after processing.
    expect((await client.updateProduct(product.id, {})).title).toBe("applied");
  });

  it("a 503 was not processed, so even a PATCH says nothing may have happened", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim, { maxRetries: 0 });
    sim.addFault({ operation: "products.update", kind: "error", status: 503 });
    const err = await rejectionOf(client.updateProduct(P, {}));
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect(err.mayHaveSucceeded).toBe(false);
  });

  it("a 201 whose body breaks the schema: the record was made", async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent
      .get("https://api.example.com")
      .intercept({ path: /.*/, method: "POST" })
      .reply(201, JSON.stringify({ object: "product", id: "not-an-id" }), { headers: { "x-request-id": "req-1" } });
    const client = new ServiceApiClient({ baseUrl: "https://api.example.com", token: "tok_mock_abcdef", dispatcher: agent });
    const err = await rejectionOf(client.createProduct({ title: "x", projectId: P }));
    expect(err).toBeInstanceOf(ResponseValidationError);
    expect(err.mayHaveSucceeded).toBe(true);
    expect(err.message).toContain(
      "[request id req-1]. The service accepted the request, so the record was created: find it before creating it again.",
    );
  });
});

describe("429 retries are counted per call, not per client", () => {
  it("a storm of 120 429s over 30 concurrent updates: all 30 land, at default maxRetries and maxRateLimitRetries", async () => {
    const sim = await simulator();
    // The client's time is virtual: its 250 ms floors between 429s cost no real time.
    const { client } = clientFor(sim, { clock: new VirtualClock() });
    const product = await client.createProduct({ title: "x", projectId: P });
    sim.addFault({ operation: "products.update", kind: "error", status: 429, retryAfter: "0", times: 120 });
    const results = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => client.updateProduct(product.id, { title: `t${i}` })));
    expect(results.filter((r) => r.status === "rejected")).toEqual([]);
    const statuses = sim.requests("products.update").map((r) => r.status);
    expect(statuses.filter((s) => s === 429)).toHaveLength(120);
    expect(statuses.filter((s) => s === 200)).toHaveLength(30);
  });
});

describe("numeric options are bounded", () => {
  it("timeoutMs of 2^31 and other out-of-range values are ConfigErrors naming the range", async () => {
    const base = { baseUrl: "https://x.example", token: "tok_0123456789" };
    expect(() => new ServiceApiClient({ ...base, timeoutMs: 2 ** 31 })).toThrow(
      "timeoutMs must be an integer from 1 to 3600000 (got 2147483648)",
    );
    expect(() => new ServiceApiClient({ ...base, maxRetries: 11 })).toThrow("maxRetries must be an integer from 0 to 10 (got 11)");
    expect(() => new ServiceApiClient({ ...base, maxRetryAfterMs: 1e10 })).toThrow(
      "maxRetryAfterMs must be an integer from 0 to 3600000 (got 10000000000)",
    );
    expect(() => new ServiceApiClient({ ...base, rateLimitBudgetMs: -1 })).toThrow(
      "rateLimitBudgetMs must be an integer from 0 to 3600000 (got -1)",
    );
    expect(() => new ServiceApiClient({ ...base, maxResponseBytes: 10 })).toThrow(
      "maxResponseBytes must be an integer from 1024 to 1073741824 (got 10)",
    );
    const sim = await simulator();
    const { client } = clientFor(sim);
    await expect(client.updateProduct(P, {}, { timeoutMs: 2 ** 31 })).rejects.toThrow(
      "timeoutMs must be an integer from 1 to 3600000 (got 2147483648)",
    );
    expect(sim.requests()).toHaveLength(0);
  });
});

describe("response bodies are read up to maxResponseBytes", () => {
  it("a list page over the cap fails with ResponseTooLargeError", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim, { maxResponseBytes: 2048 });
    const err = await rejectionOf(client.listSites({ projectId: P }).toArray());
    expect(err).toBeInstanceOf(ResponseTooLargeError);
    expect(err).toMatchObject({ code: "SERVICEAPI_RESPONSE_TOO_LARGE", mayHaveSucceeded: false });
    expect(err.message).toBe("sites.list: the 200 response body is larger than maxResponseBytes (2048 bytes)");
    // Small responses still work on the same client.
    expect(await client.listSites({ projectId: DEFAULT_IDS.acmeDocs, limit: 1 }).firstPage()).toMatchObject({
      items: [{ object: "site" }],
    });
  });

  it("a create whose response is over the cap was still made", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim, { maxResponseBytes: 1024 });
    const err = await rejectionOf(client.createProduct({ title: "x", projectId: P, description: "d".repeat(3000) }));
    expect(err).toBeInstanceOf(ResponseTooLargeError);
    expect(err.mayHaveSucceeded).toBe(true);
    expect(sim.counts().products).toBe(1);
  });
});
