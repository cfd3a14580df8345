/**
 * One 429 pacer for several processes. Each client paces itself (`internal/rate-limit-pacer.ts`), but
 * the service limits the token, not the process: N stacks run in parallel, each in provider
 * processes of its own, would each learn the limit alone, each new process would start unpaced, and
 * together they would overshoot it N times. A tool that runs them starts this server, hands its URL to
 * every process (`SERVICEAPI_SHARED_PACER_URL`, or the client's `sharedPacerUrl`), and their clients
 * then ask it, through `internal/remote-pacer.ts`, before each attempt — as the calls of one client ask
 * their own pacer.
 *
 * Runners on separate machines (the jobs of a CI matrix) share the limit through a store they all
 * reach: given `store`, this pacer keeps its state there (`internal/stored-pacer.ts`; the catalog
 * tool's PostgreSQL store is `provider/catalog/rate-limit-store.ts`), so each runner's processes ask
 * their runner's pacer, and the runners' pacers agree through the store.
 *
 * It listens on 127.0.0.1 only, and the URL's path holds a random secret, so another user of the
 * machine cannot drive it. It hears only when to send and how it went: no request, header, body or token.
 *
 * This file is the package's `pulumi-serviceapi/shared-pacer`, for tools that run many processes, not
 * for Pulumi programs: it is kept out of the client's index, and so out of the package's entry that
 * every user program loads.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { SYSTEM_CLOCK, type Clock } from "./config";
import { LimitedReport, PACER_ENDPOINTS, TicketWire, type PacerEndpoint } from "./internal/remote-pacer";
import { RateLimitPacer } from "./internal/rate-limit-pacer";
import { StoredPacer, type PaceStore, type StoredPacerStats } from "./internal/stored-pacer";

export type { PaceStore, StoredPacerStats } from "./internal/stored-pacer";
export type { PaceState } from "./internal/rate-limit-pacer";

export interface SharedPacerOptions {
  /** The pacer's time, for tests with scaled-down time (the clients' clock should be the same). Default: the real clocks. */
  clock?: Clock;
  /** Runners that share the limit keep the pacer's state here; without it, the pace is this process's own. */
  store?: PaceStore;
  /** Told once when the store fails (the runner then paces alone). Default: stderr. */
  warn?: (message: string) => void;
}

/** What the pacer has seen, for a tool's report and for tests. */
export interface SharedPacerStats {
  /** Attempts let go. */
  acquired: number;
  /** Attempts reported answered without a 429. */
  passed: number;
  /** Attempts reported answered 429. */
  limited: number;
  /** Attempts held now, waiting for the pause or their slot. */
  waiting: number;
  /** Held attempts whose client left before they were let go (aborted, or its process ended). */
  dropped: number;
  /** Milliseconds between attempts at the learned pace; 0 while unpaced (and with a store, which holds the pace). */
  intervalMs: number;
  /** With a store: its transactions, and whether it failed. */
  store?: StoredPacerStats;
  /** Attempts let go, by the label of the URL they came through (`urlFor`): a tool's count per stack. */
  acquiredBy: Record<string, number>;
}

export interface SharedPacer {
  /** `http://127.0.0.1:<port>/<secret>`: give it to every process, as `SERVICEAPI_SHARED_PACER_URL`. */
  readonly url: string;
  /**
   * The same pacer under a label (`<url>/<label>`): attempts through it are also counted under
   * the label — every request of one stack's processes, its program's lookups included.
   */
  urlFor(label: string): string;
  stats(): SharedPacerStats;
  /** Stops the server; attempts still held are answered 503, and their clients go on pacing alone. */
  close(): Promise<void>;
}

/** Reports are a few numbers; anything longer is not a client of ours. */
const MAX_BODY_BYTES = 1024;

