import { readFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { request } from "undici";
import { afterAll, onTestFinished } from "vitest";
import { API_VERSION, OPERATIONS, ServiceApiClient, type ClientOptions, type LogEvent } from "../provider/client";
import { fieldNames, propertyName, type FieldSpecs } from "../provider/contract/fields";
import {
  PRODUCT_FIELD_NAMES,
  PRODUCT_FIELD_SPECS,
  SITE_FIELD_SPECS,
  TASK_FIELD_SPECS,
  type ProductField,
  type ProductSpecs,
} from "../provider/contract/schemas";
import { startSimulator, type Simulator, type SimulatorOptions } from "pulumi-serviceapi-simulator";

import { REPO } from "../scripts/repo";
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

/** Every field of a contract table with its first example: a whole record's values, for a fixture. */
export function firstExamples(specs: FieldSpecs): Record<string, unknown> {
  return Object.fromEntries(fieldNames(specs).map((field) => [field, specs[field]!.examples[0]]));
}

/** A record of `object` as the service sends it: its kind, its id, and each field of the table a response carries that `values` has. */
function recordOf(object: string, specs: FieldSpecs, id: string, values: Record<string, unknown>): Record<string, unknown> {
  const carried = fieldNames(specs).filter((field) => specs[field]!.record !== undefined && values[field] !== undefined);
  return { object, id: values.id ?? id, ...Object.fromEntries(carried.map((field) => [field, values[field]])) };
}

/**
 * A site record as the service sends it for a site with these `values` (a seeded site, a site given
 * to `sim.addSite`, or by default every field's first example): its kind and id, then each field of
 * the contract's site table `values` has — anything else of them (a seed's `projectId`) left out. A
 * field the table gains changes it without an edit here or in the tests that use it.
 */
export function siteRecord(values: Record<string, unknown> = firstExamples(SITE_FIELD_SPECS)): Record<string, unknown> {
  return recordOf("site", SITE_FIELD_SPECS, "5e1f0a8e-5b7c-4f1e-9a6d-2c4e8f0a1b3d", values);
}

/**
 * A task record as the service sends it for a create with these `values` (the body, and what the
 * service sets: `nextRunAt`, the times; by default every field's first example): its kind and id,
 * then each field of the contract's task table a response carries — not `prompt` or `scheduledAt`,
 * which only the create takes.
 */
export function taskRecord(values: Record<string, unknown> = firstExamples(TASK_FIELD_SPECS)): Record<string, unknown> {
  return recordOf("task", TASK_FIELD_SPECS, "7a8b91c2-0000-4000-8000-0000000000aa", values);
}

/**
 * A site as `getSite` and `getSites` give it for a site with these `values` (as `siteRecord` takes
 * them): its id, and every field of the contract's site table by the resource's name (`isDefault`),
 * `null` where `values` has none.
 */
export function siteInfo(values: Record<string, unknown>): Record<string, unknown> {
  const fields = fieldNames(SITE_FIELD_SPECS).map((field) => [propertyName(field), values[field] ?? null]);
  return { id: values.id, ...Object.fromEntries(fields) };
}

/** What a task's state holds for each field only the service sets (`nextRunAt`, …) when the service reported nothing: null. */
export const NULL_TASK_OUTPUTS = Object.fromEntries(
  fieldNames(TASK_FIELD_SPECS)
    .filter((field) => !("value" in TASK_FIELD_SPECS[field]))
    .map((field) => [propertyName(field), null]),
);

/** docs/resources.md's section of a resource type (`## \`Product\``), or of the data sources (`## Data sources`). */
export function documentedSection(heading: string): string {
  const docs = readFileSync(join(REPO, "docs", "resources.md"), "utf8");
  return docs.slice(docs.indexOf(`## ${heading}`)).split("\n## ")[0]!;
}

/** The rows of the inputs table under `## \`<Type>\``: input name(s) → "Changing it" cell. */
export function documentedInputs(type: string): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of documentedSection(`\`${type}\``).split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    if (!cells[1]?.startsWith("`") || cells[1] === "`Input`") continue;
    for (const name of cells[1].match(/`(\w+)`/g) ?? []) rows.set(name.replaceAll("`", ""), cells[3] ?? "");
  }
  return rows;
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
