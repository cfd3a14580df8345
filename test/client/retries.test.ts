import { describe, expect, it } from "vitest";
import { ConnectionError, InternalServerError, ServiceApiClient, TimeoutError, type LogEvent } from "../../provider/client";
import { PACE_MARGIN } from "../../provider/client/internal/rate-limit-pacer";
import { DEFAULT_IDS } from "pulumi-serviceapi-simulator";
import { VirtualClock, clientFor, simulator, until } from "../helpers";
import { daysAhead } from "../support/time";

/** A time the service takes as ahead, whenever the test runs. */
const LATER = daysAhead(365, 0);

const P = DEFAULT_IDS.acmeWeb;
const MAY_HAVE_CREATED = "The request was not retried because the record may have been created: check for it before creating it again.";

describe("429: wait exactly Retry-After, for every operation", () => {
  it("retries a create after Retry-After seconds, creating one record", async () => {
    const sim = await simulator();
    const clock = new VirtualClock();
    const events: LogEvent[] = [];
    const sent: number[] = [];
    const { client } = clientFor(sim, { clock, logger: (e) => events.push(e) && e.type === "request" && sent.push(clock.now()) });
    sim.addFault({ operation: "products.create", kind: "error", status: 429, retryAfter: "1" });
    const product = await client.createProduct({ title: "Pro", projectId: P });
    expect(sim.requests("products.create").map((r) => r.status)).toEqual([429, 201]);
    // Sent again once a second of the client's time had passed.
    expect(sent[1]! - sent[0]!).toBeGreaterThanOrEqual(1000);
    expect(events.filter((e) => e.type === "retry")).toEqual([
      { type: "retry", operation: "products.create", attempt: 1, delayMs: 1000, reason: "429 rate limited" },
    ]);
    expect(sim.counts().products).toBe(1);
    expect(product.title).toBe("Pro");
  });

  it("reads Retry-After as an HTTP date and does not retry before it", async () => {
    const sim = await simulator();
    const clock = new VirtualClock();
    const sent: number[] = [];
    const { client } = clientFor(sim, { clock, logger: (e) => e.type === "request" && sent.push(clock.date()) });
    const retryAt = Math.ceil((clock.date() + 1500) / 1000) * 1000;
    sim.addFault({ operation: "projects.list", kind: "error", status: 429, retryAfter: new Date(retryAt).toUTCString() });
    await client.listProjects().toArray();
    expect(sim.requests("projects.list").map((r) => r.status)).toEqual([429, 200]);
    expect(sent).toHaveLength(2);
    expect(sent[1]).toBeGreaterThanOrEqual(retryAt);
  });

  it("without Retry-After, backs off (never below minRateLimitDelayMs, 250 ms) and retries", async () => {
    const sim = await simulator();
    const clock = new VirtualClock();
    const { client, events } = clientFor(sim, { clock });
    sim.addFault({ operation: "tasks.create", kind: "error", status: 429, retryAfter: null, times: 2 });
    await client.createTask({ title: "t", prompt: "p", scheduledAt: LATER, projectId: P });
    expect(sim.requests().map((r) => r.status)).toEqual([429, 429, 201]);
    // The backoff (10 ms, then 20 ms at most, from initialRetryDelayMs 10) is raised to the floor.
    expect(events.filter((e) => e.type === "retry").map((e) => (e as { delayMs: number }).delayMs)).toEqual([250, 250]);
    expect(sim.counts().tasks).toBe(1);
  });

  it("shares one back-off per client: a call started during the pause waits instead of hitting the limit", async () => {
    const sim = await simulator();
    const clock = new VirtualClock();
    let resolveRetry!: () => void;
    const retrying = new Promise<void>((r) => (resolveRetry = r));
    const sent: number[] = [];
    const { client } = clientFor(sim, {
      clock,
      logger: (e) => (e.type === "retry" ? resolveRetry() : e.type === "request" && sent.push(clock.now())),
    });
    sim.addFault({ operation: "projects.list", kind: "error", status: 429, retryAfter: "1" });
    const first = client.listProjects().toArray();
    await retrying;
    const [, sites, product] = await Promise.all([
      first,
      client.listSites({ projectId: DEFAULT_IDS.acmeDocs }).toArray(),
      client.createProduct({ title: "t", projectId: P }),
    ]);
    expect(sites).toHaveLength(3);
    expect(product.status).toBe("draft");
    for (const r of sim.requests().slice(1)) expect(r.status).not.toBe(429);
    expect(sim.requests()).toHaveLength(4);
    // Every call after the 429 went out once the 1 s pause (of the client's time) was over.
    for (const at of sent.slice(1)) expect(at - sent[0]!).toBeGreaterThanOrEqual(1000);
  });

  it("a real rate limit: 5 sequential calls under a limit of 2 per window all succeed, paced once one was refused", async () => {
    // The simulator and the client share one virtual clock: a window is 1 s of it however loaded the machine is.
    const clock = new VirtualClock();
    const sim = await simulator({ clock });
    const { client } = clientFor(sim, { clock });
    sim.setRateLimit({ limit: 2, windowMs: 1000 });
    for (let i = 0; i < 5; i++) await client.listSites({ projectId: DEFAULT_IDS.acmeDocs }).toArray();
    const log = sim.requests();
    const start = Date.parse(log[0]!.time);
    // [ms after the first request, status]: the third call is refused ("Retry-After: 1") and sent again 1 s
    // later; from then on the calls go at the pace learned from it (2 per 1 s, less PACE_MARGIN), none refused.
    const pace = (1000 / 2) * PACE_MARGIN;
    expect(log.map((r) => [Date.parse(r.time) - start, r.status])).toEqual([
      [0, 200],
      [0, 200],
      [0, 429],
      [1000, 200],
      [1000 + pace, 200],
      [1000 + 2 * pace, 200],
    ]);
  });
});

