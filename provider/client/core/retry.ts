/** When and how long to wait before trying a request again. */

export interface RetryPolicy {
  /** Retries after the first attempt (so `maxRetries + 1` attempts in all). */
  maxRetries: number;
  /** First backoff delay; doubles per retry, with jitter. */
  initialDelayMs: number;
  /** Upper bound of one backoff delay. */
  maxDelayMs: number;
  /** Longest `Retry-After` the client will wait; a longer one fails the call at once. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 3,
  initialDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
};

/**
 * Reads `Retry-After` as delta-seconds or an HTTP date. Returns milliseconds, or undefined when the
 * header is absent or unreadable (the caller then falls back to backoff).
 */
export function parseRetryAfter(header: string | undefined, now: number = Date.now()): number | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  if (!/[a-z]/i.test(value)) return undefined;
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** Exponential backoff with "equal jitter": half fixed, half random, so retries spread out. */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** retry);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/**
 * One back-off shared by every call of a client: when the server says "too many requests", all
 * calls wait until the time it named instead of each spending a request to learn the same thing.
 */
export class SharedBackoff {
  #until = 0;

  pauseFor(ms: number): void {
    this.#until = Math.max(this.#until, Date.now() + ms);
  }

  /** Milliseconds left to wait (0 when not paused). */
  remaining(): number {
    return Math.max(0, this.#until - Date.now());
  }

  async wait(): Promise<void> {
    // Loop because another call may extend the pause while this one sleeps.
    for (let ms = this.remaining(); ms > 0; ms = this.remaining()) await sleep(ms);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export type HttpMethod = "GET" | "POST" | "PATCH";

/** Methods whose repetition has the same effect as one call: lists, and PATCH with the same body. */
export function isIdempotent(method: HttpMethod): boolean {
  return method !== "POST";
}

/** Statuses after which the server may have processed the request (unsafe to repeat a POST). */
export function isAmbiguousStatus(status: number): boolean {
  return status === 500 || status === 502 || status === 504;
}

/** undici/Node error codes raised before any byte of the request reached the server. */
const NOT_SENT_CODES = new Set([
  "ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_CONNECT_TIMEOUT",
]);

/** Whether a transport error proves the request was never delivered. */
export function wasNeverSent(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && NOT_SENT_CODES.has(code)) return true;
  }
  return false;
}

export function describeTransportError(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    parts.push(typeof code === "string" ? `${e.message} (${code})` : e.message);
  }
  return parts.length > 0 ? parts.join(": ") : String(err);
}
