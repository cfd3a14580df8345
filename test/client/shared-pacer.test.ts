/**
 * Several processes share the API's rate limit through one shared pacer (`provider/client/shared-pacer.ts`):
 * each client here is a `ServiceApiClient` of its own, as each provider process of a parallel stack
 * has one. Over loopback to the simulator and its per-token limit; the simulator, the clients and the
 * pacer share one virtual clock (as in `rate-limits.test.ts`), and the requests refused and let
 * through are counted in the simulator's own request log.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { request } from "undici";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import pkg from "../../package.json";
// Imported with the file, not in the test: loading the entry (and the Pulumi SDK under it) took over
// the test's 20 s on a busy machine.
import * as entry from "../../provider";
import { AbortError, ConfigError, ServiceApiClient } from "../../provider/client";
import * as face from "../../provider/client/shared-pacer";
import { ProviderContext } from "../../provider/resources/context";
import { DEFAULT_IDS, type Simulator } from "pulumi-serviceapi-simulator";
import { clientFor, rejectionOf, simulator, until } from "../helpers";
import { limited, sharedPacer } from "./pacer-support";

const listSites = (client: ServiceApiClient, options?: { signal?: AbortSignal }) =>
  client.listSites({ projectId: DEFAULT_IDS.acmeDocs }, options).toArray();
const statuses = (sim: Simulator) => sim.requests().map((r) => r.status);

/** The warning a client logs once when the pacer at `url` does not answer, as `setting` names it. */
function unreachableText(url: string, setting: string, detail: string): string {
  return (
    `the shared rate-limit pacer at ${new URL(url).origin} (${setting}) is unreachable: ${detail}; this process paces its requests ` +
    `alone from now on, so parallel runs may be refused (429) more often. Check that the tool that started the pacer is still ` +
    `running, or unset ${setting}.`
  );
}

describe("parallel workers share the rate limit through one pacer", () => {
  /** Listings each command sends, all at once, in all: the same whichever number of workers share them. */
  const CALLS = 8;

  /**
   * `workers` workers each run two commands one after the other (a preview, then an up: each a
   * provider process, so a client, of its own), every command its share of `CALLS`; through one pacer or each alone.
   */
  async function run(workers: number, share: boolean) {
    const { clock, sim } = await limited();
    const pacer = share ? await sharedPacer({ clock }) : undefined;
    const command = async () => {
      const { client } = clientFor(sim, { clock, ...(pacer && { sharedPacerUrl: pacer.url }) });
      await Promise.all(Array.from({ length: CALLS / workers }, () => listSites(client)));
    };
    await Promise.all(
      Array.from({ length: workers }, async () => {
        await command();
        await command();
      }),
    );
    return {
      refused: statuses(sim).filter((s) => s === 429).length,
      passed: statuses(sim).filter((s) => s === 200).length,
      reported: pacer?.stats().limited,
    };
  }

  it("4 workers through a shared pacer are refused less often than 1 worker alone; 4 each pacing alone, more", async () => {
    // Three services of their own, run side by side: each is paced by its own clock and window.
    const [alone, shared, separate] = await Promise.all([run(1, false), run(4, true), run(4, false)]);
    expect([alone.passed, shared.passed, separate.passed]).toEqual([2 * CALLS, 2 * CALLS, 2 * CALLS]);
    // Every 429 reached the pacer: the next attempt of its call waits until the report has arrived.
    expect(shared.reported).toBe(shared.refused);
    // Alone, each command starts unpaced and sends its 8 calls at one instant of the clock: at least 5 are
    // refused, twice over, and a client that saw fewer than 2 of its calls pass learns no pace from them and
    // overshoots again when the pause ends. Through the pacer only the first burst overshoots; 4 each pacing
    // alone overshoot with every command and most pauses. 16 alone, 5 shared, 27 when 4 pace each alone: on
    // this clock a busy machine cannot spread a burst over windows, so no run differs.
    expect(shared.refused).toBeLessThan(alone.refused);
    expect(separate.refused).toBeGreaterThan(alone.refused);
  });

  it("a client that starts after the pace was learned is paced from its first request: none of its burst is refused", async () => {
    const { clock, sim } = await limited();
    const pacer = await sharedPacer({ clock });
    const { client: first } = clientFor(sim, { clock, sharedPacerUrl: pacer.url });
    await Promise.all(Array.from({ length: 6 }, () => listSites(first)));
    expect(statuses(sim)).toContain(429);
    expect(pacer.stats().intervalMs).toBeGreaterThan(0);
    sim.clearRequests();
    const { client: late } = clientFor(sim, { clock, sharedPacerUrl: pacer.url });
    await Promise.all(Array.from({ length: 4 }, () => listSites(late)));
    expect(statuses(sim)).toEqual(Array(4).fill(200));
  });
});

