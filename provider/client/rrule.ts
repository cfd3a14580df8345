import { RRule, type Options as RRuleOptions } from "rrule";

/** Integer-valued RRULE parts; the rrule parser keeps malformed values as strings instead of failing. */
const INTEGER_PARTS = [
  "count", "interval", "bysetpos", "bymonth", "bymonthday", "byyearday",
  "byweekno", "byhour", "byminute", "bysecond",
] as const;

export type RecurrenceParse =
  | { ok: true; options: Partial<RRuleOptions> }
  | { ok: false; problem: string };

/**
 * Parses an RFC 5545 RRULE value such as `FREQ=WEEKLY;BYDAY=MO` (an `RRULE:` prefix is allowed).
 * The start of the series is the task's `scheduledAt`, so a DTSTART inside the rule is refused
 * rather than silently overriding it.
 */
export function parseRecurrence(rule: string): RecurrenceParse {
  const text = rule.trim().replace(/^RRULE:/i, "");
  if (text === "") return { ok: false, problem: "must not be empty" };
  if (/[\r\n]/.test(text) || /(^|;)DTSTART/i.test(text)) {
    return { ok: false, problem: "must be a single RRULE without DTSTART (scheduledAt sets the start)" };
  }
  let options: Partial<RRuleOptions>;
  try {
    options = RRule.parseString(text);
  } catch (err) {
    return { ok: false, problem: `is not a valid RRULE: ${(err as Error).message}` };
  }
  if (options.freq === undefined) {
    return { ok: false, problem: "must contain a valid FREQ (SECONDLY, MINUTELY, HOURLY, DAILY, WEEKLY, MONTHLY or YEARLY)" };
  }
  for (const part of INTEGER_PARTS) {
    const value = options[part] as unknown;
    if (value === undefined || value === null) continue;
    const values = Array.isArray(value) ? value : [value];
    if (!values.every((v) => Number.isInteger(v))) {
      return { ok: false, problem: `is not a valid RRULE: ${part.toUpperCase()} must be an integer` };
    }
  }
  if (options.until && Number.isNaN(options.until.getTime())) {
    return { ok: false, problem: "is not a valid RRULE: UNTIL is not a valid date" };
  }
  return { ok: true, options };
}
