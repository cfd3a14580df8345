/**
 * Expected dates for tests, computed from a recorded "now" instead of written down, so that no test
 * depends on the day it runs (CI also runs the fast tier with the clock 400 days ahead).
 */

const DAY_MS = 86_400_000;

/**
 * The first instant at or after `from` that falls on `weekday` (0 = Sunday … 6 = Saturday, UTC) at
 * `hour`:`minute`:00.000 UTC: the next run of `FREQ=WEEKLY;BYDAY=<weekday>` whose series starts at
 * that time of day. Plain arithmetic on purpose, independent of the `rrule` package the code under
 * test uses.
 */
export function nextWeeklyAt(from: Date, weekday: number, hour: number, minute = 0): Date {
  const day = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate(), hour, minute));
  let candidate = day.getTime() + ((weekday - day.getUTCDay() + 7) % 7) * DAY_MS;
  if (candidate < from.getTime()) candidate += 7 * DAY_MS;
  return new Date(candidate);
}

/** `hour`:00 UTC, `days` days from now, as the API takes a time (`2026-12-01T09:00:00Z`): a future date that stays future whenever the test runs. */
export function daysAhead(days: number, hour = 9): string {
  const at = new Date(Date.now() + days * DAY_MS);
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate(), hour)).toISOString().replace(".000Z", "Z");
}
