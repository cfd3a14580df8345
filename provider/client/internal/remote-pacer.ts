/**
 * A client's side of the shared pacer (`../shared-pacer.ts`): the same three questions as
 * `RateLimitPacer`, asked over loopback HTTP, so the clients of several processes are let go, paused
 * and paced as the calls of one client would be. Only tickets and waits are sent — never a request of
 * the API, its headers, its body or the token.
 *
 * A pacer that stops answering must not stop a deploy: from the first failure on, this client paces
 * alone with a local `RateLimitPacer` (which starts unpaced), and says so once, in one `warning` event.
 */
import { Agent, request, type Dispatcher } from "undici";
import { z } from "zod";
import type { Clock } from "../config";
import { RateLimitPacer, type Pacer, type PaceTicket } from "./rate-limit-pacer";

export const PACER_ENDPOINTS = ["acquire", "passed", "limited"] as const;
export type PacerEndpoint = (typeof PACER_ENDPOINTS)[number];

/** A ticket on the wire: the shared pacer's episode and its clock's send time. */
export const TicketWire = z.strictObject({ episode: z.number().int().min(0), sentAt: z.number() });
/**
 * The pacer's answer to `acquire`: a ticket, and when the pacer let it go on the wall clock
 * (`Date.now()`) that the processes of one machine share. Optional: an answer without it is taken as
 * it comes.
 */
export const AcquireAnswer = TicketWire.extend({ releasedAt: z.number().optional() });

/**
 * An answer this process reads more than this long after the pacer let it go is given up, and the
 * call asks again: a starved process that reads several answers late would send them together, and
 * every one after the first lands in a window the limit has already filled (429s for every process
 * and runner). Asking again is slower, never over the limit — the slot it gave up goes unused.
 */
export const LATE_MS = 50;
/** Asks in all for one call: after the last, a late answer is used as it is, so that a process starved for good still sends. */
export const MAX_ASKS = 3;
export const LimitedReport = z.strictObject({
  ticket: TicketWire,
  waitMs: z.number().min(0).max(3_600_000),
  retryAfterMs: z.number().min(0).optional(),
});

/** A report is answered at once; one that is not means the pacer is stuck, and waiting on it would hold every call. */
const REPORT_TIMEOUT_MS = 5_000;
/**
 * Attempts of one client held at the pacer at once, each on a connection of its own; the others wait
 * here, in order. Hundreds of calls paused at once, times many processes, would otherwise hold as
 * many sockets open in the pacer's process (past the usual limit of 1,024 open files). Unpaced, each
 * answer comes back in a loopback round trip, so this bounds nothing near an API's rate.
 */
const MAX_HELD = 8;

export interface RemotePacerOptions {
  /** `http://127.0.0.1:<port>/<secret>`, as `startSharedPacer()` gave it. */
  url: URL;
  /** How the warning names the setting: `SERVICEAPI_SHARED_PACER_URL` or the client's option. */
  setting: string;
  clock: Clock;
  warn: (message: string) => void;
}

export class RemotePacer implements Pacer {
  readonly #url: URL;
  readonly #setting: string;
  readonly #warn: (message: string) => void;
  readonly #clock: Clock;
  readonly #local: RateLimitPacer;
  // Connections of its own: the client's dispatcher may be a proxy's. No header or body timeout: the
  // answer to `acquire` is held for as long as the pause and the queue before it last. Reports reuse
  // the connections an answer freed, so a 429 reaches the pacer without a new connection's delay.
  readonly #agent = new Agent({ connect: { timeout: 5_000 }, headersTimeout: 0, bodyTimeout: 0 });
  /** Attempts held at the pacer now (at most `MAX_HELD`), and those waiting here for a place, in order. */
  #held = 0;
  readonly #queue: (() => void)[] = [];
  /** Tickets the shared pacer gave; any other came from the local one, after falling back. */
  readonly #remoteTickets = new WeakSet<PaceTicket>();
  /**
   * 429 reports on their way. The next `acquire` waits for them: sent on another connection, it could
   * otherwise reach the pacer first and be let go before the pause it should wait for.
   */
  readonly #limitedReports = new Set<Promise<void>>();
  #alone = false;

  constructor(options: RemotePacerOptions) {
    this.#url = options.url;
    this.#setting = options.setting;
    this.#warn = options.warn;
    this.#clock = options.clock;
    this.#local = new RateLimitPacer(options.clock);
  }

