/**
 * The 429 pause and the pace after it, shared by every call of one client (under Pulumi: every
 * resource of one provider process).
 *
 * Before any 429, calls go out as they come. A 429 holds every call until the wait it names, and
 * ends an "episode": the requests that got through in it, over the window the server implies, are
 * what the server allows, so their rate is the rate to keep (`nextInterval`). The waiting calls then
 * go out one per interval at that rate, slowed by `PACE_MARGIN`, instead of all at once when the
 * pause ends (which made a steady limit refuse half of them again). A 429 while paced ends the
 * next episode and slows the pace. `FORGET_AFTER_MS` after the last 429, a client whose calls no
 * longer wait for their slots (a busy spell over) drops the pace, so it is not held back for good;
 * one whose calls still wait keeps it — dropping it would only send a burst into the limit it was
 * learned from, once a minute, refused in part (a catalog's 9-minute drift: 1 % refused, 1.1× the
 * rate's floor) — and eases a pace a later 429 slowed back towards the one first learned, one
 * `PACED_SLOWDOWN` step each `FORGET_AFTER_MS` (`forgetOldPace`). Such a client does not find out,
 * until it rests, that the server's limit was raised.
 */
import { SYSTEM_CLOCK, type Clock } from "../config";

/**
 * Paced calls go this much slower than the rate that got through: room for timer and network jitter.
 * 2 %: a catalog's 10,000-read drift at a 20/s limit took 1.08× the rate's floor at 5 % and 1.05× at
 * 2 %, with 6 and 5 refused (docs/scale.md); a late request that meets the limit slows the pace for a
 * while (`PACED_SLOWDOWN`, eased back by `forgetOldPace`), which a wider margin would pay all the time.
 */
export const PACE_MARGIN = 1.02;
/** A 429 while paced slows the pace by at least this factor. */
export const PACED_SLOWDOWN = 1.1;
/** The slowest pace: one call a minute. */
export const MAX_INTERVAL_MS = 60_000;
/** Without a 429 for this long, calls go out unpaced again. */
export const FORGET_AFTER_MS = 60_000;
/**
 * Fewest passed requests a pace is learned from: one request through and then a 429 says nothing
 * about a rate (a sparse caller meeting a limit another client used up would be slowed for nothing).
 */
export const MIN_PASSED = 2;
/** Send times kept per episode, to estimate the rate; older ones are dropped. */
const KEPT_SENDS = 1_000;

/** Handed to a call when it may send; it reports the call's outcome. */
export interface PaceTicket {
  readonly episode: number;
  readonly sentAt: number;
}

/**
 * What the transport admits every attempt through: this file's `RateLimitPacer` (one per client), or
 * `RemotePacer` (`remote-pacer.ts`), which asks one pacer shared by several processes.
 */
export interface Pacer {
  /** Resolves when the call may send; rejects with the signal's reason when it is aborted first. */
  acquire(signal?: AbortSignal): Promise<PaceTicket>;
  /** The call's response was not a 429. */
  passed(ticket: PaceTicket): void;
  /** The call got a 429 and will wait `waitMs` (`retryAfterMs`: what the server asked, if it did). */
  limited(ticket: PaceTicket, waitMs: number, retryAfterMs?: number): void;
}

/**
 * What a pacer knows, as plain data: one client's (`RateLimitPacer`), or one shared by several
 * runners and kept in a store (`stored-pacer.ts`), where it is read, changed by the functions below
 * and written back under a lock. Times are the owning clock's milliseconds.
 */
export interface PaceState {
  episode: number;
  /** Send times of the requests of this episode that got through (not 429). */
  passed: number[];
  pausedUntil: number;
  intervalMs: number;
  nextSlot: number;
  /** When the last 429 was reported; null before any. */
  lastLimitedAt: number | null;
  /** The pace first learned, from calls that went unpaced (what the server allows, with the margin); 0 while unpaced. */
  baseIntervalMs: number;
  /** When a call last went as soon as its slot came (the calls wait for their slots: demand at the pace or above); null before any. */
  lastHeldAt: number | null;
  /** When the pace was last eased towards `baseIntervalMs`; null before any. */
  easedAt: number | null;
}

export function initialPace(): PaceState {
  return {
    episode: 0,
    passed: [],
    pausedUntil: 0,
    intervalMs: 0,
    nextSlot: 0,
    lastLimitedAt: null,
    baseIntervalMs: 0,
    lastHeldAt: null,
    easedAt: null,
  };
}

/** When the next call may go: after the pause and at its slot. */
export function readyAt(state: PaceState): number {
  return Math.max(state.pausedUntil, state.nextSlot);
}

/**
 * `FORGET_AFTER_MS` after the last 429 (or the last easing): a pace whose calls no longer wait for
 * their slots is dropped (a client that outlives a busy spell is not held back for good); one whose
 * calls still wait is kept, and eased one `PACED_SLOWDOWN` step back towards the pace first learned.
 */
export function forgetOldPace(state: PaceState, now: number): void {
  if (state.lastLimitedAt === null) {
    state.intervalMs = 0;
    return;
  }
  if (now - Math.max(state.lastLimitedAt, state.easedAt ?? 0) <= FORGET_AFTER_MS) return;
  const busy = state.intervalMs > 0 && state.lastHeldAt !== null && now - state.lastHeldAt <= Math.max(1000, 4 * state.intervalMs);
  if (!busy) {
    state.intervalMs = 0;
    state.baseIntervalMs = 0;
    return;
  }
  state.intervalMs = Math.max(state.baseIntervalMs, state.intervalMs / PACED_SLOWDOWN);
  state.easedAt = now;
}

