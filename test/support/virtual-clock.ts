/**
 * Time that passes only when nothing but time is awaited: the clock of the tests whose outcome depends
 * on how much time passes between requests (a rate limit's windows, the pace a client learns after a
 * 429, a shared pacer's pauses, a request's timeout, a simulator's `delay` fault).
 *
 * Why not real time, even scaled down: the scaled clock these tests used (real time × `factor`) turned
 * every millisecond a busy machine stole into `factor` milliseconds of the test's time. At 10× a loopback
 * request that a loaded CPU delayed by 100 ms took half of the simulator's 2 s window, so which requests
 * shared a window — and so which were refused — depended on the machine's load (issue 43).
 *
 * Here time stands still while any request to a watched server (`watch`: the simulator, a shared pacer)
 * is on its way or being answered, so a burst of requests arrives at one instant however slowly the
 * machine runs it. When every request has been answered (or is held by what waits for this clock
 * itself: a pacer's pause, a fault) and some code sleeps on this clock, the clock jumps to the earliest
 * wake-up and wakes that sleeper. Requests are counted through undici's diagnostics channels, which every
 * undici request of the process publishes to — the client's, a `RemotePacer`'s, a test's own.
 *
 * So the simulator's request log reads exactly what the client and the pacer asked for (a paced
 * request 700 ms after the one before it is logged 700 ms after it), and a test may assert it exactly.
 * A test that must act at a chosen moment (a cancel while a request is held) moves the time itself
 * (`advance: "by-test"`).
 */
import { subscribe } from "node:diagnostics_channel";
import { onTestFinished } from "vitest";
import type { Clock } from "../../provider/client";

/** A request of undici's, as its diagnostics channels give it. */
interface UndiciRequest {
  origin?: unknown;
}

/** Requests created and not yet answered (or failed), to origins some clock watches, by request. */
const open = new Map<UndiciRequest, string>();
/** How many live clocks watch each origin. */
const watchedOrigins = new Map<string, number>();
let subscribed = false;

function originOf(request: UndiciRequest): string | undefined {
  const origin = request.origin;
  if (typeof origin === "string") return new URL(origin).origin;
  if (origin instanceof URL) return origin.origin;
  return undefined;
}

function trackRequests(): void {
  if (subscribed) return;
  subscribed = true;
  subscribe("undici:request:create", (message) => {
    const { request } = message as { request: UndiciRequest };
    const origin = originOf(request);
    if (origin !== undefined && watchedOrigins.has(origin)) open.set(request, origin);
  });
  // The response's last byte has arrived (undici publishes it before the caller reads the body), or the request failed.
  const settled = (message: unknown) => open.delete((message as { request: UndiciRequest }).request);
  subscribe("undici:request:trailers", settled);
  subscribe("undici:request:error", settled);
}

interface Sleeper {
  at: number;
  order: number;
  wake: () => void;
}

/**
 * Consecutive turns of the event loop (each after Node has polled for I/O) in which nothing but time
 * was awaited, before time moves: what a response set off — reading its body, the next request, a
 * report to the pacer — starts within the turn that delivered it; two more turns leave room for code
 * that defers its next step once (a `setImmediate`). Counted in turns, never in milliseconds, so a slow
 * machine waits as many turns as a fast one.
 */
const QUIET_TURNS = 3;

/** How a `VirtualClock`'s time moves: by itself whenever only time is awaited, or only when the test says (`advance`). */
export type Advance = "when-idle" | "by-test";

export class VirtualClock implements Clock {
  /** Every wait requested through `sleep`, in ms of this clock, in order (requests' timeouts are not waits). */
  readonly sleeps: number[] = [];
  // A whole number, so that a wait of whole milliseconds ends on a whole millisecond (the request log keeps milliseconds).
  #now = Math.round(performance.now());
  readonly #epochAtStart = Date.now() - this.#now;
  readonly #advance: Advance;
  readonly #sleepers: Sleeper[] = [];
  #order = 0;
  /** Watched origins, each with the number of its requests that are waiting for this clock (held by a pacer or a fault). */
  readonly #watched = new Map<string, () => number>();
  #pump: NodeJS.Immediate | NodeJS.Timeout | undefined;
  #quietTurns = 0;
  /** Whether the last look found a request out. */
  #waitingForRequests = false;

