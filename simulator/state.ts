import type { Database, SiteRecord } from "./database";
import { FaultQueue } from "./faults";
import { RateLimiter } from "./rate-limit";
import { HttpError } from "./errors";
import { NewSite } from "./seed";
import type { Seed } from "./seed";
import type { LoggedRequest } from "./server";

/** Everything one running simulator holds. */
export class SimulatorState {
  readonly faults = new FaultQueue();
  readonly rateLimiter = new RateLimiter();
  readonly requestLog: LoggedRequest[] = [];
  nextRequestId = 1;
  /** Where error envelopes' `doc_url` points: the configured public URL, never a request's Host header. */
  publicUrl = "http://127.0.0.1";

  constructor(
    readonly store: Database,
    readonly seed: Seed,
    /** A token from `--token`, allowed into every workspace, on top of the seed's tokens. */
    readonly extraToken: string | undefined,
    readonly defaultPageSize: number,
    readonly requestLogLimit: number,
    /** Longest time a request's headers and body may take to arrive. */
    readonly requestTimeoutMs: number,
  ) {}

  workspacesOf(token: string): Set<string> | undefined {
    if (this.extraToken !== undefined && token === this.extraToken) return new Set(this.store.workspaceIds());
    return this.store.workspacesOf(token);
  }

  /** Adds a site as if made elsewhere: checked like the seed (project exists, name 1–255 characters, unique id). */
  addSite(input: NewSite): SiteRecord {
    const parsed = NewSite.safeParse(input);
    if (!parsed.success) throw new HttpError("invalid_request", parsed.error.issues.map((i) => `${i.path.join(".")} ${i.message}`).join("; "));
    const site = parsed.data;
    if (!this.store.getProject(site.projectId)) throw new HttpError("not_found", `project ${site.projectId} not found`);
    if (site.id !== undefined && this.store.getSite(site.id)) throw new HttpError("invalid_request", `site ${site.id} already exists`);
    return this.store.addSite(site);
  }

  /** Back to the seed: records, faults, rate limit and request log. */
  reset(): void {
    this.store.reset(this.seed);
    this.faults.clear();
    this.rateLimiter.set(undefined);
    this.requestLog.length = 0;
  }
}