describe("the pacer counts each stack's requests", () => {
  it("attempts through urlFor(label) are counted under the label, and in the total; the plain URL under none", async () => {
    const sim = await simulator();
    const pacer = await sharedPacer();
    const send = async (url: string, calls: number) => {
      const { client } = clientFor(sim, { sharedPacerUrl: url });
      for (let i = 0; i < calls; i++) await listSites(client);
    };
    await send(pacer.urlFor("catalog-00"), 3);
    await send(pacer.urlFor("catalog-1/å"), 2);
    await send(pacer.url, 1);
    expect(sim.requests()).toHaveLength(6);
    expect(pacer.stats()).toMatchObject({ acquired: 6, acquiredBy: { "catalog-00": 3, "catalog-1/å": 2 } });
  });
});

describe("a pacer that does not answer never stops a run", () => {
  it("a dead SERVICEAPI_SHARED_PACER_URL: every call goes on, paced alone, with one warning for the client", async () => {
    const { clock, sim } = await limited();
    const pacer = await sharedPacer({ clock });
    await pacer.close();
    vi.stubEnv("SERVICEAPI_SHARED_PACER_URL", pacer.url);
    onTestFinished(() => void vi.unstubAllEnvs());
    const { client, events } = clientFor(sim, { clock });
    await Promise.all(Array.from({ length: 9 }, () => listSites(client)));
    await listSites(client);
    expect(statuses(sim).filter((s) => s === 200)).toHaveLength(10);
    const { port } = new URL(pacer.url);
    expect(events.filter((e) => e.type === "warning")).toEqual([
      { type: "warning", message: unreachableText(pacer.url, "SERVICEAPI_SHARED_PACER_URL", `connect ECONNREFUSED 127.0.0.1:${port}`) },
    ]);
  });

  it("a pacer closed while calls wait there: they go on alone; a wrong secret is refused (404) and falls back too", async () => {
    const sim = await simulator();
    // Real time, and a pause of an hour: only closing the pacer lets the call go.
    const pacer = await sharedPacer();
    await report(pacer.url, "limited", { ticket: { episode: 0, sentAt: 0 }, waitMs: 3_600_000 });
    const { client, events } = clientFor(sim, { sharedPacerUrl: pacer.url });
    const waiting = listSites(client);
    await until("the call to wait at the pacer", () => pacer.stats().waiting === 1);
    expect(sim.requests()).toHaveLength(0);
    await pacer.close();
    expect(await waiting).toHaveLength(3);
    expect(events.filter((e) => e.type === "warning").map((e) => e.type === "warning" && e.message)).toEqual([
      unreachableText(pacer.url, "sharedPacerUrl", "it answered 503"),
    ]);

    const other = await sharedPacer();
    const wrong = other.url.replace(/[^/]+$/, "not-the-secret");
    const { client: guesser, events: guessed } = clientFor(sim, { sharedPacerUrl: wrong });
    await listSites(guesser);
    expect(guessed.filter((e) => e.type === "warning").map((e) => e.type === "warning" && e.message)).toEqual([
      unreachableText(wrong, "sharedPacerUrl", "it answered 404"),
    ]);
    expect(other.stats().acquired).toBe(0);
  });

  it("calls aborted while they wait at the pacer leave its queue and send nothing; a process holds at most 8 there", async () => {
    const sim = await simulator();
    const pacer = await sharedPacer();
    await report(pacer.url, "limited", { ticket: { episode: 0, sentAt: 0 }, waitMs: 3_600_000 });
    const { client, events } = clientFor(sim, { sharedPacerUrl: pacer.url });
    const stop = new AbortController();
    const waiting = Array.from({ length: 12 }, () => listSites(client, { signal: stop.signal }));
    await until("8 calls to wait at the pacer", () => pacer.stats().waiting === 8);
    stop.abort(new Error("the user stopped it"));
    for (const call of waiting) await rejectionOf(call, AbortError);
    await until("the pacer to drop the calls", () => pacer.stats().waiting === 0);
    // The 4 calls beyond the 8 never reached the pacer: their place was in the process.
    expect(pacer.stats()).toMatchObject({ dropped: 8, acquired: 0 });
    expect(sim.requests()).toHaveLength(0);
    expect(events.filter((e) => e.type === "warning")).toEqual([]);
  });

  it("a URL that is not a loopback http:// URL is refused before anything is sent, without showing its path", () => {
    const make = (sharedPacerUrl: string) => () =>
      new ServiceApiClient({ baseUrl: "http://127.0.0.1:1", token: "a-long-token", sharedPacerUrl });
    expect(make("https://pacer.example.com/secret")).toThrow(
      new ConfigError(
        "sharedPacerUrl must be an http:// URL on a loopback host (got https://pacer.example.com): use the URL startSharedPacer() returned, or unset it",
      ),
    );
    expect(make("127.0.0.1:9/secret")).toThrow(/^sharedPacerUrl is not a URL: use the URL startSharedPacer\(\) returned, or unset it$/);
  });
});

