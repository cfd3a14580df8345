/**
 * The 429 pause and the pace after it, shared by every call of one client (under Pulumi: every
 * resource of one provider process).
 *
 * Before any 429, calls go out as they come. A 429 holds every call until the wait it names, and
 * ends an "episode": the requests that got through in it, over the window the server implies, are
 * what the server allows, so their rate is the rate to keep (`nextInterval`). The waiting calls then
 * go out one per interval at that rate, slowed by `PACE_MARGIN`, instead of all at once when the
 * pause ends (which made a steady limit refuse half of them again). A 429 while paced ends the
 * next episode and only ever slows the pace. After `FORGET_AFTER_MS` without a 429 the pace is
 * dropped, so a client that outlives a busy spell is not held back for good.
 */
import { SYSTEM_CLOCK, type Clock } from "../config";

/** Paced calls go this much slower than the rate that got through: room for timer and network jitter. */
export const PACE_MARGIN = 1.05;
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

interface Waiter {
  grant: (ticket: PaceTicket) => void;
  fail: (reason: unknown) => void;
  detach: () => void;
}

export class RateLimitPacer implements Pacer {
  readonly #now: () => number;
  #episode = 0;
  /** Send times of the requests of this episode that got through (not 429). */
  #passed: number[] = [];
  #pausedUntil = 0;
  #intervalMs = 0;
  #nextSlot = 0;
  #lastLimitedAt = Number.NEGATIVE_INFINITY;
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
    return this.#intervalMs;
  }

  /** Resolves when this call may send, in arrival order; rejects with the signal's reason when it is aborted first. */
  acquire(signal?: AbortSignal): Promise<PaceTicket> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const now = this.#now();
    if (now - this.#lastLimitedAt > FORGET_AFTER_MS) this.#intervalMs = 0;
    if (this.#waiting.length === 0 && now >= this.#readyAt()) return Promise.resolve(this.#grant(now));
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

  /** The call's response was not a 429: it counts towards the rate of its episode. */
  passed(ticket: PaceTicket): void {
    if (ticket.episode !== this.#episode) return;
    this.#passed.push(ticket.sentAt);
    if (this.#passed.length > KEPT_SENDS) this.#passed.shift();
  }

  /**
   * The call got a 429 and will wait `waitMs` (`retryAfterMs` is what the server asked, if it
   * did): every call holds off until then. The first 429 of an episode sets the pace; later ones
   * (requests sent before it) only extend the pause.
   */
  limited(ticket: PaceTicket, waitMs: number, retryAfterMs?: number): void {
    const now = this.#now();
    this.#lastLimitedAt = now;
    this.#pausedUntil = Math.max(this.#pausedUntil, now + waitMs);
    if (ticket.episode === this.#episode) {
      this.#intervalMs = nextInterval(
        this.#intervalMs,
        this.#passed.map((sentAt) => now - sentAt),
        retryAfterMs,
      );
      this.#episode += 1;
      this.#passed = [];
    }
    this.#schedule();
  }

  #readyAt(): number {
    return Math.max(this.#pausedUntil, this.#nextSlot);
  }

  #grant(now: number): PaceTicket {
    this.#nextSlot = now + this.#intervalMs;
    return { episode: this.#episode, sentAt: now };
  }

  #schedule(): void {
    this.#timer?.abort();
    this.#timer = undefined;
    if (this.#waiting.length === 0) return;
    const delay = Math.max(0, Math.ceil(this.#readyAt() - this.#now()));
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
    for (let now = this.#now(); this.#waiting.length > 0 && now >= this.#readyAt(); now = this.#now()) {
      const waiter = this.#waiting.shift()!;
      waiter.detach();
      waiter.grant(this.#grant(now));
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
