/**
 * 429s are bounded (a number of retries and a floor between attempts, not only a time budget) and,
 * under a steady limit, the calls of one client are paced after the first 429 instead of all
 * restarting when the pause ends. Over loopback to the simulator; the client and the simulator
 * share one `VirtualClock`, so a 250 ms floor or a 2 s window costs no real time, no real time counts
 * (a busy machine cannot move a request into another window), and the gaps are measured on the
 * simulator's request log in that clock's time.
 */
import { describe, expect, it } from "vitest";
import { RateLimitError, type LogEvent } from "../../provider/client";
import {
  FORGET_AFTER_MS,
  forgetOldPace,
  grantSlot,
  initialPace,
  nextInterval,
  PACE_MARGIN,
  PACED_SLOWDOWN,
  readyAt,
  recordLimited,
  recordPassed,
} from "../../provider/client/internal/rate-limit-pacer";
import { DEFAULT_IDS, type LoggedRequest, type Simulator } from "pulumi-serviceapi-simulator";
import { VirtualClock, clientFor, rejectionOf, simulator } from "../helpers";

const at = (r: LoggedRequest) => Date.parse(r.time);
// The documented defaults (README, docs/resources.md), written out rather than read from the code under test.
/** `minRateLimitDelayMs`: the shortest wait after a 429. */
const FLOOR_MS = 250;
/** `maxRateLimitRetries`: retries of one call after 429s. */
const RETRIES = 20;

/** The message of a 429 that ends the call, as the client builds it from the simulator's envelope. */
function gaveUpText(sim: Simulator, requestId: string | undefined): string {
  return (
    `projects.list failed: 429 rate_limited: simulated 429 (fault 1) (docs: ${sim.url}/_simulator/errors/rate_limited) ` +
    `[request id ${requestId}] Answered 429 on 21 attempts; maxRateLimitRetries (20) allows no further retry.`
  );
}

/** Time between consecutive requests, as the simulator logged them. */
function gaps(requests: LoggedRequest[]): number[] {
  return requests.slice(1).map((r, i) => at(r) - at(requests[i]!));
}

/** A simulator and a client on one `VirtualClock`, with the client's retry events. */
async function virtual(options: Parameters<typeof clientFor>[1] = {}) {
  const clock = new VirtualClock();
  const sim = await simulator({ clock });
  const events: LogEvent[] = [];
  const { client } = clientFor(sim, { clock, logger: (e) => events.push(e), ...options });
  const retryDelays = () => events.flatMap((e) => (e.type === "retry" ? [e.delayMs] : []));
  return { sim, client, retryDelays, clock };
}

