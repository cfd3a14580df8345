/**
 * A pacer whose state lives in a store that several runners share (`PaceStore`: a row in the state
 * backend's PostgreSQL, for the catalog tool), so that runners on separate machines pause and pace
 * as the calls of one client would. The rule is `rate-limit-pacer.ts`'s, applied to the stored
 * `PaceState` under the store's lock and on the store's clock (the one clock every runner shares).
 *
 * What it costs: one store transaction per batch, not per request. Calls and reports that arrive
 * while a transaction is out wait for the next one, which takes them all: reports are applied in
 * order, then each waiting call gets the next free slot. Slots are handed out only `HORIZON_MS`
 * ahead — but one, the first waiting call's, wherever it is — so that a 429 another runner meets
 * changes what this one sends within that time; the other calls wait for a later transaction.
 *
 * A store that fails must not stop a deploy: from the first failure on, this runner paces alone with
 * a local `RateLimitPacer` (which starts unpaced) and says so once, through `warn`.
 */
import type { Clock } from "../config";
import {
  forgetOldPace,
  grantSlot,
  initialPace,
  RateLimitPacer,
  readyAt,
  recordLimited,
  recordPassed,
  type PaceState,
  type Pacer,
  type PaceTicket,
} from "./rate-limit-pacer";
// LATE_MS: a slot this runner's timer wakes for this much later than asked is given up, and its call
// asks the store again. Slots are laid out on the store's clock for every runner, one interval apart: a
// busy event loop that wakes late for two of them lets both go at once, and the second lands in a window
// the limit has already filled. The same bound as a provider process's for an answer it reads late.
import { describe, LATE_MS } from "./remote-pacer";

/** Where the shared `PaceState` lives. */
export interface PaceStore {
  /** Names the store in the warning, without secrets: `PostgreSQL at db.internal:5432/pulumi (SERVICEAPI_RATE_LIMIT_STORE)`. */
  readonly name: string;
  /**
   * Reads the state (undefined: none yet), lets `change` change it, writes it back — as one
   * transaction, so that no other runner's change comes in between. `now` is the store's clock, in
   * milliseconds. Resolves with `change`'s result and that `now`; rejects when the store failed.
   */
  update<T>(change: (state: PaceState | undefined, now: number) => { state: PaceState; result: T }): Promise<{ result: T; now: number }>;
  close(): Promise<void>;
}

/** Slots are handed out this far ahead of the store's clock, no further. */
export const HORIZON_MS = 250;
/**
 * Reports that a request got through wait this long for a transaction to ride in (a call's or a
 * 429's); only then do they make one of their own. They teach the pace only when a 429 comes, so a
 * runner's last 50 ms of them missing then makes the pace a little slower, never faster.
 */
export const PASSED_DELAY_MS = 50;

interface Waiter {
  grant: (ticket: PaceTicket) => void;
  fail: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

type Report = { kind: "passed"; ticket: PaceTicket } | { kind: "limited"; ticket: PaceTicket; waitMs: number; retryAfterMs?: number };

export interface StoredPacerStats {
  /** Store transactions made. */
  transactions: number;
  /** Attempts let go through the store. */
  granted: number;
  /** Slots given up because this runner woke for them more than `LATE_MS` late (its calls asked again). */
  late: number;
  /** Whether the store failed and this runner paces alone. */
  alone: boolean;
}

export class StoredPacer implements Pacer {
  readonly #store: PaceStore;
  readonly #clock: Clock;
  readonly #warn: (message: string) => void;
  readonly #waiting: Waiter[] = [];
  #reports: Report[] = [];
  /** The transaction out now; another is started when it ends if anything waits. */
  #syncing: Promise<void> | undefined;
  /** The wait before a transaction for calls whose slot lay beyond the horizon. */
  #later: AbortController | undefined;
  /** The wait before a transaction for reports of requests that got through (`PASSED_DELAY_MS`). */
  #flush: AbortController | undefined;
  #local: RateLimitPacer | undefined;
  /**
   * Tickets the local pacer gave (after the store failed), counted by key: reports of the store's earlier
   * tickets must not teach it. A count, not a set: calls let go together share an episode and may share a
   * send time (a clock that did not move between them), and each of their reports must still count.
   */
  readonly #localTickets = new Map<string, number>();
  readonly #stats = { transactions: 0, granted: 0, late: 0 };
  /** The pace as the last transaction read it (0: unpaced). */
  #intervalMs = 0;

