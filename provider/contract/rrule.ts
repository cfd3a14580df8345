/**
 * RFC 5545 RRULE values, shared by the client (refuses before sending) and the simulator (400).
 *
 * The `rrule` package computes occurrences, but it trusts its input: INTERVAL=-1 walks backwards
 * forever, FREQ=HOURLY;INTERVAL=2;BYHOUR=3 from an even hour loops forever inside one step, and a
 * rule with no possible day scans every period up to the year 9999. So every part is checked
 * against the RFC's ranges and rules first, unreachable sub-daily rules are refused by arithmetic,
 * and the search itself is bounded (see `nextOccurrence`).
 */
import { RRule, type Options as RRuleOptions } from "rrule";

const FREQS = ["YEARLY", "MONTHLY", "WEEKLY", "DAILY", "HOURLY", "MINUTELY", "SECONDLY"] as const;
type Freq = (typeof FREQS)[number];
const WEEKDAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"] as const;
const PARTS = [
  "FREQ",
  "UNTIL",
  "COUNT",
  "INTERVAL",
  "BYSECOND",
  "BYMINUTE",
  "BYHOUR",
  "BYDAY",
  "BYMONTHDAY",
  "BYYEARDAY",
  "BYWEEKNO",
  "BYMONTH",
  "BYSETPOS",
  "WKST",
] as const;
type Part = (typeof PARTS)[number];

/** Occurrences examined between the start of the series and now before giving up (a few ms of work). */
export const MAX_OCCURRENCES_SCANNED = 5_000;
const DAY_MS = 86_400_000;
/** The Gregorian calendar repeats exactly every 400 years (146,097 days, a whole number of weeks). */
const CYCLE_MS = 146_097 * DAY_MS;
const FIXED_PERIOD_MS: Partial<Record<Freq, number>> = {
  WEEKLY: 7 * DAY_MS,
  DAILY: DAY_MS,
  HOURLY: 3_600_000,
  MINUTELY: 60_000,
  SECONDLY: 1_000,
};

interface ParsedRule {
  parts: Partial<Record<Part, string>>;
  freq: Freq;
  interval: number;
  ints: Partial<Record<Part, number[]>>;
}

type Parse = { ok: true; rule: ParsedRule } | { ok: false; problem: string };

/** Static checks only (no start time needed). Returns the problem, or undefined when valid. */
export function validateRecurrence(value: string): string | undefined {
  const parsed = parse(value);
  return parsed.ok ? undefined : parsed.problem;
}

/** Static checks plus those that need the series' start: reachability and a first occurrence. */
export function checkRecurrence(value: string, scheduledAt: string): string | undefined {
  const start = new Date(scheduledAt);
  const result = nextOccurrence(value, start, start);
  return result.ok ? undefined : result.problem;
}

export type NextRun = { ok: true; nextRunAt: string } | { ok: false; field: "rrule" | "scheduledAt"; problem: string };

/**
 * When a task created `now` runs next: a one-off task at `scheduledAt`; a recurring one at the
 * first occurrence at or after now of the series that starts at `scheduledAt` (DTSTART). The
 * simulator answers `tasks.create` with it, and the Task resource's preview check uses the same
 * function, so preview refuses exactly what the service would.
 */
export function nextRun(scheduledAt: string, rrule: string | undefined, now: Date = new Date()): NextRun {
  const start = new Date(scheduledAt);
  if (start.getUTCFullYear() > 9999) {
    return { ok: false, field: "scheduledAt", problem: "is after the year 9999 in UTC (RFC 3339 dates end at 9999)" };
  }
  if (rrule === undefined) return { ok: true, nextRunAt: start.toISOString() };
  const next = nextOccurrence(rrule, start, now);
  return next.ok ? { ok: true, nextRunAt: next.date.toISOString() } : { ok: false, field: "rrule", problem: next.problem };
}

export type Occurrence = { ok: true; date: Date } | { ok: false; problem: string };