/** A call goes at `at` (no earlier than `readyAt`): the next one's slot is one interval later. */
export function grantSlot(state: PaceState, at: number): PaceTicket {
  // Within half an interval of its slot: the calls come at the pace or faster, and wait for their slots.
  if (state.intervalMs > 0 && at - state.nextSlot < state.intervalMs / 2) state.lastHeldAt = at;
  state.nextSlot = at + state.intervalMs;
  return { episode: state.episode, sentAt: at };
}

/** The call's response was not a 429: it counts towards the rate of its episode. */
export function recordPassed(state: PaceState, ticket: PaceTicket): void {
  if (ticket.episode !== state.episode) return;
  state.passed.push(ticket.sentAt);
  if (state.passed.length > KEPT_SENDS) state.passed.shift();
}

/**
 * The call got a 429 and will wait `waitMs` (`retryAfterMs` is what the server asked, if it
 * did): every call holds off until then. The first 429 of an episode sets the pace; later ones
 * (requests sent before it) only extend the pause.
 */
export function recordLimited(state: PaceState, ticket: PaceTicket, now: number, waitMs: number, retryAfterMs?: number): void {
  state.lastLimitedAt = now;
  state.pausedUntil = Math.max(state.pausedUntil, now + waitMs);
  if (ticket.episode === state.episode) {
    const unpaced = state.intervalMs === 0;
    state.intervalMs = nextInterval(
      state.intervalMs,
      state.passed.map((sentAt) => now - sentAt),
      retryAfterMs,
    );
    if (unpaced) state.baseIntervalMs = state.intervalMs;
    state.episode += 1;
    state.passed = [];
  }
}

interface Waiter {
  grant: (ticket: PaceTicket) => void;
  fail: (reason: unknown) => void;
  detach: () => void;
}

export class RateLimitPacer implements Pacer {
  readonly #now: () => number;
  readonly #state = initialPace();
  readonly #waiting: Waiter[] = [];
  /** Cancels the pending release, if any. */
  #timer: AbortController | undefined;
  readonly #sleep: Clock["sleep"];

  constructor(clock: Clock = SYSTEM_CLOCK) {
    this.#now = () => clock.now();
    this.#sleep = (ms, signal) => clock.sleep(ms, signal);
  }

  /** Milliseconds between paced calls; 0 while calls are not paced. */
  get intervalMs(): number {
    return this.#state.intervalMs;
  }

  /** Resolves when this call may send, in arrival order; rejects with the signal's reason when it is aborted first. */
  acquire(signal?: AbortSignal): Promise<PaceTicket> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const now = this.#now();
    forgetOldPace(this.#state, now);
    if (this.#waiting.length === 0 && now >= readyAt(this.#state)) return Promise.resolve(grantSlot(this.#state, now));
    return new Promise<PaceTicket>((grant, fail) => {
      const onAbort = () => {
        const index = this.#waiting.indexOf(waiter);
        if (index >= 0) this.#waiting.splice(index, 1);
        fail(signal!.reason);
        this.#schedule();
      };
      const waiter: Waiter = { grant, fail, detach: () => signal?.removeEventListener("abort", onAbort) };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiting.push(waiter);
      this.#schedule();
    });
  }

  passed(ticket: PaceTicket): void {
    recordPassed(this.#state, ticket);
  }

  limited(ticket: PaceTicket, waitMs: number, retryAfterMs?: number): void {
    recordLimited(this.#state, ticket, this.#now(), waitMs, retryAfterMs);
    this.#schedule();
  }

  #schedule(): void {
    this.#timer?.abort();
    this.#timer = undefined;
    if (this.#waiting.length === 0) return;
    const delay = Math.max(0, Math.ceil(readyAt(this.#state) - this.#now()));
    const timer = new AbortController();
    this.#timer = timer;
    this.#sleep(delay, timer.signal).then(
      () => {
        if (this.#timer === timer) this.#release();
      },
      () => undefined,
    );
  }

  /** Lets waiting calls go while the pause is over and their slot has come: one per interval, or all when unpaced. */
  #release(): void {
    this.#timer = undefined;
    for (let now = this.#now(); this.#waiting.length > 0 && now >= readyAt(this.#state); now = this.#now()) {
      const waiter = this.#waiting.shift()!;
      waiter.detach();
      waiter.grant(grantSlot(this.#state, now));
    }
    this.#schedule();
  }
}

/**
 * The interval after a 429, from what got through: `sinceSent` holds, for each request of the
 * episode that was not refused, how long before the 429 it was sent, oldest first.
 *
 * Only a `Retry-After` of 1 s or more names a window to learn from. It counts whole seconds, so the
 * wait is rounded up, and the window is taken as whole seconds too (per-second, per-minute limits):
 * `Retry-After` plus the whole seconds a run of passed requests took before the 429. The densest
 * run — the last k requests over their window — gives the rate the server allowed; taking the
 * densest ignores quiet time before a burst. The pace is that rate slowed by `PACE_MARGIN`, and a
 * client already paced slows by at least `PACED_SLOWDOWN`. Without such a `Retry-After` (none, or
 * 0), or with fewer than `MIN_PASSED` through, there is nothing to learn and the pace stays as it was.
 */
export function nextInterval(currentMs: number, sinceSent: readonly number[], retryAfterMs: number | undefined): number {
  if (sinceSent.length < MIN_PASSED || retryAfterMs === undefined || retryAfterMs < 1000) return currentMs;
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i <= sinceSent.length - MIN_PASSED; i++) {
    const window = retryAfterMs + Math.floor(sinceSent[i]! / 1000) * 1000;
    best = Math.min(best, window / (sinceSent.length - i));
  }
  const learned = best * PACE_MARGIN;
  const interval = currentMs === 0 ? learned : Math.max(learned, currentMs * PACED_SLOWDOWN);
  return Math.min(MAX_INTERVAL_MS, interval);
}