  constructor(options: { advance?: Advance } = {}) {
    this.#advance = options.advance ?? "when-idle";
  }

  now(): number {
    return this.#now;
  }

  date(): number {
    return this.#epochAtStart + this.#now;
  }

  /**
   * Time stands still while a request to `url`'s origin is unanswered, except the `held()` ones (a
   * shared pacer's attempts held until their time, a request a fault holds: they wait for this clock, so
   * they must not stop it). Until the test ends.
   */
  watch(url: string, held?: () => number): void {
    trackRequests();
    if (this.#watched.size === 0) {
      try {
        onTestFinished(() => this.close());
      } catch {
        // Outside a test (a file's `beforeAll`): watched for as long as the worker runs.
      }
    }
    const origin = new URL(url).origin;
    if (!this.#watched.has(origin)) watchedOrigins.set(origin, (watchedOrigins.get(origin) ?? 0) + 1);
    if (held !== undefined || !this.#watched.has(origin)) this.#watched.set(origin, held ?? (() => 0));
  }

  /** Stops watching (the test is over): its origins' requests are no longer counted. */
  close(): void {
    for (const origin of this.#watched.keys()) {
      const left = watchedOrigins.get(origin)! - 1;
      if (left === 0) {
        watchedOrigins.delete(origin);
        for (const [request, of] of open) if (of === origin) open.delete(request);
      } else watchedOrigins.set(origin, left);
    }
    this.#watched.clear();
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    return this.#wait(ms, signal);
  }

  timeout(ms: number, cancel: AbortSignal): AbortSignal {
    const timedOut = new AbortController();
    this.#wait(ms, cancel).then(
      () => timedOut.abort(new DOMException(`no response within ${ms} ms`, "TimeoutError")),
      () => undefined,
    );
    return timedOut.signal;
  }

  /** With `advance: "by-test"`: moves time `ms` on, waking every sleep that is then due, in order. */
  advance(ms: number): void {
    if (this.#advance !== "by-test") throw new Error('advance() is for a clock made with { advance: "by-test" }');
    this.#now += ms;
    this.#wakeDue();
  }

  #wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const sleeper: Sleeper = {
        at: this.#now + Math.max(0, ms),
        order: this.#order++,
        wake: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      // An aborted sleep is forgotten at once: time must never move to a wake-up nobody waits for.
      const onAbort = () => {
        this.#sleepers.splice(this.#sleepers.indexOf(sleeper), 1);
        reject(signal!.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#sleepers.push(sleeper);
      this.#sleepers.sort((a, b) => a.at - b.at || a.order - b.order);
      this.#schedule();
    });
  }

  /** Unanswered requests to the watched servers, less those held for this clock. */
  #busy(): boolean {
    for (const [origin, held] of this.#watched) {
      let unanswered = 0;
      for (const of of open.values()) if (of === origin) unanswered += 1;
      if (unanswered !== held()) return true;
    }
    return false;
  }

  #schedule(): void {
    if (this.#pump !== undefined || this.#sleepers.length === 0) return;
    // A test that moves the time itself needs a turn only for sleeps already due (of 0 ms).
    if (this.#advance === "by-test" && this.#sleepers[0]!.at > this.#now) return;
    // An immediate runs after the loop's next poll for I/O; while requests are out, the clock looks
    // again a millisecond later rather than spin.
    this.#pump = this.#waitingForRequests ? setTimeout(() => this.#turn(), 1) : setImmediate(() => this.#turn());
  }

  #turn(): void {
    this.#pump = undefined;
    const first = this.#sleepers[0];
    if (first === undefined) return;
    // Sleeps that are due (of 0 ms, or woken with the ones before them) need no time to pass.
    if (first.at > this.#now && this.#advance === "when-idle") {
      this.#waitingForRequests = this.#busy();
      if (this.#waitingForRequests) {
        this.#quietTurns = 0;
      } else if (++this.#quietTurns >= QUIET_TURNS) {
        this.#quietTurns = 0;
        this.#now = first.at;
      }
    }
    this.#wakeDue();
  }

  #wakeDue(): void {
    while (this.#sleepers.length > 0 && this.#sleepers[0]!.at <= this.#now) this.#sleepers.shift()!.wake();
    this.#schedule();
  }
}