describe("503: jittered backoff, for every operation", () => {
  it("retries a create on 503 (the request was not processed)", async () => {
    const sim = await simulator();
    const { client, events } = clientFor(sim);
    sim.addFault({ operation: "products.create", kind: "error", status: 503, times: 2 });
    await client.createProduct({ title: "t", projectId: P });
    expect(sim.requests().map((r) => r.status)).toEqual([503, 503, 201]);
    const delays = events.filter((e) => e.type === "retry").map((e) => (e as { delayMs: number }).delayMs);
    // initialRetryDelayMs 10: first backoff in [5, 10], second in [10, 20].
    expect(delays[0]).toBeGreaterThanOrEqual(5);
    expect(delays[0]).toBeLessThanOrEqual(10);
    expect(delays[1]).toBeGreaterThanOrEqual(10);
    expect(delays[1]).toBeLessThanOrEqual(20);
    expect(sim.counts().products).toBe(1);
  });

  it("uses Retry-After on a 503 when present", async () => {
    const sim = await simulator();
    const clock = new VirtualClock();
    const { client } = clientFor(sim, { clock });
    sim.addFault({ operation: "sites.list", kind: "error", status: 503, retryAfter: "1" });
    await client.listSites({ projectId: DEFAULT_IDS.acmeDocs }).toArray();
    expect(sim.requests().map((r) => r.status)).toEqual([503, 200]);
    expect(clock.sleeps).toEqual([1000]);
  });
});

