import { nextOccurrence } from "../provider/client/rrule";

export type NextRun = { ok: true; nextRunAt: string } | { ok: false; field: "rrule"; problem: string };

/**
 * A one-off task runs at `scheduledAt`. A recurring task's series starts at `scheduledAt`
 * (DTSTART) and its next run is the first occurrence at or after now, found with a bounded search
 * (see `nextOccurrence`), so no rule can hold up the simulator.
 */
export function computeNextRun(scheduledAt: string, rrule: string | undefined, now: Date = new Date()): NextRun {
  const start = new Date(scheduledAt);
  if (rrule === undefined) return { ok: true, nextRunAt: start.toISOString() };
  const next = nextOccurrence(rrule, start, now);
  return next.ok ? { ok: true, nextRunAt: next.date.toISOString() } : { ok: false, field: "rrule", problem: next.problem };
}
