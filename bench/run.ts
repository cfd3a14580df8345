/**
 * `npm run bench`: client figures against the simulator on loopback, each printed beside a
 * baseline measured in the same run (never asserted in tests).
 *  1. full listing of 250 sites: requests made and time, vs. raw undici requests without validation
 *  2. Retry-After accuracy: the wait the client actually left, vs. a bare setTimeout of the same length
 *  3. shared back-off: 429s received by 8 concurrent callers after a rate limit hits
 */
import { request } from "undici";
import { RRule } from "rrule";
import { ServiceApiClient } from "../provider";
import { nextOccurrence } from "../provider/contract/rrule";
import { DEFAULT_IDS, startSimulator, type Simulator } from "pulumi-serviceapi-simulator";

const ROUNDS = 20;

function stats(values: number[]): { mean: number; min: number; max: number } {
  return { mean: values.reduce((a, b) => a + b, 0) / values.length, min: Math.min(...values), max: Math.max(...values) };
}
const f = (n: number) => n.toFixed(2);

async function listingBench(sim: Simulator): Promise<void> {
  const client = new ServiceApiClient({ baseUrl: sim.url, token: sim.token });
  const projectId = DEFAULT_IDS.acmeWeb;
  const clientTimes: number[] = [];
  const rawTimes: number[] = [];
  let requests = 0;
  for (let round = 0; round < ROUNDS; round++) {
    sim.clearRequests();
    let t = performance.now();
    let n = 0;
    for await (const _ of client.listSites({ projectId })) n += 1;
    clientTimes.push(performance.now() - t);
    requests = sim.requests().length;
    if (n !== 250) throw new Error(`expected 250 sites, got ${n}`);

    t = performance.now();
    let cursor: string | null = null;
    do {
      const qs: string = `projectId=${projectId}&limit=100${cursor ? `&cursor=${cursor}` : ""}`;
      const res = await request(`${sim.url}/api/v1/public/sites?${qs}`, {
        headers: { authorization: `Bearer ${sim.token}`, "service-api-version": "2026-07-11" },
      });
      const page = (await res.body.json()) as { next_cursor: string | null };
      cursor = page.next_cursor;
    } while (cursor);
    rawTimes.push(performance.now() - t);
  }
  await client.close();
  const c = stats(clientTimes.slice(2));
  const r = stats(rawTimes.slice(2));
  console.log("1. full listing of 250 sites (sites.list), mean of rounds 3-20");
  console.log(`   requests per listing: ${requests} (⌈250/100⌉ = 3)`);
  console.log(`   client:   ${f(c.mean)} ms  (min ${f(c.min)}, max ${f(c.max)})`);
  console.log(`   baseline: ${f(r.mean)} ms  raw undici, no validation`);
  console.log(`   ratio client/baseline: ${f(c.mean / r.mean)}x`);
}

async function retryAfterBench(sim: Simulator): Promise<void> {
  const client = new ServiceApiClient({ baseUrl: sim.url, token: sim.token });
  const waits: number[] = [];
  const timers: number[] = [];
  for (let round = 0; round < 5; round++) {
    sim.clearRequests();
    sim.addFault({ operation: "projects.list", kind: "error", status: 429, retryAfter: "1" });
    await client.listProjects({ limit: 1 }).firstPage();
    const [limited, retried] = sim.requests();
    waits.push(Date.parse(retried!.time) - Date.parse(limited!.time));
    const t = performance.now();
    await new Promise((r) => setTimeout(r, 1000));
    timers.push(performance.now() - t);
  }
  await client.close();
  const w = stats(waits);
  const b = stats(timers);
  console.log("2. Retry-After: 1 (5 rounds), time between the 429 and the retry as the server saw it");
  console.log(`   client wait: mean ${f(w.mean)} ms, min ${f(w.min)}, max ${f(w.max)}; overshoot mean ${f(w.mean - 1000)} ms`);
  console.log(`   baseline setTimeout(1000): mean ${f(b.mean)} ms; overshoot ${f(b.mean - 1000)} ms`);
  console.log(`   ratio wait/requested: ${(w.mean / 1000).toFixed(4)}`);
}