describe("ambiguous failures: retried only when repeating is safe", () => {
  it("POST is not retried on 500: one request, and the error says the record may exist", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim);
    sim.addFault({ operation: "products.create", kind: "error", status: 500, when: "after" });
    const err = await client.createProduct({ title: "t", projectId: P }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InternalServerError);
    expect(err).toMatchObject({ status: 500, mayHaveSucceeded: true });
    expect((err as Error).message).toContain(MAY_HAVE_CREATED);
    expect(sim.requests()).toHaveLength(1);
    expect(sim.counts().products).toBe(1);
  });

  it("POST is not retried after a connection reset", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim);
    sim.addFault({ operation: "tasks.create", kind: "reset", when: "after" });
    const err = await client.createTask({ title: "t", prompt: "p", scheduledAt: LATER, projectId: P }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err).toMatchObject({ code: "SERVICEAPI_CONNECTION", mayHaveSucceeded: true, unreachable: false, operation: "tasks.create" });
    expect((err as Error).message).toMatch(
      /^tasks\.create failed: connection error: .+\. The request was not retried because the record may have been created/,
    );
    expect(sim.requests().map((r) => r.status)).toEqual(["reset"]);
    expect(sim.counts().tasks).toBe(1);
  });

  it("POST is not retried after a timeout", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim, { timeoutMs: 200 });
    sim.addFault({ operation: "products.create", kind: "delay", delayMs: 600 });
    const err = await client.createProduct({ title: "t", projectId: P }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect((err as Error).message).toBe(`products.create failed: no response within 200 ms. ${MAY_HAVE_CREATED}`);
    // The simulator still processes the request once its delay is over (as a real server does); a retry
    // would have been sent long before that, with a backoff of at most 50 ms.
    await until("the delayed create to be processed", () => sim.counts().products > 0);
    expect(sim.requests()).toHaveLength(1);
    expect(sim.counts().products).toBe(1);
  });

  it("POST is retried when the connection was refused (nothing was sent)", async () => {
    const sim = await simulator();
    const url = sim.url;
    await sim.close();
    const events: string[] = [];
    const client = new ServiceApiClient({
      baseUrl: url,
      token: "tok_refused",
      maxRetries: 2,
      initialRetryDelayMs: 5,
      logger: (e) => events.push(e.type),
    });
    const err = await client.createProduct({ title: "t", projectId: P }).catch((e: unknown) => e);
    await client.close();
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err).toMatchObject({ mayHaveSucceeded: false, unreachable: true });
    expect((err as Error).message).toContain("ECONNREFUSED");
    expect(events.filter((e) => e === "request")).toHaveLength(3);
  });

  it("PATCH is retried on 500, 502, 504 and a reset, sending the same body each time", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim, { maxRetries: 4 });
    const { id } = await client.createProduct({ title: "t", projectId: P });
    sim.clearRequests();
    for (const status of [500, 502, 504] as const) sim.addFault({ operation: "products.update", kind: "error", status });
    sim.addFault({ operation: "products.update", kind: "reset" });
    const updated = await client.updateProduct(id, { title: "renamed", status: "active" });
    expect(updated).toMatchObject({ title: "renamed", status: "active" });
    const reqs = sim.requests();
    expect(reqs.map((r) => r.status)).toEqual([500, 502, 504, "reset", 200]);
    expect(new Set(reqs.map((r) => JSON.stringify(r.body)))).toEqual(new Set([JSON.stringify({ title: "renamed", status: "active" })]));
  });

  it("GET is retried after a timeout", async () => {
    const sim = await simulator();
    // The first attempt hangs until the client gives up on it. The client's 200 ms are a virtual clock's,
    // which moves only while that attempt is held: the second, answered at once, cannot time out however
    // slow the machine (on real time, a second attempt slower than 200 ms failed this).
    const clock = new VirtualClock();
    clock.watch(sim.url, () => (sim.requests()[0]?.status === null ? 1 : 0));
    const { client, events } = clientFor(sim, { clock, timeoutMs: 200 });
    sim.addFault({ operation: "projects.list", kind: "hang" });
    const projects = await client.listProjects().toArray();
    expect(projects).toHaveLength(4);
    expect(sim.requests().map((r) => r.status)).toEqual(["dropped", 200]);
    expect(events.filter((e) => e.type === "retry").map((e) => e.type === "retry" && e.reason)).toEqual(["timeout"]);
  });

  it("attempts are bounded by maxRetries", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim, { maxRetries: 2 });
    sim.addFault({ operation: "projects.list", kind: "error", status: 502, times: 10 });
    const err = await client
      .listProjects()
      .toArray()
      .catch((e: unknown) => e);
    expect((err as Error).message).toContain("Gave up after 3 attempts.");
    expect(sim.requests()).toHaveLength(3);
  });
});