describe("what the pacer hears", () => {
  it("tickets and waits only: no token, no header or body of an API request", async () => {
    const { clock, sim } = await limited();
    const pacer = await sharedPacer({ clock });
    const { url, heard } = await recordingProxy(pacer.url);
    // Each attempt the pacer holds is held by the proxy too.
    clock.watch(url, () => pacer.stats().waiting);
    const { client } = clientFor(sim, { clock, sharedPacerUrl: url });
    await Promise.all(Array.from({ length: 6 }, () => listSites(client)));
    expect(statuses(sim)).toContain(429);
    await until("every report to arrive", () => pacer.stats().passed === 6);
    expect(new Set(heard.map((h) => h.endpoint))).toEqual(new Set(["acquire", "passed", "limited"]));
    for (const h of heard) {
      expect(Object.keys(h.headers).filter((name) => !["host", "connection", "content-type", "content-length"].includes(name))).toEqual([]);
      expect(h.body === "" ? [] : Object.keys(JSON.parse(h.body) as object)).toEqual(
        { acquire: [], passed: ["episode", "sentAt"], limited: ["ticket", "waitMs", "retryAfterMs"] }[h.endpoint]!,
      );
    }
    const everything = JSON.stringify(heard);
    for (const form of [sim.token, encodeURIComponent(sim.token), "authorization", "/sites", DEFAULT_IDS.acmeDocs])
      expect(everything).not.toContain(form);
  });
});

describe("an answer read late", () => {
  /**
   * A stand-in for the pacer whose answers to `acquire` say they were let go `lateBy[n]` ms before now
   * (undefined: no `releasedAt`, as an unpaced pacer answers); it keeps the `sentAt` of each report.
   */
  async function latePacer(lateBy: (number | undefined)[]) {
    let asked = 0;
    const reported: number[] = [];
    const server = createServer((req, res) => {
      void (async () => {
        const chunks: Buffer[] = [];
        for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
        if (req.url!.endsWith("/acquire")) {
          const late = lateBy[asked];
          asked += 1;
          // On time is an hour ahead, not `Date.now()`: a busy machine's slow read of it must not count as late.
          const releasedAt = late === undefined ? undefined : Date.now() + (late === 0 ? 3_600_000 : -late);
          res.writeHead(200, { "content-type": "application/json" });
          return res.end(JSON.stringify({ episode: 0, sentAt: asked, ...(releasedAt !== undefined && { releasedAt }) }));
        }
        reported.push((JSON.parse(Buffer.concat(chunks).toString("utf8")) as { sentAt: number }).sentAt);
        res.writeHead(204).end();
      })();
    });
    const port = await listenForTest(server);
    return { url: `http://127.0.0.1:${port}/secret`, asked: () => asked, reported };
  }

  it("the pacer says when it let a call go only while it paces: unpaced, calls may go together and none is late", async () => {
    const pacer = await sharedPacer();
    const acquire = async () => {
      const res = await request(`${pacer.url}/acquire`, { method: "POST" });
      return (await res.body.json()) as { episode: number; sentAt: number; releasedAt?: number };
    };
    const first = [await acquire(), await acquire()];
    expect(first.map((answer) => Object.keys(answer))).toEqual([
      ["episode", "sentAt"],
      ["episode", "sentAt"],
    ]);
    // Two through, then a 429 with a Retry-After of 1 s: a pace is learned, with no pause to wait out.
    for (const { episode, sentAt } of first) await report(pacer.url, "passed", { episode, sentAt });
    await report(pacer.url, "limited", { ticket: { episode: 0, sentAt: first[1]!.sentAt }, waitMs: 0, retryAfterMs: 1000 });
    expect(pacer.stats().intervalMs).toBeGreaterThan(0);
    const before = Date.now();
    const paced = await acquire();
    expect(Object.keys(paced)).toEqual(["episode", "sentAt", "releasedAt"]);
    expect(paced.releasedAt).toBeGreaterThanOrEqual(before);
    expect(paced.releasedAt).toBeLessThanOrEqual(Date.now());
  });

  it("a paced slot read more than 50 ms late is given up and asked again; the request goes once, on the slot read on time", async () => {
    const sim = await simulator();
    const pacer = await latePacer([400, 0]);
    const { client, events } = clientFor(sim, { sharedPacerUrl: pacer.url });
    await listSites(client);
    expect(pacer.asked()).toBe(2);
    expect(sim.requests().length).toBe(1);
    await until("the report", () => pacer.reported.length === 1);
    expect(pacer.reported).toEqual([2]);
    expect(events.filter((e) => e.type === "warning")).toEqual([]);
  });

  it("three asks at most: a process starved for good still sends, on its third answer; an answer without releasedAt is used at once", async () => {
    const sim = await simulator();
    const pacer = await latePacer([400, 400, 400, 400, undefined]);
    const { client } = clientFor(sim, { sharedPacerUrl: pacer.url });
    await listSites(client);
    expect(pacer.asked()).toBe(3);
    await listSites(client);
    expect(pacer.asked()).toBe(5);
    expect(sim.requests().length).toBe(2);
    await until("the reports", () => pacer.reported.length === 2);
    expect(pacer.reported.sort()).toEqual([3, 5]);
  });
});