/**
 * The first occurrence at or after `from` of the series that starts at `start`, computed with the
 * `rrule` package's own iteration under two hard bounds on work: at most
 * `MAX_OCCURRENCES_SCANNED` occurrences, and at most about 500 years of periods (the series is
 * moved by whole 400-year calendar cycles, which keep every weekday and leap day, so that
 * rrule's own year-9999 limit ends the scan).
 */
export function nextOccurrence(value: string, start: Date, from: Date): Occurrence {
  const parsed = parse(value);
  if (!parsed.ok) return parsed;
  const rule = parsed.rule;
  const unreachable = unreachableTime(rule, start);
  if (unreachable) return { ok: false, problem: unreachable };

  const searchFrom = Math.max(from.getTime(), start.getTime());
  let dtstart = start.getTime();
  // A fixed-length period without COUNT repeats exactly every INTERVAL periods, so the series can
  // restart at its last occurrence slot before `searchFrom` instead of walking from `start`.
  const period = FIXED_PERIOD_MS[rule.freq];
  if (period !== undefined && rule.parts.COUNT === undefined && searchFrom > dtstart) {
    const step = period * rule.interval;
    dtstart += Math.floor((searchFrom - dtstart) / step) * step;
  }
  const year = new Date(searchFrom).getUTCFullYear();
  const shift = Math.floor((9899 - year) / 400) * CYCLE_MS;
  if (dtstart < searchFrom - 100 * 365.25 * DAY_MS) {
    // MONTHLY/YEARLY periods vary in length and COUNT counts from the start, so these walk from scheduledAt.
    return { ok: false, problem: "starts more than 100 years before now; use a later scheduledAt" };
  }
  const options: Partial<RRuleOptions> = { ...RRule.parseString(serialize(rule)), dtstart: new Date(dtstart + shift) };
  if (options.until) options.until = new Date(options.until.getTime() + shift);

  let found: Date | undefined;
  let scanned = 0;
  new RRule(options).all((date) => {
    scanned += 1;
    if (date.getTime() >= searchFrom + shift) {
      found = date;
      return false;
    }
    return scanned < MAX_OCCURRENCES_SCANNED;
  });
  if (found) {
    const date = new Date(found.getTime() - shift);
    // RFC 3339 has four-digit years: a later run could not be written as `nextRunAt`.
    if (date.getUTCFullYear() > 9999) return { ok: false, problem: "has no occurrence before the year 10000 (RFC 3339 dates end at 9999)" };
    return { ok: true, date };
  }
  if (scanned >= MAX_OCCURRENCES_SCANNED) {
    return {
      ok: false,
      problem: `has more than ${MAX_OCCURRENCES_SCANNED} occurrences between scheduledAt and now; use a later scheduledAt`,
    };
  }
  return from.getTime() > start.getTime()
    ? {
        ok: false,
        problem: "has no occurrence at or after the current time (COUNT or UNTIL ends the series in the past, or no date matches)",
      }
    : { ok: false, problem: "has no occurrence: no date matches all of its BY parts (in the 100 years after scheduledAt)" };
}

function serialize(rule: ParsedRule): string {
  return PARTS.filter((p) => rule.parts[p] !== undefined)
    .map((p) => `${p}=${rule.parts[p]}`)
    .join(";");
}

