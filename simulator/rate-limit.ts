/** A per-token rate limit, off by default, so clients can be tried against real 429s. */
import { z } from "zod";
import { SYSTEM_CLOCK, type SimulatorClock } from "./clock";

export const RateLimitSpec = z.strictObject({
  /** Requests allowed per token per window. */
  limit: z.number().int().min(1).max(1_000_000),
  windowMs: z.number().int().min(1).max(3_600_000),
});
export type RateLimitSpec = z.infer<typeof RateLimitSpec>;

/** Fixed-window limit per token. */
export class RateLimiter {
  readonly #clock: SimulatorClock;
  #spec: RateLimitSpec | undefined;
  #windows = new Map<string, { start: number; count: number }>();

  constructor(clock: SimulatorClock = SYSTEM_CLOCK) {
    this.#clock = clock;
  }

  set(spec: RateLimitSpec | undefined): void {
    this.#spec = spec === undefined ? undefined : RateLimitSpec.parse(spec);
    this.#windows.clear();
  }

  get(): RateLimitSpec | undefined {
    return this.#spec;
  }

  /** Counts one request; returns the seconds to wait when it is over the limit. */
  hit(token: string): number | undefined {
    if (!this.#spec) return undefined;
    const now = this.#clock.date();
    let window = this.#windows.get(token);
    if (!window || now - window.start >= this.#spec.windowMs) {
      window = { start: now, count: 0 };
      this.#windows.set(token, window);
    }
    window.count += 1;
    if (window.count <= this.#spec.limit) return undefined;
    return Math.max(1, Math.ceil((window.start + this.#spec.windowMs - now) / 1000));
  }
}