async function sharedBackoffBench(sim: Simulator): Promise<void> {
  const callers = 8;
  sim.clearRequests();
  sim.setRateLimit({ limit: 4, windowMs: 1000 });
  const client = new ServiceApiClient({ baseUrl: sim.url, token: sim.token, maxRetries: 10 });
  // Staggered callers: each starts 50 ms after the previous, as calls do in a real program.
  const started = performance.now();
  await Promise.all(
    Array.from({ length: callers }, (_, i) =>
      new Promise((r) => setTimeout(r, i * 50)).then(() => client.listSites({ projectId: DEFAULT_IDS.acmeDocs }).toArray()),
    ),
  );
  const elapsed = performance.now() - started;
  const shared429 = sim.requests().filter((r) => r.status === 429).length;
  await client.close();

  // Baseline: one client per caller, so no back-off is shared.
  sim.setRateLimit({ limit: 4, windowMs: 1000 });
  sim.clearRequests();
  const lone = Array.from({ length: callers }, () => new ServiceApiClient({ baseUrl: sim.url, token: sim.token, maxRetries: 10 }));
  await Promise.all(
    lone.map((c, i) => new Promise((r) => setTimeout(r, i * 50)).then(() => c.listSites({ projectId: DEFAULT_IDS.acmeDocs }).toArray())),
  );
  const lone429 = sim.requests().filter((r) => r.status === 429).length;
  await Promise.all(lone.map((c) => c.close()));
  sim.setRateLimit(undefined);
  console.log(`3. ${callers} staggered callers under a limit of 4 requests/s`);
  console.log(`   shared back-off (one client): ${shared429} responses were 429, done in ${f(elapsed)} ms`);
  console.log(`   baseline (a client per caller): ${lone429} responses were 429`);
}

/** Worst cases the old simulator hung or stalled on, and rules that are valid but sparse. */
function rruleBench(): void {
  const start = new Date("2031-03-04T09:30:15Z");
  const rules = [
    "FREQ=DAILY;INTERVAL=-1",
    "FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=30",
    "FREQ=HOURLY;INTERVAL=2;BYHOUR=4",
    "FREQ=SECONDLY;INTERVAL=301;BYMINUTE=28",
    "FREQ=WEEKLY;BYSETPOS=9;BYSECOND=41,58,23",
    "FREQ=HOURLY;BYYEARDAY=-62,3;BYMONTHDAY=18",
    "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO",
    "FREQ=MONTHLY;BYDAY=4FR,SA",
    "FREQ=SECONDLY;INTERVAL=7",
  ];
  const times = rules.map((rule) => {
    const t0 = performance.now();
    nextOccurrence(rule, start, new Date(Date.UTC(2040, 0, 1)));
    return [rule, performance.now() - t0] as const;
  });
  const t0 = performance.now();
  new RRule({ ...RRule.parseString("FREQ=WEEKLY;BYDAY=MO"), dtstart: start }).after(start, true);
  const baseline = performance.now() - t0;
  const worst = times.reduce((a, b) => (b[1] > a[1] ? b : a));
  console.log("4. nextRunAt for hostile and sparse RRULEs (one call each, from a 2031 start to 2040)");
  for (const [rule, ms] of times) console.log(`   ${f(ms).padStart(7)} ms  ${rule}`);
  console.log(`   baseline rrule after() of FREQ=WEEKLY;BYDAY=MO: ${f(baseline)} ms; worst/baseline ${f(worst[1] / baseline)}x`);
}

async function main(): Promise<void> {
  const sim = await startSimulator({ port: 0 });
  try {
    console.log(`pulumi-serviceapi bench on Node ${process.version}, simulator ${sim.url}\n`);
    await listingBench(sim);
    console.log();
    await retryAfterBench(sim);
    console.log();
    await sharedBackoffBench(sim);
    console.log();
    rruleBench();
  } finally {
    await sim.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
