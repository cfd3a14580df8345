/**
 * RRULE handling, through the simulator and the client. The simulator runs at a fixed instant (its
 * injected clock), so every expected `nextRunAt` is written out and holds whatever day the tests run.
 * Bounded work is measured in occurrences drawn from the `rrule` package, not in milliseconds (how
 * long hostile rules take is `npm run bench`'s section 4).
 */
import fc from "fast-check";
import { RRule } from "rrule";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { RequestValidationError } from "../../provider/client";
import { DEFAULT_IDS, type Simulator } from "pulumi-serviceapi-simulator";
import { clientFor, raw, simulator } from "../helpers";

const P = DEFAULT_IDS.acmeWeb;
/** The simulator's "now" in this file. */
const NOW = Date.parse("2031-03-01T00:00:00Z");
const FUTURE = "2031-03-04T09:30:15Z";
/** The work bound the service promises: it refuses a rule needing more occurrences than this (its message says so). */
const MOST_OCCURRENCES = 5000;

const atNow = () => simulator({ clock: { date: () => NOW } });

/** Occurrences the `rrule` package produced in each search since the last call: the work behind each answer. */
const searches: number[] = [];
let counting: { mockRestore(): void } | undefined;
beforeAll(() => {
  const all = RRule.prototype.all;
  counting = vi.spyOn(RRule.prototype, "all").mockImplementation(function (this: RRule, iterator) {
    let produced = 0;
    try {
      const counted: typeof iterator =
        iterator &&
        ((date, i) => {
          produced += 1;
          return iterator(date, i);
        });
      return all.call(this, counted);
    } finally {
      searches.push(produced);
    }
  });
});
afterAll(() => counting?.mockRestore());
const takeSearches = () => searches.splice(0);

