/** Programmatic entry point: `const sim = await startSimulator({ port: 0 })`. */
import type { AddressInfo, Socket } from "node:net";
import { SYSTEM_CLOCK, type SimulatorClock } from "./clock";
import type { SiteRecord } from "./database";
import type { FaultSpec, Fault } from "./faults";
import type { RateLimitSpec } from "./rate-limit";
import { DEFAULT_TOKEN, defaultSeed, loadSeedFile, parseSeed, type NewSite, type Seed } from "./seed";
import { addSite } from "./control";
import type { LoggedRequest } from "./request-log";
import { buildServer } from "./server";
import { SimulatorState } from "./state";
import { Database, type StoredProduct, type StoredTask } from "./database";

export interface SimulatorOptions {
  /** 0 picks a free port. Default 8787. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Records to start from; default is the built-in seed. */
  seed?: Seed;
  /** A JSON seed file (ignored when `seed` is given). */
  seedFile?: string;
  /** SQLite file that keeps state across restarts; in memory when omitted. */
  dataFile?: string;
  /** An extra token with access to every workspace. */
  token?: string;
  /** Page size when a list call gives no `limit`. Default 20. */
  defaultPageSize?: number;
  /** Requests kept in the log. Default 10000. */
  requestLogLimit?: number;
  /** Longest time a request's headers and body may take to arrive, in ms. Default 10000. */
  requestTimeoutMs?: number;
  /** Base of the `doc_url` in error envelopes. Default: the URL the simulator listens on. */
  publicUrl?: string;
  /**
   * The simulator's time (rate-limit windows, `createdAt`/`updatedAt`, `nextRunAt`, the request
   * log), for tests at a chosen instant or with scaled-down time. Default: the real clock.
   */
  clock?: SimulatorClock;
}

export interface Simulator {
  /** Base URL for both path prefixes, e.g. `http://127.0.0.1:8787`. */
  url: string;
  port: number;
  /** A token with access to every workspace. */
  token: string;
  seed: Seed;
  addFault(spec: FaultSpec): Fault;
  clearFaults(): void;
  setRateLimit(spec: RateLimitSpec | undefined): void;
  requests(operation?: string): LoggedRequest[];
  clearRequests(): void;
  /**
   * Client connections open now. A client killed mid-request may have written requests the
   * simulator has not read yet; once its connections are closed, every byte it sent has been read
   * (a test waits for 0 before it changes the faults those requests would meet).
   */
  openConnections(): number;
  /** Adds a site as if created elsewhere (sites cannot be created through the API); checked like the HTTP route. */
  addSite(site: NewSite): SiteRecord;
  /** How many products and tasks exist (the API has no call that lists them). */
  counts(): { products: number; tasks: number };
  /** Every product, oldest first, with its project (also `GET /_simulator/products`). */
  products(): StoredProduct[];
  /** Every task, oldest first, with its project, prompt and scheduledAt (also `GET /_simulator/tasks`). */
  tasks(): StoredTask[];
  reset(): void;
  /** Stops listening, then closes the store (every acknowledged write is on disk). */
  close(): Promise<void>;
}

export const DEFAULT_PAGE_SIZE = 20;
/** Requests kept in the request log. */
export const DEFAULT_REQUEST_LOG_LIMIT = 10_000;
/** Longest time a request's headers and body may take to arrive. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const seed = options.seed
    ? parseSeed(options.seed, "passed as `seed`")
    : options.seedFile
      ? loadSeedFile(options.seedFile)
      : defaultSeed();
  const store = new Database(options.dataFile ?? ":memory:", seed);
  const token = options.token ?? (seed.tokens.some((t) => t.token === DEFAULT_TOKEN) ? DEFAULT_TOKEN : seed.tokens[0]!.token);
  const extraToken = options.token;
  const state = new SimulatorState({
    store,
    seed,
    extraToken,
    defaultPageSize: options.defaultPageSize ?? DEFAULT_PAGE_SIZE,
    requestLogLimit: options.requestLogLimit ?? DEFAULT_REQUEST_LOG_LIMIT,
    requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    clock: options.clock ?? SYSTEM_CLOCK,
  });
  const app = buildServer(state);
  let connections = 0;
  app.server.on("connection", (socket: Socket) => {
    connections += 1;
    socket.once("close", () => (connections -= 1));
  });
  try {
    await app.listen({ port: options.port ?? 8787, host: options.host ?? "127.0.0.1" });
  } catch (err) {
    store.close();
    throw err;
  }
  const address = app.server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  state.publicUrl = (options.publicUrl ?? url).replace(/\/+$/, "");
  let closed = false;
  return {
    url,
    port: address.port,
    token,
    seed,
    addFault: (spec) => state.faults.add(spec),
    clearFaults: () => state.faults.clear(),
    setRateLimit: (spec) => state.rateLimiter.set(spec),
    requests: (operation) => state.requestLog.list(operation),
    clearRequests: () => state.requestLog.clear(),
    openConnections: () => connections,
    addSite: (site) => addSite(state, site),
    counts: () => ({ products: store.countProducts(), tasks: store.countTasks() }),
    products: () => store.allProducts(),
    tasks: () => store.allTasks(),
    reset: () => state.reset(),
    close: async () => {
      if (closed) return;
      closed = true;
      await app.close();
      store.close();
    },
  };
}

export { DEFAULT_TOKEN, ACME_ONLY_TOKEN, READ_ONLY_TOKEN, DEFAULT_IDS, defaultSeed, seedId, type Seed } from "./seed";
export type { LoggedRequest } from "./request-log";
export type { StoredProduct, StoredTask } from "./database";
export type { FaultSpec, Fault } from "./faults";
export type { RateLimitSpec } from "./rate-limit";
export type { SimulatorClock } from "./clock";