  constructor(options: { store: PaceStore; clock: Clock; warn: (message: string) => void }) {
    this.#store = options.store;
    this.#clock = options.clock;
    this.#warn = options.warn;
  }

  /** Milliseconds between paced calls, as this runner last read them (alone: its own pacer's); 0 while unpaced. */
  get intervalMs(): number {
    return this.#local ? this.#local.intervalMs : this.#intervalMs;
  }

  stats(): StoredPacerStats {
    return { ...this.#stats, alone: this.#local !== undefined };
  }

  acquire(signal?: AbortSignal): Promise<PaceTicket> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#local) return this.#acquireLocal(signal);
    return new Promise<PaceTicket>((grant, fail) => {
      const waiter: Waiter = {
        grant,
        fail,
        signal,
        onAbort: () => {
          const index = this.#waiting.indexOf(waiter);
          if (index >= 0) this.#waiting.splice(index, 1);
          fail(signal!.reason);
        },
      };
      signal?.addEventListener("abort", waiter.onAbort, { once: true });
      this.#waiting.push(waiter);
      this.#kick();
    });
  }

  passed(ticket: PaceTicket): void {
    if (this.#local) {
      if (this.#takeLocal(ticket)) this.#local.passed(ticket);
      return;
    }
    this.#reports.push({ kind: "passed", ticket });
    if (this.#flush) return;
    const flush = new AbortController();
    this.#flush = flush;
    this.#clock.sleep(PASSED_DELAY_MS, flush.signal).then(
      () => {
        if (this.#flush === flush) {
          this.#flush = undefined;
          this.#kick(true);
        }
      },
      () => undefined,
    );
  }

  limited(ticket: PaceTicket, waitMs: number, retryAfterMs?: number): void {
    if (this.#local) {
      // A ticket of the store's (given before it failed) still holds this runner off; it teaches no pace (episode -1).
      const own = this.#takeLocal(ticket);
      this.#local.limited(own ? ticket : { episode: -1, sentAt: ticket.sentAt }, waitMs, retryAfterMs);
      return;
    }
    this.#reports.push({ kind: "limited", ticket, waitMs, retryAfterMs });
    this.#kick();
  }

  /** Waits for the transaction out, then closes the store. Calls still waiting go on alone. */
  async close(): Promise<void> {
    this.#later?.abort();
    this.#flush?.abort();
    await this.#syncing;
    await this.#store.close();
  }

  /**
   * Starts a transaction unless one is out (that one starts the next when it ends), or nothing needs
   * one yet: calls that come while others wait for a later slot join that later transaction, and
   * reports of passed requests wait for one (`flushed`: their wait is over). A 429 is worth one now:
   * the other runners then pause sooner.
   */
  #kick(flushed = false): void {
    if (this.#syncing || this.#local) return;
    const limited = this.#reports.some((report) => report.kind === "limited");
    const calls = this.#waiting.length > 0 && !this.#later;
    const reports = flushed && this.#reports.length > 0;
    if (!limited && !calls && !reports) return;
    this.#later?.abort();
    this.#later = undefined;
    this.#flush?.abort();
    this.#flush = undefined;
    this.#syncing = this.#sync().finally(() => {
      this.#syncing = undefined;
      this.#kick(this.#reports.length > 0 && !this.#flush);
    });
  }