describe("a server that always answers 429 gets a RateLimitError after a bounded number of requests", () => {
  it("Retry-After: 0 forever: 1 + maxRateLimitRetries requests, at least minRateLimitDelayMs apart", async () => {
    const { sim, client, retryDelays } = await virtual();
    sim.addFault({ operation: "projects.list", kind: "error", status: 429, retryAfter: "0", times: 1000 });
    const err = await rejectionOf(client.listProjects().toArray(), RateLimitError);
    expect(err.message).toBe(gaveUpText(sim, err.requestId));
    expect(sim.requests()).toHaveLength(1 + RETRIES);
    expect(retryDelays()).toEqual(Array(RETRIES).fill(FLOOR_MS));
    for (const gap of gaps(sim.requests())) expect(gap).toBeGreaterThanOrEqual(FLOOR_MS);
  });

  it("no Retry-After and a zero backoff: the same bound and the same floor", async () => {
    const { sim, client, retryDelays } = await virtual({ initialRetryDelayMs: 0, maxRetryDelayMs: 0 });
    sim.addFault({ operation: "projects.list", kind: "error", status: 429, retryAfter: null, times: 1000 });
    const err = await rejectionOf(client.listProjects().toArray(), RateLimitError);
    expect(err.message).toBe(gaveUpText(sim, err.requestId));
    expect(sim.requests()).toHaveLength(1 + RETRIES);
    expect(sim.requests().every((r) => r.status === 429)).toBe(true);
    expect(retryDelays()).toEqual(Array(RETRIES).fill(FLOOR_MS));
    for (const gap of gaps(sim.requests())) expect(gap).toBeGreaterThanOrEqual(FLOOR_MS);
  });

  it("maxRateLimitRetries 0 fails at the first 429; the count is per call, not per client", async () => {
    const { sim, client } = await virtual({ maxRateLimitRetries: 2, minRateLimitDelayMs: 10 });
    sim.addFault({ operation: "projects.list", kind: "error", status: 429, retryAfter: "0", times: 2 });
    // Two 429s, then the third attempt passes: within the bound of 2 retries.
    expect(await client.listProjects().toArray()).toHaveLength(4);
    sim.addFault({ operation: "projects.list", kind: "error", status: 429, retryAfter: "0", times: 3 });
    const err = await client
      .listProjects()
      .toArray()
      .catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/Answered 429 on 3 attempts; maxRateLimitRetries \(2\) allows no further retry\.$/);
    const { client: strict } = clientFor(sim, { maxRateLimitRetries: 0 });
    sim.clearRequests();
    sim.addFault({ operation: "projects.list", kind: "error", status: 429, retryAfter: "0" });
    const first = await strict
      .listProjects()
      .toArray()
      .catch((e: unknown) => e);
    expect((first as Error).message).toMatch(/Answered 429 on 1 attempt; maxRateLimitRetries \(0\) allows no further retry\.$/);
    expect(sim.requests()).toHaveLength(1);
  });
});

describe("pacing under a steady limit", () => {
  it("after the first 429 the waiting calls are spread over the windows the server allows, not released at once", async () => {
    const { sim, client } = await virtual();
    sim.setRateLimit({ limit: 3, windowMs: 2000 });
    const sites = await Promise.all(Array.from({ length: 9 }, () => client.listSites({ projectId: DEFAULT_IDS.acmeDocs }).toArray()));
    expect(sites.map((s) => s.length)).toEqual(Array(9).fill(3));
    const log = sim.requests();
    const start = at(log[0]!);
    // The 9 calls go at once: 3 fit the window, the other 6 are refused with "Retry-After: 2".
    expect(log.slice(0, 9).map((r) => [at(r) - start, r.status])).toEqual([...Array(3).fill([0, 200]), ...Array(6).fill([0, 429])]);
    // The 6 go again from the end of the window, one every 2 s / 3 (the rate that got through, less the
    // margin), not all at once: every one gets through. To the millisecond the log keeps.
    const paced = log.slice(9);
    expect(paced.map((r) => r.status)).toEqual(Array(6).fill(200));
    expect(at(paced[0]!) - start).toBe(2000);
    const interval = (2000 / 3) * PACE_MARGIN;
    for (const gap of gaps(paced)) expect(Math.abs(gap - interval)).toBeLessThanOrEqual(1);
  });
});

