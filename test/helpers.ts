import { request } from "undici";
import { afterEach } from "vitest";
import { API_VERSION, OPERATIONS, ServiceApiClient, type ClientOptions, type LogEvent } from "../src";
import { startSimulator, type Simulator, type SimulatorOptions } from "../simulator";

const running: Simulator[] = [];
const clients: ServiceApiClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(running.splice(0).map((s) => s.close()));
});

/** A simulator on a free loopback port, closed after the test. */
export async function simulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const sim = await startSimulator({ port: 0, ...options });
  running.push(sim);
  return sim;
}

/** A client for `sim` with fast retries, closed after the test; its log events are collected in `events`. */
export function clientFor(sim: Simulator, options: ClientOptions = {}): { client: ServiceApiClient; events: LogEvent[] } {
  const events: LogEvent[] = [];
  const client = new ServiceApiClient({
    baseUrl: sim.url, token: sim.token, initialRetryDelayMs: 10, maxRetryDelayMs: 50,
    logger: (e) => events.push(e), ...options,
  });
  clients.push(client);
  return { client, events };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** A request that bypasses the client, to test what the simulator itself enforces. */
export async function raw(
  sim: Simulator,
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE",
  path: string,
  opts: { version?: string | null; token?: string | null; body?: unknown; rawBody?: string | Buffer; contentType?: string } = {},
): Promise<RawResponse> {
  const headers: Record<string, string> = {};
  const token = opts.token === undefined ? sim.token : opts.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const version = opts.version === undefined ? defaultVersion(method, path) : opts.version;
  if (version !== null) headers["service-api-version"] = version;
  let body: string | Buffer | undefined = opts.rawBody;
  if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined) headers["content-type"] = opts.contentType ?? "application/json";
  const res = await request(`${sim.url}${path}`, { method, headers, body });
  const text = await res.body.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // keep text
  }
  return { status: res.statusCode, headers: res.headers, body: parsed };
}

/** The version the operation at `method path` accepts, from the operations table. */
function defaultVersion(method: string, path: string): string {
  const bare = path.split("?")[0]!;
  const op = Object.values(OPERATIONS).find((spec) =>
    spec.method === method && new RegExp(`^${spec.path.replace(/\{\w+\}/g, "[^/]+")}$`).test(bare));
  return op?.version ?? API_VERSION;
}

export function envelope(code: string, message: string, sim: Simulator) {
  return { error: { code, message, doc_url: `${sim.url}/_simulator/errors/${code}` } };
}

/** The engine's `configure()` request for a dynamic provider, from plain stack config values. */
export function configureRequest(values: Record<string, string>): { config: { get(key: string): string | undefined; require(key: string): string } } {
  return {
    config: {
      get: (key) => values[key],
      require: (key) => {
        const value = values[key];
        if (value === undefined) throw new Error(`Missing required configuration key: ${key}`);
        return value;
      },
    },
  };
}

/** What a promise rejected with; fails the test if it fulfilled instead. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the promise to reject, but it fulfilled");
}