  async #sync(): Promise<void> {
    const reports = this.#reports;
    this.#reports = [];
    const wanted = this.#waiting.length;
    let outcome: { result: { tickets: PaceTicket[]; next: number; intervalMs: number }; now: number };
    try {
      outcome = await this.#store.update((stored, now) => {
        const state = stored ?? initialPace();
        for (const report of reports) {
          if (report.kind === "passed") recordPassed(state, report.ticket);
          else recordLimited(state, report.ticket, now, report.waitMs, report.retryAfterMs);
        }
        forgetOldPace(state, now);
        const tickets: PaceTicket[] = [];
        // The first call takes the next free slot however far it is (so that no transaction is spent for nothing when
        // other runners took the slot this one waited for); the others only slots within the horizon.
        while (tickets.length < wanted && (tickets.length === 0 || readyAt(state) <= now + HORIZON_MS))
          tickets.push(grantSlot(state, Math.max(now, readyAt(state))));
        return { state, result: { tickets, next: readyAt(state), intervalMs: state.intervalMs } };
      });
    } catch (error) {
      this.#goAlone(error, reports);
      return;
    }
    this.#stats.transactions += 1;
    const { tickets, next, intervalMs } = outcome.result;
    this.#intervalMs = intervalMs;
    for (const ticket of tickets) {
      // Calls that left meanwhile leave their slot unused: a little slower, never over the limit.
      const waiter = this.#waiting.shift();
      if (!waiter) break;
      waiter.signal?.removeEventListener("abort", waiter.onAbort);
      // Counted from the answer, not from when the store read its clock: late by the commit's round trip, never early.
      void this.#release(waiter, ticket, ticket.sentAt - outcome.now);
    }
    if (this.#waiting.length > 0) {
      // The rest go when the horizon reaches their slot: one transaction then, not one per call now.
      const later = new AbortController();
      this.#later = later;
      this.#clock.sleep(Math.max(0, Math.ceil(next - outcome.now - HORIZON_MS)), later.signal).then(
        () => {
          if (this.#later === later) {
            this.#later = undefined;
            this.#kick();
          }
        },
        () => undefined,
      );
    }
  }

  /** Lets a granted call go at its slot, on this runner's clock; one woken late for it asks again (`LATE_MS`). */
  async #release(waiter: Waiter, ticket: PaceTicket, inMs: number): Promise<void> {
    const wait = Math.max(0, Math.ceil(inMs));
    const wake = this.#clock.now() + wait;
    if (wait > 0) await this.#clock.sleep(wait);
    if (waiter.signal?.aborted) return waiter.fail(waiter.signal.reason);
    if (this.#clock.now() - wake > LATE_MS && !this.#local) {
      this.#stats.late += 1;
      // First in line again: it waited longest.
      waiter.signal?.addEventListener("abort", waiter.onAbort, { once: true });
      this.#waiting.unshift(waiter);
      this.#kick();
      return;
    }
    this.#stats.granted += 1;
    waiter.grant(ticket);
  }

  #acquireLocal(signal: AbortSignal | undefined): Promise<PaceTicket> {
    return this.#local!.acquire(signal).then((ticket) => {
      this.#localTickets.set(key(ticket), (this.#localTickets.get(key(ticket)) ?? 0) + 1);
      return ticket;
    });
  }

  /** Whether the local pacer gave `ticket` (one of the tickets under its key, now reported). */
  #takeLocal(ticket: PaceTicket): boolean {
    const count = this.#localTickets.get(key(ticket));
    if (count === undefined) return false;
    if (count === 1) this.#localTickets.delete(key(ticket));
    else this.#localTickets.set(key(ticket), count - 1);
    return true;
  }

  /** Once: the run goes on, this runner pacing alone; the calls waiting on the store are handed to the local pacer. */
  #goAlone(error: unknown, reports: Report[]): void {
    this.#later?.abort();
    this.#flush?.abort();
    const local = new RateLimitPacer(this.#clock);
    this.#local = local;
    this.#warn(
      `the shared rate limit in ${this.#store.name} failed: ${describe(error)}; this runner paces its requests alone from now on, ` +
        "so runners working at the same time may be refused (429) more often",
    );
    // A 429 that did not reach the store still holds this runner off.
    for (const report of [...reports, ...this.#reports]) {
      if (report.kind === "limited") local.limited({ episode: -1, sentAt: report.ticket.sentAt }, report.waitMs, report.retryAfterMs);
    }
    this.#reports = [];
    for (const waiter of this.#waiting.splice(0)) {
      waiter.signal?.removeEventListener("abort", waiter.onAbort);
      this.#acquireLocal(waiter.signal).then(waiter.grant, waiter.fail);
    }
  }
}

function key(ticket: PaceTicket): string {
  return `${ticket.episode}/${ticket.sentAt}`;
}