describe("RRULE: never hang, never 500, one rule for client and simulator", () => {
  const refused: [string, string][] = [
    ["FREQ=DAILY;INTERVAL=-1", "rrule is not a valid RRULE: INTERVAL must be 1 to 2147483647"],
    [
      "FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=30",
      "rrule is not a valid RRULE: no date matches its BYMONTH and BYMONTHDAY together, so it has no occurrence",
    ],
    ["FREQ=MONTHLY;BYSETPOS=0;BYDAY=MO", "rrule is not a valid RRULE: BYSETPOS must be 1 to 366 or -366 to -1"],
    ["FREQ=DAILY;BYHOUR=-1", "rrule is not a valid RRULE: BYHOUR must be 0 to 23"],
    ["FREQ=DAILY;BYMINUTE=61", "rrule is not a valid RRULE: BYMINUTE must be 0 to 59"],
    ["FREQ=WEEKLY;WKST=XX", "rrule is not a valid RRULE: WKST must be one of MO, TU, WE, TH, FR, SA, SU"],
    ["FREQ=DAILY;COUNT=-1", "rrule is not a valid RRULE: COUNT must be 1 to 2147483647"],
    ["FREQ=DAILY;COUNT=2;UNTIL=20320101", "rrule is not a valid RRULE: must not have both COUNT and UNTIL (RFC 5545)"],
    ["FREQ=WEEKLY;BYMONTHDAY=3", "rrule is not a valid RRULE: BYMONTHDAY cannot be used with FREQ=WEEKLY (RFC 5545)"],
    [
      "FREQ=MONTHLY;BYDAY=6MO",
      "rrule is not a valid RRULE: BYDAY: the number of a weekday must be 1 to 5 (a month has at most 5 of a weekday)",
    ],
    ["FREQ=DAILY;BYSECOND=60", "rrule is not a valid RRULE: BYSECOND=60 (a leap second) is not supported; use 0 to 59"],
    // From 09:30:15 every 2 hours only odd hours are reached; rrule itself would loop forever here.
    [
      "FREQ=HOURLY;INTERVAL=2;BYHOUR=4",
      "rrule is not a valid RRULE: stepping by its INTERVAL (FREQ=HOURLY) from the time of day of scheduledAt, no time allowed by its BYHOUR/BYMINUTE/BYSECOND is ever reached",
    ],
    ["FREQ=SECONDLY;INTERVAL=301;BYMINUTE=28", "rrule is not a valid RRULE: FREQ=SECONDLY with BYMINUTE needs INTERVAL below 60"],
    [
      "FREQ=SECONDLY;INTERVAL=15;BYYEARDAY=49;BYMINUTE=24",
      "rrule is not a valid RRULE: FREQ=SECONDLY with both BYYEARDAY and BYMINUTE is not supported; use FREQ=DAILY (or coarser) with BYHOUR/BYMINUTE/BYSECOND for times on chosen days",
    ],
    [
      "FREQ=MINUTELY;BYSETPOS=8;BYSECOND=8,47,16",
      "rrule is not a valid RRULE: BYSETPOS selects nothing: each FREQ=MINUTELY period has at most 3 candidates",
    ],
    [
      "FREQ=YEARLY;BYYEARDAY=1;BYMONTH=3",
      "rrule is not a valid RRULE: no date matches its BYMONTH and BYYEARDAY together, so it has no occurrence",
    ],
  ];

  it("the simulator answers 400 naming the part, without searching for an occurrence, and keeps serving", async () => {
    const sim = await atNow();
    takeSearches();
    for (const [rule, message] of refused) {
      const res = await raw(sim, "POST", "/v1/tasks", {
        body: { title: "t", prompt: "p", scheduledAt: FUTURE, projectId: P, rrule: rule },
      });
      expect(res.status, rule).toBe(400);
      expect(res.body.error.message, rule).toBe(message);
      // Refused by the checks before any search: rules like these make the rrule package loop forever.
      expect(takeSearches(), rule).toEqual([]);
    }
    expect((await raw(sim, "GET", "/_simulator/health")).status).toBe(200);
    expect(sim.counts().tasks).toBe(0);
  });

  it("the client refuses the same rules before sending", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim);
    for (const [rule, message] of refused) {
      const err = await client
        .createTask({ title: "t", prompt: "p", scheduledAt: FUTURE, projectId: P, rrule: rule })
        .catch((e: Error) => e);
      expect(err, rule).toBeInstanceOf(RequestValidationError);
      expect((err as Error).message, rule).toBe(`tasks.create: invalid request, nothing was sent: ${message}`);
    }
    expect(sim.requests()).toHaveLength(0);
  });

  it("valid rules compute nextRunAt from scheduledAt and the service's clock", async () => {
    const sim = await atNow();
    const { client } = clientFor(sim);
    const task = (rrule: string) => client.createTask({ title: "t", prompt: "p", scheduledAt: FUTURE, projectId: P, rrule });
    expect((await task("FREQ=WEEKLY;BYDAY=MO")).nextRunAt).toBe("2031-03-10T09:30:15.000Z");
    expect((await task("FREQ=HOURLY;INTERVAL=2;BYHOUR=11")).nextRunAt).toBe("2031-03-04T11:30:15.000Z");
    // A rare but possible day: 29 February falling on a Monday (2044).
    expect((await task("FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO")).nextRunAt).toBe("2044-02-29T09:30:15.000Z");
    // A start 30 years back with a frequent rule: the next 7-second slot at or after now, found by
    // restarting at the last slot instead of walking every second (a few occurrences, not 135 million).
    const start = Date.parse("2001-01-01T00:00:00Z");
    takeSearches();
    const past = await client.createTask({
      title: "t",
      prompt: "p",
      scheduledAt: new Date(start).toISOString(),
      projectId: P,
      rrule: "FREQ=SECONDLY;INTERVAL=7",
    });
    expect(past.nextRunAt).toBe(new Date(start + Math.ceil((NOW - start) / 7000) * 7000).toISOString());
    expect(past.createdAt).toBe(new Date(NOW).toISOString());
    expect(Math.max(...takeSearches())).toBeLessThanOrEqual(2);
  });

  it("property: every generated rule is answered with bounded work, never 5xx, and client and simulator agree", async () => {
    const sim: Simulator = await atNow();
    const { client } = clientFor(sim);
    const int = (min: number, max: number) => fc.integer({ min, max }).map(String);
    const list = (a: fc.Arbitrary<string>) => fc.array(a, { minLength: 1, maxLength: 3 }).map((xs) => xs.join(","));
    const day = fc
      .tuple(fc.option(int(-6, 6), { nil: undefined }), fc.constantFrom("MO", "TU", "WE", "TH", "FR", "SA", "SU", "XX"))
      .map(([n, d]) => `${n ?? ""}${d}`);
    const part = fc.oneof(
      int(-2, 400).map((v) => `INTERVAL=${v}`),
      int(-1, 30).map((v) => `COUNT=${v}`),
      list(int(-1, 61)).map((v) => `BYSECOND=${v}`),
      list(int(-1, 61)).map((v) => `BYMINUTE=${v}`),
      list(int(-1, 24)).map((v) => `BYHOUR=${v}`),
      list(day).map((v) => `BYDAY=${v}`),
      list(int(-32, 32)).map((v) => `BYMONTHDAY=${v}`),
      list(int(-367, 367)).map((v) => `BYYEARDAY=${v}`),
      list(int(-54, 54)).map((v) => `BYWEEKNO=${v}`),
      list(int(0, 13)).map((v) => `BYMONTH=${v}`),
      list(int(-10, 10)).map((v) => `BYSETPOS=${v}`),
      fc.constantFrom("WKST=MO", "WKST=SU", "WKST=XX", "UNTIL=20350101", "UNTIL=20310101T000000Z", "UNTIL=2035", "BOGUS=1"),
    );
    const freq = fc.constantFrom("YEARLY", "MONTHLY", "WEEKLY", "DAILY", "HOURLY", "MINUTELY", "SECONDLY", "SOMETIMES");
    const rule = fc.tuple(freq, fc.array(part, { maxLength: 4 })).map(([f, parts]) => [`FREQ=${f}`, ...parts].join(";"));
    let accepted = 0;
    let searched = 0;
    await fc.assert(
      fc.asyncProperty(rule, async (rrule) => {
        const body = { title: "t", prompt: "p", scheduledAt: FUTURE, projectId: P, rrule };
        takeSearches();
        const res = await raw(sim, "POST", "/v1/tasks", { body });
        const work = takeSearches();
        expect(Math.max(0, ...work), rrule).toBeLessThanOrEqual(MOST_OCCURRENCES);
        searched += work.length;
        expect([201, 400], rrule).toContain(res.status);
        const clientOk = await client.createTask(body).then(
          () => true,
          (e: unknown) => {
            if (e instanceof RequestValidationError) return false;
            throw e;
          },
        );
        expect(clientOk, `${rrule}: simulator ${res.status} ${JSON.stringify(res.body?.error?.message)}`).toBe(res.status === 201);
        if (clientOk) accepted += 1;
      }),
      { numRuns: 300, seed: 20261122 },
    );
    // The generator reaches both sides of the rule, and the searches were counted.
    expect(accepted).toBeGreaterThan(20);
    expect(searched).toBeGreaterThanOrEqual(accepted);
  }, 60_000);
});