function parse(value: string): Parse {
  const textValue = value.trim().replace(/^RRULE:/i, "");
  if (textValue === "") return fail("must not be empty");
  if (/[\r\n]/.test(textValue)) return fail("must be a single line without DTSTART (scheduledAt sets the start)");
  const parts: Partial<Record<Part, string>> = {};
  for (const [index, piece] of textValue.split(";").entries()) {
    const eq = piece.indexOf("=");
    if (eq <= 0) return fail(`part ${index + 1} is not a NAME=VALUE part`);
    const name = piece.slice(0, eq).toUpperCase();
    const partValue = piece.slice(eq + 1).toUpperCase();
    if (name === "DTSTART") return fail("DTSTART is not allowed (scheduledAt sets the start)");
    if (!(PARTS as readonly string[]).includes(name)) return fail(`part ${index + 1} is not an RRULE part (parts: ${PARTS.join(", ")})`);
    if (parts[name as Part] !== undefined) return fail(`${name} appears twice`);
    if (partValue === "") return fail(`${name} must have a value`);
    parts[name as Part] = partValue;
  }
  const freq = parts.FREQ as Freq | undefined;
  if (freq === undefined) return fail("FREQ is required (SECONDLY, MINUTELY, HOURLY, DAILY, WEEKLY, MONTHLY or YEARLY)");
  if (!FREQS.includes(freq)) return fail(`FREQ must be one of ${FREQS.join(", ")}`);

  const ints: Partial<Record<Part, number[]>> = {};
  const ranges: [Part, number, number, boolean][] = [
    // part, min, max, whether negative values (counting from the end) are allowed
    ["COUNT", 1, 2 ** 31 - 1, false],
    ["INTERVAL", 1, 2 ** 31 - 1, false],
    ["BYSECOND", 0, 60, false],
    ["BYMINUTE", 0, 59, false],
    ["BYHOUR", 0, 23, false],
    ["BYMONTHDAY", 1, 31, true],
    ["BYYEARDAY", 1, 366, true],
    ["BYWEEKNO", 1, 53, true],
    ["BYMONTH", 1, 12, false],
    ["BYSETPOS", 1, 366, true],
  ];
  for (const [part, min, max, signed] of ranges) {
    const raw = parts[part];
    if (raw === undefined) continue;
    const list = part === "COUNT" || part === "INTERVAL" ? [raw] : raw.split(",");
    const numbers: number[] = [];
    for (const item of list) {
      if (!/^[+-]?\d{1,10}$/.test(item))
        return fail(`${part} must be ${list.length > 1 || part.startsWith("BY") ? "a list of integers" : "an integer"}`);
      const n = Number(item);
      const magnitude = Math.abs(n);
      if (magnitude < min || magnitude > max || (n < 0 && !signed)) {
        const range = signed ? `${min} to ${max} or -${max} to -${min}` : `${min} to ${max}`;
        return fail(`${part} must be ${range}`);
      }
      numbers.push(n);
    }
    ints[part] = numbers;
  }
  if (ints.BYSECOND?.includes(60)) return fail("BYSECOND=60 (a leap second) is not supported; use 0 to 59");
  if (parts.COUNT !== undefined && parts.UNTIL !== undefined) return fail("must not have both COUNT and UNTIL (RFC 5545)");
  if (parts.UNTIL !== undefined && !validUntil(parts.UNTIL)) {
    return fail("UNTIL must be a date (YYYYMMDD) or a UTC date-time (YYYYMMDDTHHMMSSZ)");
  }
  if (parts.WKST !== undefined && !(WEEKDAYS as readonly string[]).includes(parts.WKST)) {
    return fail(`WKST must be one of ${WEEKDAYS.join(", ")}`);
  }
  if (parts.BYDAY !== undefined) {
    for (const item of parts.BYDAY.split(",")) {
      const m = /^([+-]?)(\d{1,2})?(MO|TU|WE|TH|FR|SA|SU)$/.exec(item);
      if (!m) return fail("BYDAY must be a list of weekdays such as MO, or 1MO, -1FR");
      if (m[2] === undefined) continue;
      const n = Number(m[2]);
      if (freq !== "MONTHLY" && freq !== "YEARLY") return fail("BYDAY: a numbered weekday needs FREQ=MONTHLY or YEARLY");
      if (freq === "YEARLY" && parts.BYWEEKNO !== undefined) return fail("BYDAY: a numbered weekday cannot be used with BYWEEKNO");
      const most = freq === "MONTHLY" || parts.BYMONTH !== undefined ? 5 : 53;
      if (n < 1 || n > most)
        return fail(`BYDAY: the number of a weekday must be 1 to ${most}${most === 5 ? " (a month has at most 5 of a weekday)" : ""}`);
    }
  }
  if (parts.BYMONTHDAY !== undefined && freq === "WEEKLY") return fail("BYMONTHDAY cannot be used with FREQ=WEEKLY (RFC 5545)");
  if (parts.BYYEARDAY !== undefined && ["DAILY", "WEEKLY", "MONTHLY"].includes(freq)) {
    return fail(`BYYEARDAY cannot be used with FREQ=${freq} (RFC 5545)`);
  }
  if (parts.BYWEEKNO !== undefined && freq !== "YEARLY") return fail("BYWEEKNO needs FREQ=YEARLY (RFC 5545)");
  if (parts.BYSETPOS !== undefined && !PARTS.some((p) => p.startsWith("BY") && p !== "BYSETPOS" && parts[p] !== undefined)) {
    return fail("BYSETPOS needs another BY part to select from (RFC 5545)");
  }
  const subDaily = freq === "HOURLY" || freq === "MINUTELY" || freq === "SECONDLY";
  const dateParts = (["BYMONTH", "BYMONTHDAY", "BYYEARDAY", "BYWEEKNO", "BYDAY"] as const).filter((p) => parts[p] !== undefined);
  const timeParts = (["BYHOUR", "BYMINUTE", "BYSECOND"] as const).filter((p) => parts[p] !== undefined);
  if (subDaily && dateParts.length > 0 && timeParts.length > 0) {
    // The rrule package skips excluded days with a jump that then spins through BYHOUR/BYMINUTE/
    // BYSECOND and can loop for good; the same schedule is expressible with a daily or coarser FREQ.
    return fail(
      `FREQ=${freq} with both ${dateParts.join("/")} and ${timeParts.join("/")} is not supported; ` +
        "use FREQ=DAILY (or coarser) with BYHOUR/BYMINUTE/BYSECOND for times on chosen days",
    );
  }
  const interval = ints.INTERVAL?.[0] ?? 1;
  const coarser = freq === "SECONDLY" ? (["BYMINUTE", "BYHOUR"] as const) : freq === "MINUTELY" ? (["BYHOUR"] as const) : [];
  const carried = coarser.filter((p) => parts[p] !== undefined);
  if (carried.length > 0 && interval >= 60) {
    // Past 60 the rrule package carries into the next unit in uneven steps that can skip every allowed value forever.
    return fail(`FREQ=${freq} with ${carried.join("/")} needs INTERVAL below 60`);
  }
  if (ints.BYSETPOS) {
    const count = (p: Part) => new Set<unknown>(ints[p] ?? parts[p]?.split(",") ?? [0]).size;
    const times =
      {
        DAILY: count("BYHOUR") * count("BYMINUTE") * count("BYSECOND"),
        HOURLY: count("BYMINUTE") * count("BYSECOND"),
        MINUTELY: count("BYSECOND"),
        SECONDLY: 1,
      }[freq as "DAILY"] ?? count("BYHOUR") * count("BYMINUTE") * count("BYSECOND");
    // Without a day-level BY part each period holds one day: the start's weekday, day of month or date.
    const dayParts = (p: readonly Part[]) => p.some((x) => parts[x] !== undefined);
    const days =
      freq === "WEEKLY"
        ? parts.BYDAY
          ? 7
          : 1
        : freq === "MONTHLY"
          ? dayParts(["BYDAY", "BYMONTHDAY"])
            ? 31
            : 1
          : freq === "YEARLY"
            ? dayParts(["BYMONTH", "BYDAY", "BYMONTHDAY", "BYYEARDAY", "BYWEEKNO"])
              ? 366
              : 1
            : 1;
    const most = days * times;
    if (ints.BYSETPOS.every((n) => Math.abs(n) > most)) {
      return fail(`BYSETPOS selects nothing: each FREQ=${freq} period has at most ${most} candidate${most === 1 ? "" : "s"}`);
    }
  }
  const rule: ParsedRule = { parts, freq, interval, ints };
  const impossible = impossibleDate(rule);
  if (impossible) return fail(impossible);
  return { ok: true, rule };
}