export async function startSharedPacer(options: SharedPacerOptions = {}): Promise<SharedPacer> {
  const clock = options.clock ?? SYSTEM_CLOCK;
  const warn = options.warn ?? ((message: string) => process.stderr.write(`warning: ${message}\n`));
  const stored = options.store ? new StoredPacer({ store: options.store, clock, warn }) : undefined;
  const local = stored ? undefined : new RateLimitPacer(clock);
  const pacer = stored ?? local!;
  const secret = Buffer.from(randomBytes(24).toString("base64url"));
  const counts = { acquired: 0, passed: 0, limited: 0, dropped: 0 };
  const acquiredBy: Record<string, number> = {};
  /** One per held attempt: aborting it drops the attempt from the pacer's queue. */
  const held = new Set<AbortController>();
  let closing = false;

  /** Holds the response until the pacer lets the attempt go; a client that leaves first gives up its place. */
  async function acquire(res: ServerResponse, label: string | undefined): Promise<void> {
    const left = new AbortController();
    held.add(left);
    res.on("close", () => {
      if (!res.writableEnded) left.abort(new Error("the client left"));
    });
    try {
      const ticket = await pacer.acquire(left.signal);
      counts.acquired += 1;
      if (label !== undefined) acquiredBy[label] = (acquiredBy[label] ?? 0) + 1;
      // While paced, when it was let go on the machine's wall clock: a client that reads it late asks again
      // (remote-pacer's LATE_MS). Unpaced, calls may go together anyway, and none is late.
      const paced = pacer.intervalMs > 0;
      send(res, 200, JSON.stringify({ episode: ticket.episode, sentAt: ticket.sentAt, ...(paced && { releasedAt: clock.date() }) }));
    } catch {
      // Without keep-alive, so that the connection ends with the answer and `close` need not wait for it.
      if (closing) send(res, 503, "closing", { connection: "close" });
      else counts.dropped += 1;
    } finally {
      held.delete(left);
    }
  }

  function report(endpoint: Exclude<PacerEndpoint, "acquire">, body: string, res: ServerResponse): void {
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      json = undefined;
    }
    if (endpoint === "passed") {
      const ticket = TicketWire.safeParse(json);
      if (!ticket.success) return send(res, 400, "not a ticket");
      counts.passed += 1;
      pacer.passed(ticket.data);
    } else {
      const limited = LimitedReport.safeParse(json);
      if (!limited.success) return send(res, 400, "not a 429 report");
      counts.limited += 1;
      pacer.limited(limited.data.ticket, limited.data.waitMs, limited.data.retryAfterMs);
    }
    send(res, 204, "");
  }

  const server = createServer((req, res) => {
    const { endpoint, label } = route(req, secret) ?? {};
    if (endpoint === undefined) {
      req.resume();
      return send(res, 404, "not found");
    }
    if (endpoint === "acquire") {
      req.resume();
      void acquire(res, label);
      return;
    }
    readBody(req).then(
      (body) => (body === undefined ? res.destroy() : report(endpoint, body, res)),
      () => res.destroy(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/${secret.toString()}`,
    urlFor: (label) => `http://127.0.0.1:${port}/${secret.toString()}/${encodeURIComponent(label)}`,
    stats: () => ({
      ...counts,
      waiting: held.size,
      intervalMs: local?.intervalMs ?? 0,
      acquiredBy: { ...acquiredBy },
      ...(stored && { store: stored.stats() }),
    }),
    async close() {
      closing = true;
      for (const left of held) left.abort(new Error("the shared pacer is closing"));
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Idle keep-alive connections would hold `close` open until they time out.
      server.closeIdleConnections();
      await closed;
      await stored?.close();
    },
  };
}

/** `POST /<secret>[/<label>]/<endpoint>` → the endpoint and label; anything else (a wrong secret included) → undefined. */
function route(req: IncomingMessage, secret: Buffer): { endpoint: PacerEndpoint; label: string | undefined } | undefined {
  const match = /^\/([^/]+)(?:\/([^/]+))?\/([a-z]+)$/.exec(req.url ?? "");
  if (req.method !== "POST" || !match) return undefined;
  const given = Buffer.from(match[1]!);
  // Compared in constant time, so the answer's timing does not tell how much of a guess was right.
  if (given.length !== secret.length || !timingSafeEqual(given, secret)) return undefined;
  if (!(PACER_ENDPOINTS as readonly string[]).includes(match[3]!)) return undefined;
  let label: string | undefined;
  try {
    label = match[2] === undefined ? undefined : decodeURIComponent(match[2]);
  } catch {
    return undefined;
  }
  return { endpoint: match[3] as PacerEndpoint, label };
}

/** The body as text; undefined if it is longer than any report. */
async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  if (res.destroyed || res.headersSent) return;
  res.writeHead(status, { "content-type": status === 200 ? "application/json" : "text/plain", ...headers });
  res.end(body);
}