describe("the provider process", () => {
  it("reads SERVICEAPI_SHARED_PACER_URL from its environment, and says once as a warning that the pacer is gone", async () => {
    const sim = await simulator();
    const pacer = await sharedPacer();
    const env = { SERVICEAPI_TOKEN: sim.token, SERVICEAPI_BASE_URL: sim.url, SERVICEAPI_SHARED_PACER_URL: pacer.url };
    const messages: string[] = [];
    const ctx = new ProviderContext({ sink: (severity, message) => messages.push(`${severity}: ${message}`), env });
    onTestFinished(() => ctx.close());
    await listSites(ctx.client());
    expect(pacer.stats().acquired).toBe(1);
    await pacer.close();
    await Promise.all([listSites(ctx.client()), listSites(ctx.client())]);
    const { port } = new URL(pacer.url);
    expect(messages).toEqual([
      `warning: serviceapi: ${unreachableText(pacer.url, "SERVICEAPI_SHARED_PACER_URL", `connect ECONNREFUSED 127.0.0.1:${port}`)}`,
    ]);
  });

  it("reads it from the environment it was given, never from process.env besides", async () => {
    const sim = await simulator();
    const pacer = await sharedPacer();
    vi.stubEnv("SERVICEAPI_SHARED_PACER_URL", pacer.url);
    onTestFinished(() => void vi.unstubAllEnvs());
    const ctx = new ProviderContext({ sink: () => {}, env: { SERVICEAPI_TOKEN: sim.token, SERVICEAPI_BASE_URL: sim.url } });
    onTestFinished(() => ctx.close());
    await listSites(ctx.client());
    expect(pacer.stats().acquired).toBe(0);
  });
});

/** Tells the pacer at `url` something, as a client would. */
async function report(url: string, endpoint: "passed" | "limited", body: unknown): Promise<void> {
  const res = await request(`${url}/${endpoint}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  await res.body.dump();
  expect(res.statusCode).toBe(204);
}

/** A proxy in front of the pacer at `target` that keeps every request it passes on: endpoint, headers, body. */
async function recordingProxy(target: string) {
  const heard: { endpoint: string; headers: IncomingMessage["headers"]; body: string }[] = [];
  const origin = new URL(target).origin;
  const server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
      const body = Buffer.concat(chunks).toString("utf8");
      heard.push({ endpoint: req.url!.split("/").pop()!, headers: req.headers, body });
      const type = req.headers["content-type"];
      const answer = await request(`${origin}${req.url}`, { method: "POST", body, headers: type ? { "content-type": type } : {} });
      res.writeHead(answer.statusCode, { "content-type": String(answer.headers["content-type"] ?? "text/plain") });
      res.end(await answer.body.text());
    })();
  });
  const port = await listenForTest(server);
  return { url: `http://127.0.0.1:${port}${new URL(target).pathname}`, heard };
}

/** Listens on a free loopback port, and closes the server (its open connections too) when the test ends; returns the port. */
async function listenForTest(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return (server.address() as AddressInfo).port;
}

describe("where the pacer's server is exported", () => {
  it("not from the package's entry, which every user program loads; as pulumi-serviceapi/shared-pacer, which is shared-pacer.ts", () => {
    expect("startSharedPacer" in entry).toBe(false);
    // The public subpath names the build of the file that holds the pacer, for every resolution (typesVersions: node10's).
    expect(pkg.exports["./shared-pacer"]).toEqual({
      types: "./dist/provider/client/shared-pacer.d.ts",
      default: "./dist/provider/client/shared-pacer.js",
    });
    expect(pkg.typesVersions["*"]["shared-pacer"]).toEqual(["dist/provider/client/shared-pacer.d.ts"]);
    expect(typeof face.startSharedPacer).toBe("function");
  });
});