describe("a long spell at the limit", () => {
  it("calls that keep waiting for their slots keep the pace past FORGET_AFTER_MS: no burst into the limit, no 429 after the first pause", async () => {
    const { sim, client, clock } = await virtual();
    sim.setRateLimit({ limit: 5, windowMs: 1000 });
    const start = clock.now();
    // Four callers, each calling again the moment its call returns, for 150 s: two and a half FORGET_AFTER_MS.
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (clock.now() - start < 150_000) await client.listSites({ projectId: DEFAULT_IDS.acmeDocs }).toArray();
      }),
    );
    const log = sim.requests();
    const first = at(log[0]!);
    const refused = log.filter((r) => r.status === 429).map((r) => at(r) - first);
    // The first four go at once, within the limit; the fifth window's burst teaches the pace. Nothing after.
    expect(refused.length).toBeGreaterThan(0);
    expect(Math.max(...refused), `429s at ${refused.join(", ")} ms`).toBeLessThan(2000);
    // …and the pace held: as many through as 150 s at the learned pace allows, less the first pause.
    const passed = log.filter((r) => r.status === 200).length;
    expect(passed).toBeGreaterThanOrEqual(Math.floor(148_000 / (200 * PACE_MARGIN)));
  });

  it("a pace a later 429 slowed is eased back to the one first learned, a step each FORGET_AFTER_MS, and dropped once the calls stop waiting", () => {
    const state = initialPace();
    // Unpaced: 20 through in 230 ms, then a 429 with "Retry-After: 1".
    for (let i = 0; i < 20; i++) recordPassed(state, grantSlot(state, i * 12));
    recordLimited(state, { episode: 0, sentAt: 240 }, 240, 1000, 1000);
    const base = 50 * PACE_MARGIN;
    expect([state.intervalMs, state.baseIntervalMs]).toEqual([base, base]);
    // Paced, a 429 (a late request opened the window): slowed by PACED_SLOWDOWN.
    let t = 1240;
    for (let i = 0; i < 30; i++, t += state.intervalMs) recordPassed(state, grantSlot(state, Math.max(t, readyAt(state))));
    recordLimited(state, { episode: 1, sentAt: t }, t, 1000, 1000);
    expect(state.intervalMs).toBeCloseTo(base * PACED_SLOWDOWN);
    // The calls keep waiting for their slots: 61 s later the pace is eased back, not dropped.
    const limitedAt = t;
    for (t = readyAt(state); t < limitedAt + FORGET_AFTER_MS + 1000; t += state.intervalMs) grantSlot(state, t);
    forgetOldPace(state, t);
    expect(state.intervalMs).toBeCloseTo(base);
    // Then they stop: a minute after the easing, with no call waiting, the pace is dropped.
    forgetOldPace(state, t + FORGET_AFTER_MS + 1);
    expect([state.intervalMs, state.baseIntervalMs]).toEqual([0, 0]);
  });
});

describe("the pace arithmetic (rate-limit-pacer.ts)", () => {
  // Each list: how long before the 429 each request that got through was sent, oldest first.
  const burst = (n: number, everyMs: number, endedMsAgo = 0) => Array.from({ length: n }, (_, i) => endedMsAgo + (n - 1 - i) * everyMs);

  it("Retry-After in whole seconds: the window is whole seconds, however long the burst before the 429 took", () => {
    // 20 through in 230 ms, then "Retry-After: 1": 20 per second, less the margin.
    expect(nextInterval(0, burst(20, 12), 1000)).toBeCloseTo(50 * PACE_MARGIN);
    // One a second for 20 s, the 21st refused with "Retry-After: 40": 20 per minute.
    expect(nextInterval(0, burst(20, 1000, 1000), 40_000)).toBeCloseTo(3000 * PACE_MARGIN);
  });

  it("quiet time before a burst does not slow the pace: the densest run of passed requests counts", () => {
    expect(nextInterval(0, [3_600_000, ...burst(20, 2)], 1000)).toBeCloseTo(50 * PACE_MARGIN);
    // The densest run has at least two requests: the last one alone does not make a rate.
    expect(nextInterval(0, [5000, 4000, 10], 1000)).toBeCloseTo((6000 / 3) * PACE_MARGIN);
  });

  it("nothing to learn without a Retry-After of a second or more, or with fewer than two through: the pace stays", () => {
    expect(nextInterval(0, burst(10, 20), 0)).toBe(0);
    expect(nextInterval(0, burst(10, 20), undefined)).toBe(0);
    expect(nextInterval(0, [], 1000)).toBe(0);
    expect(nextInterval(120, [], 1000)).toBe(120);
    // One request through, 2 s before a 429: a sparse caller, not a rate.
    expect(nextInterval(0, [2000], 1000)).toBe(0);
  });

  it("a 429 while paced slows the pace by at least PACED_SLOWDOWN, more if fewer got through", () => {
    expect(nextInterval(100, burst(30, 100), 1000)).toBeCloseTo(100 * PACED_SLOWDOWN);
    expect(nextInterval(100, burst(4, 100), 1000)).toBeCloseTo((1000 / 4) * PACE_MARGIN);
  });
});
