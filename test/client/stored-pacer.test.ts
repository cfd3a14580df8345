/**
 * Runners on separate machines share the rate limit through a store (`provider/client/internal/stored-pacer.ts`):
 * each runner here is a shared pacer of its own (`startSharedPacer({ store })`, as each catalog job
 * starts one) with clients of its own, and the runners meet only in the store. The store is an
 * in-memory one with PostgreSQL's contract — one transaction at a time, on its own clock — so that
 * this tier needs no database; the PostgreSQL store itself is proven in
 * test/engine/catalog-shared-limit.test.ts. Requests refused and let through are counted in the
 * simulator's request log; everything shares one virtual clock (as in `shared-pacer.test.ts`).
 */
import { describe, expect, it } from "vitest";
import type { ServiceApiClient } from "../../provider/client";
import type { PaceState, PaceStore } from "../../provider/client/shared-pacer";
import type { Clock } from "../../provider/client/config";
import { DEFAULT_IDS, type Simulator } from "pulumi-serviceapi-simulator";
import { clientFor, VirtualClock } from "../helpers";
import { StoredPacer } from "../../provider/client/internal/stored-pacer";
import { initialPace } from "../../provider/client/internal/rate-limit-pacer";
import { limited, sharedPacer } from "./pacer-support";

const listSites = (client: ServiceApiClient) => client.listSites({ projectId: DEFAULT_IDS.acmeDocs }).toArray();
const statuses = (sim: Simulator) => sim.requests().map((r) => r.status);

/** PostgreSQL's contract in memory: one transaction at a time (a row lock), each taking `latencyMs` of the clock; `fail()` makes every later one fail. */
class MemoryStore {
  state: PaceState | undefined;
  transactions = 0;
  #lock: Promise<unknown> = Promise.resolve();
  #failed: Error | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly latencyMs = 2,
  ) {}

  fail(error: Error): void {
    this.#failed = error;
  }

  /** A runner's handle on the store, named as the catalog names it. */
  handle(): PaceStore {
    return {
      name: "memory (test)",
      update: (change) => {
        const turn = this.#lock.then(async () => {
          await this.clock.sleep(this.latencyMs);
          if (this.#failed) throw this.#failed;
          this.transactions += 1;
          const now = this.clock.now();
          // As the database would: the runner gets a copy, and what it returns is stored.
          const { state, result } = change(this.state && structuredClone(this.state), now);
          this.state = structuredClone(state);
          return { result, now };
        });
        this.#lock = turn.catch(() => undefined);
        return turn;
      },
      close: async () => undefined,
    };
  }
}

describe("runners that share a store pace as one", () => {
  /** Listings each command sends, all at once, split between the runners: the same work whichever number of runners share it. */
  const CALLS = 8;

  /** `runners` runners each run two commands one after the other (each a client of its own, its share of `CALLS`), through one store or each alone. */
  async function run(runners: number, share: boolean) {
    const { clock, sim } = await limited();
    const store = new MemoryStore(clock);
    const warnings: string[] = [];
    const pacers = await Promise.all(
      Array.from({ length: runners }, () => sharedPacer({ clock, warn: (m) => warnings.push(m), ...(share && { store: store.handle() }) })),
    );
    await Promise.all(
      pacers.map(async (pacer) => {
        for (let command = 0; command < 2; command++) {
          const { client } = clientFor(sim, { clock, sharedPacerUrl: pacer.url });
          await Promise.all(Array.from({ length: CALLS / runners }, () => listSites(client)));
        }
      }),
    );
    return {
      refused: statuses(sim).filter((s) => s === 429).length,
      passed: statuses(sim).filter((s) => s === 200).length,
      transactions: store.transactions,
      attempts: pacers.reduce((sum, p) => sum + p.stats().acquired, 0),
      warnings,
    };
  }

  it("4 runners through one store share its pauses: refused far less often than 4 each pacing alone", async () => {
    const [alone, shared, separate] = await Promise.all([run(1, false), run(4, true), run(4, false)]);
    expect([alone.passed, shared.passed, separate.passed]).toEqual([2 * CALLS, 2 * CALLS, 2 * CALLS]);
    // The first burst overshoots the window whoever sends it: 8 at one instant, 3 fit. One runner alone
    // then keeps the pace it learned from it: nothing else is refused.
    expect(alone.refused).toBe(CALLS - 3);
    // 4 runners each alone overshoot again at the end of every pause and with each command that starts
    // unpaced (24 on this clock); through the store none sends into a pause another's 429 began (12).
    // Not as few as one runner alone: a 429 teaches the store a pace only from the passed requests that
    // reached it first, and each runner sends those PASSED_DELAY_MS late, so the 429s of a burst all the
    // runners sent together teach nothing; here the pace is learned at the third burst.
    expect(separate.refused).toBeGreaterThan(shared.refused + 2);
    expect(shared.warnings).toEqual([]);
    // A transaction serves a batch of calls and reports: at most 2 per attempt (40 for 28 attempts here).
    expect(shared.transactions).toBeLessThanOrEqual(2 * shared.attempts);
  });

  it("a runner that starts after another learned the pace is paced from its first request: none of its burst is refused", async () => {
    const { clock, sim } = await limited();
    const store = new MemoryStore(clock);
    const first = await sharedPacer({ clock, store: store.handle() });
    const { client } = clientFor(sim, { clock, sharedPacerUrl: first.url });
    await Promise.all(Array.from({ length: 6 }, () => listSites(client)));
    expect(statuses(sim)).toContain(429);
    expect(store.state?.intervalMs).toBeGreaterThan(0);
    sim.clearRequests();
    const late = await sharedPacer({ clock, store: store.handle() });
    const { client: lateClient } = clientFor(sim, { clock, sharedPacerUrl: late.url });
    await Promise.all(Array.from({ length: 4 }, () => listSites(lateClient)));
    expect(statuses(sim)).toEqual(Array(4).fill(200));
    expect(late.stats().store).toMatchObject({ alone: false });
  });
});

