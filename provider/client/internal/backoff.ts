/** How long to wait before trying again: the server's `Retry-After`, or our own jittered backoff. */
import type { RetryPolicy } from "../config";

/**
 * Reads `Retry-After` as delta-seconds or an HTTP date. Returns milliseconds, or undefined when the
 * header is absent or unreadable (the caller then falls back to backoff).
 */
export function parseRetryAfter(value: string | undefined, now: () => number = Date.now): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  if (!/[a-z]/i.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now());
}

/** Exponential backoff with "equal jitter": half fixed, half random, so retries spread out. */
export function backoffDelay(retry: number, policy: RetryPolicy): number {
  const ceiling = Math.min(policy.maxRetryDelayMs, policy.initialRetryDelayMs * 2 ** retry);
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}
