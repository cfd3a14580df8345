import { RRule } from "rrule";
import { parseRecurrence } from "../provider/client/rrule";

/** Occurrences examined before giving up on finding one after now (e.g. SECONDLY from years ago). */
const MAX_OCCURRENCES_SCANNED = 1_000_000;

export type NextRun = { ok: true; nextRunAt: string } | { ok: false; field: "rrule"; problem: string };

/**
 * A one-off task runs at `scheduledAt`. A recurring task's series starts at `scheduledAt`
 * (DTSTART) and its next run is the first occurrence at or after now.
 */
export function computeNextRun(scheduledAt: string, rrule: string | undefined, now: Date = new Date()): NextRun {
  const start = new Date(scheduledAt);
  if (rrule === undefined) return { ok: true, nextRunAt: start.toISOString() };
  const parsed = parseRecurrence(rrule);
  if (!parsed.ok) return { ok: false, field: "rrule", problem: parsed.problem };
  const rule = new RRule({ ...parsed.options, dtstart: start });
  let next: Date | undefined;
  let scanned = 0;
  rule.all((date) => {
    scanned += 1;
    if (date.getTime() >= now.getTime()) {
      next = date;
      return false;
    }
    return scanned < MAX_OCCURRENCES_SCANNED;
  });
  if (next) return { ok: true, nextRunAt: next.toISOString() };
  if (scanned >= MAX_OCCURRENCES_SCANNED) {
    return { ok: false, field: "rrule", problem: `has more than ${MAX_OCCURRENCES_SCANNED} occurrences between scheduledAt and now; use a later scheduledAt` };
  }
  return { ok: false, field: "rrule", problem: "has no occurrence at or after the current time (COUNT or UNTIL ends the series in the past)" };
}
