import { describe, expect, it, vi } from "vitest";
import { AbortError, RequestValidationError, ServiceApiClient, TimeoutError } from "../../provider/client";
import { DEFAULT_IDS } from "pulumi-serviceapi-simulator";
import { VirtualClock, clientFor, rejectionOf, simulator, until } from "../helpers";

const P = DEFAULT_IDS.acmeWeb;

describe("per-request options and cancellation", () => {
  it("an abort stops a request in flight: the call fails with AbortError long before the server would answer", async () => {
    const sim = await simulator();
    const controller = new AbortController();
    const { client } = clientFor(sim);
    // The server would hold it 60 s: had the abort not stopped it, the test would time out.
    sim.addFault({ operation: "projects.list", kind: "delay", delayMs: 60_000 });
    const pending = rejectionOf(client.listProjects({}, { signal: controller.signal }).toArray());
    await until("the listing to reach the service", () => sim.requests("projects.list").some((r) => r.status === null));
    controller.abort();
    const err = await pending;
    expect(err).toBeInstanceOf(AbortError);
    expect(err).toMatchObject({ code: "SERVICEAPI_ABORTED", mayHaveSucceeded: false, message: "projects.list was aborted by the caller" });
  });

  it("an aborted create in flight may have been made", async () => {
    const sim = await simulator();
    const controller = new AbortController();
    const { client } = clientFor(sim);
    sim.addFault({ operation: "products.create", kind: "delay", delayMs: 60_000 });
    const pending = rejectionOf(client.createProduct({ title: "x", projectId: P }, { signal: controller.signal }));
    await until("the create to reach the service", () => sim.requests("products.create").some((r) => r.status === null));
    controller.abort();
    const err = await pending;
    expect(err).toBeInstanceOf(AbortError);
    expect(err.mayHaveSucceeded).toBe(true);
    expect(err.message).toContain("may have been created");
  });

  it("an abort stops a backoff sleep: nothing more is sent", async () => {
    const sim = await simulator();
    const controller = new AbortController();
    const clock = new VirtualClock();
    // Abort as soon as the client starts its 30 s wait: the retry is never sent.
    const { client } = clientFor(sim, { clock, logger: (e) => e.type === "retry" && controller.abort() });
    sim.addFault({ operation: "sites.update", kind: "error", status: 503, retryAfter: "30" });
    const err = await rejectionOf(client.updateSite(DEFAULT_IDS.acmeDocs, { name: "x" }, { signal: controller.signal }));
    expect(err).toBeInstanceOf(AbortError);
    expect(clock.sleeps).toEqual([30_000]);
    expect(sim.requests()).toHaveLength(1);
  });

  it("an abort stops the shared 429 wait before anything is sent", async () => {
    const sim = await simulator();
    const clock = new VirtualClock();
    let limited!: () => void;
    const paused = new Promise<void>((r) => (limited = r));
    const { client } = clientFor(sim, {
      clock,
      maxRetryAfterMs: 3_600_000,
      rateLimitBudgetMs: 3_600_000,
      logger: (e) => e.type === "retry" && limited(),
    });
    // A 3000 s pause: had the abort not ended the waiting create, it would be sent once the virtual clock
    // reached the pause's end, and would not fail.
    sim.addFault({ operation: "projects.list", kind: "error", status: 429, retryAfter: "3000" });
    const firstCall = new AbortController();
    const first = rejectionOf(client.listProjects({}, { signal: firstCall.signal }).toArray());
    await paused;
    const second = new AbortController();
    const creating = rejectionOf(client.createProduct({ title: "x", projectId: P }, { signal: second.signal }));
    second.abort();
    const err = await creating;
    expect(err).toBeInstanceOf(AbortError);
    expect(err.mayHaveSucceeded).toBe(false);
    expect(sim.requests("products.create")).toHaveLength(0);
    firstCall.abort();
    expect(await first).toBeInstanceOf(AbortError);
  });

  it("an already aborted signal sends nothing", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim);
    const err = await rejectionOf(client.updateProduct(P, {}, { signal: AbortSignal.abort() }));
    expect(err).toBeInstanceOf(AbortError);
    expect(sim.requests()).toHaveLength(0);
  });

  it("timeoutMs and maxRetries can be set per call", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim, { timeoutMs: 10_000, maxRetries: 3 });
    // Margins for a busy machine: a request must reach the simulator well within the timeout, and the delay is far beyond it.
    sim.addFault({ operation: "projects.list", kind: "delay", delayMs: 5_000, times: 5 });
    const err = await rejectionOf(client.listProjects({}, { timeoutMs: 400, maxRetries: 1 }).toArray());
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.message).toBe("projects.list failed: no response within 400 ms (2 attempts)");
    // The second attempt may be logged by the simulator a moment after the client gave up on it.
    await vi.waitFor(() => expect(sim.requests("projects.list")).toHaveLength(2), { timeout: 5_000 });
  });

  it("list queries are validated when the list is made, not on first iteration", () => {
    const client = new ServiceApiClient({ baseUrl: "https://x.example", token: "tok_0123456789" });
    expect(() => client.listProjects({ limit: 101 })).toThrow(RequestValidationError);
    expect(() => client.listSites({ projectId: "nope" })).toThrow(
      "sites.list: invalid request, nothing was sent: projectId must be a UUID (8-4-4-4-12 hex digits)",
    );
  });
});
