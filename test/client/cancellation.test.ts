import { describe, expect, it } from "vitest";
import { AbortError, RequestValidationError, ServiceApiClient, TimeoutError } from "../../src";
import { DEFAULT_IDS } from "../../simulator";
import { clientFor, simulator } from "../helpers";

const P = DEFAULT_IDS.acmeWeb;
const settle = (p: Promise<unknown>) => p.then(() => { throw new Error("expected a failure"); }, (e: unknown) => e as Error & Record<string, unknown>);

describe("per-request options and cancellation", () => {
  it("an abort stops a request in flight at once", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim);
    sim.addFault({ operation: "projects.list", kind: "delay", delayMs: 3000 });
    const started = Date.now();
    const err = await settle(client.listProjects({}, { signal: AbortSignal.timeout(100) }).toArray());
    expect(Date.now() - started).toBeLessThan(1000);
    expect(err).toBeInstanceOf(AbortError);
    expect(err).toMatchObject({ code: "SERVICEAPI_ABORTED", mayHaveSucceeded: false, message: "projects.list was aborted by the caller" });
  });

  it("an aborted create in flight may have been made", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim);
    sim.addFault({ operation: "products.create", kind: "delay", delayMs: 500 });
    const err = await settle(client.createProduct({ title: "x", projectId: P }, { signal: AbortSignal.timeout(100) }));
    expect(err).toBeInstanceOf(AbortError);
    expect(err.mayHaveSucceeded).toBe(true);
    expect(err.message).toContain("may have been created");
  });

  it("an abort stops a backoff sleep", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim);
    sim.addFault({ operation: "sites.update", kind: "error", status: 503, retryAfter: "30" });
    const started = Date.now();
    const err = await settle(client.updateSite(DEFAULT_IDS.acmeDocs, { name: "x" }, { signal: AbortSignal.timeout(150) }));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(err).toBeInstanceOf(AbortError);
    expect(sim.requests()).toHaveLength(1);
  });

  it("an abort stops the shared 429 wait before anything is sent", async () => {
    const sim = await simulator();
    let limited!: () => void;
    const paused = new Promise<void>((r) => (limited = r));
    const { client } = clientFor(sim, { logger: (e) => e.type === "retry" && limited() });
    sim.addFault({ operation: "projects.list", kind: "error", status: 429, retryAfter: "30" });
    const first = settle(client.listProjects({}, { signal: AbortSignal.timeout(2000) }).toArray());
    await paused;
    const started = Date.now();
    const err = await settle(client.createProduct({ title: "x", projectId: P }, { signal: AbortSignal.timeout(100) }));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(err).toBeInstanceOf(AbortError);
    expect(err.mayHaveSucceeded).toBe(false);
    expect(sim.requests("products.create")).toHaveLength(0);
    expect(await first).toBeInstanceOf(AbortError);
  });

  it("an already aborted signal sends nothing", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim);
    const err = await settle(client.updateProduct(P, {}, { signal: AbortSignal.abort() }));
    expect(err).toBeInstanceOf(AbortError);
    expect(sim.requests()).toHaveLength(0);
  });

  it("timeoutMs and maxRetries can be set per call", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim, { timeoutMs: 10_000, maxRetries: 3 });
    sim.addFault({ operation: "projects.list", kind: "delay", delayMs: 500, times: 5 });
    const err = await settle(client.listProjects({}, { timeoutMs: 50, maxRetries: 1 }).toArray());
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.message).toBe("projects.list failed: no response within 50 ms (2 attempts)");
    expect(sim.requests("projects.list")).toHaveLength(2);
  });

  it("list queries are validated when the list is made, not on first iteration", () => {
    const client = new ServiceApiClient({ baseUrl: "https://x.example", token: "tok_0123456789" });
    expect(() => client.listProjects({ limit: 101 })).toThrow(RequestValidationError);
    expect(() => client.listSites({ projectId: "nope" })).toThrow("sites.list: invalid request, nothing was sent: projectId must be a UUID (8-4-4-4-12 hex digits)");
  });
});