function fail(problem: string): { ok: false; problem: string } {
  return { ok: false, problem: `is not a valid RRULE: ${problem}` };
}

function validUntil(value: string): boolean {
  const m = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})Z)?$/.exec(value);
  if (!m) return false;
  const [y, mo, d, h = 0, mi = 0, s = 0] = m.slice(1).map((x) => (x === undefined ? undefined : Number(x))) as number[];
  const date = new Date(Date.UTC(y!, mo! - 1, d!, h, mi, s));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo! - 1 && date.getUTCDate() === d && h! < 24 && mi! < 60 && s! < 60;
}

/**
 * BYMONTH, BYMONTHDAY and BYYEARDAY that no day of a leap or common year satisfies together.
 * (Weekdays add no such dead end: over the 400-year cycle every date falls on every weekday.)
 */
function impossibleDate(rule: ParsedRule): string | undefined {
  const { BYMONTH: months, BYMONTHDAY: monthDays, BYYEARDAY: yearDays } = rule.ints;
  if (!monthDays && !yearDays) return undefined;
  for (const length of [365, 366]) {
    for (let ordinal = 1; ordinal <= length; ordinal++) {
      const date = new Date(Date.UTC(length === 366 ? 2000 : 2001, 0, ordinal));
      const month = date.getUTCMonth() + 1;
      const day = date.getUTCDate();
      const daysInMonth = new Date(Date.UTC(date.getUTCFullYear(), month, 0)).getUTCDate();
      if (months && !months.includes(month)) continue;
      if (monthDays && !monthDays.some((d) => d === day || d === day - daysInMonth - 1)) continue;
      if (yearDays && !yearDays.some((d) => d === ordinal || d === ordinal - length - 1)) continue;
      return undefined;
    }
  }
  const named = (["BYMONTH", "BYMONTHDAY", "BYYEARDAY"] as const).filter((p) => rule.parts[p] !== undefined).join(" and ");
  return `no date matches its ${named} together, so it has no occurrence`;
}