describe("a store that fails never stops a run", () => {
  it("every call goes on, paced by its runner alone, with one warning naming the store and the failure", async () => {
    const { clock, sim } = await limited();
    const store = new MemoryStore(clock);
    const warnings: string[] = [];
    const pacer = await sharedPacer({ clock, store: store.handle(), warn: (m) => warnings.push(m) });
    const { client } = clientFor(sim, { clock, sharedPacerUrl: pacer.url });
    await Promise.all(Array.from({ length: 4 }, () => listSites(client)));
    store.fail(Object.assign(new Error("Connection terminated unexpectedly"), { code: "57P01" }));
    await Promise.all(Array.from({ length: 8 }, () => listSites(client)));
    expect(statuses(sim).filter((s) => s === 200)).toHaveLength(12);
    expect(warnings).toEqual([
      "the shared rate limit in memory (test) failed: Connection terminated unexpectedly; this runner paces its requests alone from now on, " +
        "so runners working at the same time may be refused (429) more often",
    ]);
    expect(pacer.stats().store).toMatchObject({ alone: true });
    // Paced alone, it still learns the limit: the second burst is not refused more than a runner alone would be.
    expect(statuses(sim).filter((s) => s === 429).length).toBeLessThanOrEqual(8);
  });
});

describe("a runner on a busy machine", () => {
  it("a slot this runner woke for late is given up and asked for again: two slots never go at once", async () => {
    const base = new VirtualClock({ advance: "by-test" });
    // A busy event loop: the second slot's timer wakes 100 ms late.
    let sleeps = 0;
    const clock: Clock = {
      ...base,
      now: () => base.now(),
      date: () => base.date(),
      sleep: (ms, signal) => base.sleep(ms + (ms > 0 && ++sleeps === 1 ? 100 : 0), signal),
    };
    const store = new MemoryStore(clock, 0);
    // A pace learned a moment ago: one call every 250 ms. A moment ago on this clock — which starts at the process's
    // uptime: at 0, a worker alive for over a minute (FORGET_AFTER_MS) had the pace forgotten, and nothing was paced.
    store.state = { ...initialPace(), intervalMs: 250, lastLimitedAt: base.now() };
    const pacer = new StoredPacer({ store: store.handle(), clock, warn: () => undefined });
    const granted: number[] = [];
    const start = base.now();
    const calls = Array.from({ length: 3 }, () => pacer.acquire().then(() => granted.push(base.now() - start)));
    for (let t = 0; t < 1000; t += 10) {
      await new Promise((resolve) => setImmediate(resolve));
      base.advance(10);
    }
    await Promise.all(calls);
    expect(pacer.stats()).toMatchObject({ late: 1, granted: 3 });
    // Without giving it up: 0, 350, 500 — two calls 150 ms apart, in a window the pace had filled.
    expect(granted.map((t) => t - granted[0]!)).toEqual([0, 500, 750]);
  });
});
