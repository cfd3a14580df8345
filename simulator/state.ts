import type { SimulatorClock } from "./clock";
import type { Database } from "./database";
import { FaultQueue } from "./faults";
import { RateLimiter } from "./rate-limit";
import { RequestLog } from "./request-log";
import type { Seed } from "./seed";

export interface SimulatorStateOptions {
  store: Database;
  seed: Seed;
  /** A token from `--token`, allowed into every workspace, on top of the seed's tokens. */
  extraToken: string | undefined;
  defaultPageSize: number;
  requestLogLimit: number;
  /** Longest time a request's headers and body may take to arrive. */
  requestTimeoutMs: number;
  /** Where every time the simulator reads comes from. */
  clock: SimulatorClock;
}

/** Everything one running simulator holds. */
export class SimulatorState {
  readonly faults = new FaultQueue();
  readonly rateLimiter: RateLimiter;
  readonly requestLog: RequestLog;
  readonly clock: SimulatorClock;
  readonly store: Database;
  readonly seed: Seed;
  readonly extraToken: string | undefined;
  readonly defaultPageSize: number;
  readonly requestTimeoutMs: number;
  /** Where error envelopes' `doc_url` points: the configured public URL, never a request's Host header. */
  publicUrl = "http://127.0.0.1";

  constructor(options: SimulatorStateOptions) {
    this.store = options.store;
    this.seed = options.seed;
    this.extraToken = options.extraToken;
    this.defaultPageSize = options.defaultPageSize;
    this.requestTimeoutMs = options.requestTimeoutMs;
    this.clock = options.clock;
    this.rateLimiter = new RateLimiter(options.clock);
    this.requestLog = new RequestLog(options.requestLogLimit, options.clock);
  }

  /** Whether the token may only read (the seed's `readOnly`): its PATCH and POST requests are answered 403. */
  readOnly(token: string): boolean {
    return token !== this.extraToken && this.seed.tokens.some((t) => t.token === token && t.readOnly === true);
  }

  workspacesOf(token: string): Set<string> | undefined {
    if (this.extraToken !== undefined && token === this.extraToken) return new Set(this.store.workspaceIds());
    return this.store.workspacesOf(token);
  }

  /** Back to the seed: records, faults, rate limit and request log. */
  reset(): void {
    this.store.reset(this.seed);
    this.faults.clear();
    this.rateLimiter.set(undefined);
    this.requestLog.clear();
  }
}
