import { FaultQueue, RateLimiter } from "./faults";
import type { Seed } from "./seed";
import type { LoggedRequest } from "./server";
import type { Store } from "./store";

/** Everything one running simulator holds. */
export class SimulatorState {
  readonly faults = new FaultQueue();
  readonly rateLimiter = new RateLimiter();
  readonly requestLog: LoggedRequest[] = [];
  nextRequestId = 1;

  constructor(
    readonly store: Store,
    readonly seed: Seed,
    /** A token from `--token`, allowed into every workspace, on top of the seed's tokens. */
    readonly extraToken: string | undefined,
    readonly defaultPageSize: number,
    readonly requestLogLimit: number,
  ) {}

  workspacesOf(token: string): Set<string> | undefined {
    if (this.extraToken !== undefined && token === this.extraToken) return new Set(this.store.workspaceIds());
    return this.store.workspacesOf(token);
  }

  /** Back to the seed: records, faults, rate limit and request log. */
  reset(): void {
    this.store.reset(this.seed);
    this.faults.clear();
    this.rateLimiter.set(undefined);
    this.requestLog.length = 0;
  }
}
