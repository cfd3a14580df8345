import { createServer, type AddressInfo } from "node:net";
import { request } from "undici";
import { afterAll, onTestFinished } from "vitest";
import { API_VERSION, OPERATIONS, ServiceApiClient, type ClientOptions, type LogEvent } from "../provider/client";
import { PRODUCT_FIELD_NAMES, PRODUCT_FIELD_SPECS, type ProductField, type ProductSpecs } from "../provider/contract/schemas";
import { startSimulator, type Simulator, type SimulatorOptions } from "pulumi-serviceapi-simulator";

import { VirtualClock } from "./support/virtual-clock";

export { rejectionOf, until } from "../scripts/engine/async";
export { VirtualClock } from "./support/virtual-clock";

/** Every nullable field of the contract's product table, as null: what a record holds for a field never set. */
export const NULL_PRODUCT_FIELDS = Object.fromEntries(
  PRODUCT_FIELD_NAMES.filter((field) => PRODUCT_FIELD_SPECS[field].nullable).map((field) => [field, null]),
) as { [K in ProductField as ProductSpecs[K]["nullable"] extends true ? K : never]: null };

/**
 * A product record as the service sends it, built from the contract's field table (null where a field
 * is nullable, the table's first example otherwise) with `over` on top: a fixture that a field added
 * to the table cannot make stale.
 */
export function productRecord(over: Record<string, unknown> = {}): Record<string, unknown> {
  const fields = Object.fromEntries(
    PRODUCT_FIELD_NAMES.map((field) => [field, PRODUCT_FIELD_SPECS[field].nullable ? null : PRODUCT_FIELD_SPECS[field].examples[0]]),
  );
  return { object: "product", id: "0b3f2a8e-5b7c-4f1e-9a6d-2c4e8f0a1b3d", type: "digital", ...fields, ...over };
}

/**
 * A loopback port nothing listens on: one the system just handed out and took back. Never a fixed
 * one such as 1: on a shared machine another user's server may be listening there (root may bind it).
 */
export async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Simulators started outside a test (in a `beforeAll`), for the file's tests. */
const forFile: Simulator[] = [];

afterAll(async () => {
  await Promise.all(forFile.splice(0).map((s) => s.close()));
});

/**
 * A simulator on a free loopback port. Started in a test, it is closed when that test ends;
 * started in a `beforeAll` (the engine tests run several CLI commands against one), when the
 * file's tests are done.
 */
export async function simulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const sim = await startSimulator({ port: 0, ...options });
  try {
    onTestFinished(() => sim.close());
  } catch {
    // vitest refuses onTestFinished outside a test: this simulator serves the whole file.
    forFile.push(sim);
  }
  // On a virtual clock, the simulator's time stands still while a request to it is unanswered.
  if (options.clock instanceof VirtualClock) options.clock.watch(sim.url);
  return sim;
}

/**
 * A client for `sim` with fast retries, closed after the test; its log events are collected in `events`.
 * On a `VirtualClock`, the clock's time stands still while a request to `sim` is unanswered.
 */
export function clientFor(sim: Simulator, options: ClientOptions = {}): { client: ServiceApiClient; events: LogEvent[] } {
  const events: LogEvent[] = [];
  const client = new ServiceApiClient({
    baseUrl: sim.url,
    token: sim.token,
    initialRetryDelayMs: 10,
    maxRetryDelayMs: 50,
    logger: (e) => events.push(e),
    ...options,
  });
  // Per test, not a module-level afterEach: under the unit tier's `isolate: false` this module is
  // loaded once per worker, and its hooks would belong to the first file only.
  onTestFinished(() => client.close());
  if (options.clock instanceof VirtualClock) options.clock.watch(sim.url);
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
  const op = Object.values(OPERATIONS).find(
    (spec) => spec.method === method && new RegExp(`^${spec.path.replace(/\{\w+\}/g, "[^/]+")}$`).test(bare),
  );
  return op?.version ?? API_VERSION;
}

export function envelope(code: string, message: string, sim: Simulator) {
  return { error: { code, message, doc_url: `${sim.url}/_simulator/errors/${code}` } };
}

/** The engine's `configure()` request for a dynamic provider, from plain stack config values. */
export function configureRequest(values: Record<string, string>): {
  config: { get(key: string): string | undefined; require(key: string): string };
} {
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