/**
 * Sub-daily rules step through the clock by INTERVAL from the start's time of day, so only times
 * congruent to it modulo gcd(INTERVAL, units per day) are ever reached. The rrule package loops
 * forever looking for an unreachable BYHOUR/BYMINUTE/BYSECOND, so refuse those rules up front.
 */
function unreachableTime(rule: ParsedRule, start: Date): string | undefined {
  const unit = { HOURLY: 3600, MINUTELY: 60, SECONDLY: 1 }[rule.freq as "HOURLY"];
  if (unit === undefined) return undefined;
  const hours = rule.ints.BYHOUR ?? range(24);
  const minutes = rule.freq === "HOURLY" ? [0] : (rule.ints.BYMINUTE ?? range(60));
  const seconds = rule.freq === "SECONDLY" ? (rule.ints.BYSECOND ?? range(60)) : [0];
  if (!rule.ints.BYHOUR && !(rule.freq !== "HOURLY" && rule.ints.BYMINUTE) && !(rule.freq === "SECONDLY" && rule.ints.BYSECOND))
    return undefined;
  const unitsPerDay = 86_400 / unit;
  const g = gcd(rule.interval, unitsPerDay);
  const startSecond =
    start.getUTCHours() * 3600 +
    (rule.freq === "HOURLY" ? 0 : start.getUTCMinutes() * 60) +
    (rule.freq === "SECONDLY" ? start.getUTCSeconds() : 0);
  const phase = (startSecond / unit) % g;
  for (const h of hours)
    for (const m of minutes)
      for (const s of seconds) {
        if (((h * 3600 + m * 60 + s) / unit) % g === phase) return undefined;
      }
  return (
    `is not a valid RRULE: stepping by its INTERVAL (FREQ=${rule.freq}) from the time of day of scheduledAt, ` +
    "no time allowed by its BYHOUR/BYMINUTE/BYSECOND is ever reached"
  );
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}