  async acquire(signal?: AbortSignal): Promise<PaceTicket> {
    if (!this.#alone) {
      await Promise.all(this.#limitedReports);
      try {
        for (let asks = 1; ; asks++) {
          const { releasedAt, ...ticket } = await this.#acquireShared(signal);
          const late = releasedAt !== undefined && this.#clock.date() - releasedAt > LATE_MS;
          if (late && asks < MAX_ASKS) continue;
          this.#remoteTickets.add(ticket);
          return ticket;
        }
      } catch (err) {
        if (signal?.aborted) throw signal.reason;
        this.#goAlone(err);
      }
    }
    return this.#local.acquire(signal);
  }

  passed(ticket: PaceTicket): void {
    if (!this.#remoteTickets.has(ticket)) return this.#local.passed(ticket);
    void this.#report("passed", wire(ticket));
  }

  limited(ticket: PaceTicket, waitMs: number, retryAfterMs?: number): void {
    if (!this.#remoteTickets.has(ticket)) return this.#local.limited(ticket, waitMs, retryAfterMs);
    const report = this.#report("limited", { ticket: wire(ticket), waitMs, retryAfterMs }).then((delivered) => {
      // Lost with the pacer: this process's own calls still hold off (episode -1 teaches no pace).
      if (!delivered) this.#local.limited({ episode: -1, sentAt: ticket.sentAt }, waitMs);
      this.#limitedReports.delete(report);
    });
    this.#limitedReports.add(report);
  }

  /** Closes the connections to the pacer, once the attempts held there have been let go. */
  async close(): Promise<void> {
    await this.#agent.close();
  }

  async #acquireShared(signal: AbortSignal | undefined): Promise<z.infer<typeof AcquireAnswer>> {
    await this.#takePlace(signal);
    let res: Dispatcher.ResponseData;
    let text: string;
    try {
      // Aborting the signal closes the connection: the pacer then drops the waiter.
      res = await request(this.#endpoint("acquire"), { method: "POST", dispatcher: this.#agent, signal });
      text = await res.body.text();
    } finally {
      this.#leavePlace();
    }
    if (res.statusCode !== 200) throw new Error(`it answered ${res.statusCode}`);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const answer = AcquireAnswer.safeParse(json);
    if (!answer.success) throw new Error("it answered something other than a ticket");
    return answer.data;
  }

  /** Sends a report; false (and pacing alone from now on) when it did not arrive. Never rejects. */
  async #report(endpoint: "passed" | "limited", body: unknown): Promise<boolean> {
    if (this.#alone) return false;
    try {
      const res = await request(this.#endpoint(endpoint), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
        dispatcher: this.#agent,
        signal: AbortSignal.timeout(REPORT_TIMEOUT_MS),
      });
      await res.body.dump();
      if (res.statusCode !== 204) throw new Error(`it answered ${res.statusCode}`);
      return true;
    } catch (err) {
      this.#goAlone(err);
      return false;
    }
  }

  /** One of the `MAX_HELD` places at the pacer, in arrival order; rejects with the signal's reason if it fires first. */
  async #takePlace(signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) throw signal.reason;
    if (this.#held < MAX_HELD) {
      this.#held += 1;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const enter = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      const onAbort = () => {
        this.#queue.splice(this.#queue.indexOf(enter), 1);
        reject(signal!.reason);
      };
      this.#queue.push(enter);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Hands the place on to the next waiting attempt, if any. */
  #leavePlace(): void {
    const next = this.#queue.shift();
    if (next) next();
    else this.#held -= 1;
  }

  #endpoint(name: PacerEndpoint): URL {
    return new URL(`${this.#url.pathname.replace(/\/+$/, "")}/${name}`, this.#url);
  }

  /** Once per client: the run goes on, paced by this process alone. The URL's path (the secret) is never shown. */
  #goAlone(err: unknown): void {
    if (this.#alone) return;
    this.#alone = true;
    const secret = this.#url.pathname.replace(/^\/+|\/+$/g, "");
    const detail = describe(err);
    this.#warn(
      `the shared rate-limit pacer at ${this.#url.origin} (${this.#setting}) is unreachable: ` +
        `${secret ? detail.replaceAll(secret, "…") : detail}; this process paces its requests alone from now on, ` +
        `so parallel runs may be refused (429) more often. Check that the tool that started the pacer is still running, or unset ${this.#setting}.`,
    );
  }
}

function wire(ticket: PaceTicket): PaceTicket {
  return { episode: ticket.episode, sentAt: ticket.sentAt };
}

/** One line for a failure: a connection error's (or a driver's) message, its first line, or its code when it has no message. */
export function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as { code?: unknown }).code;
  return (err.message || (typeof code === "string" ? code : err.name)).split("\n")[0]!;
}
