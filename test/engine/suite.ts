import { mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll } from "vitest";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { simulator } from "../helpers";
import { until } from "../../scripts/engine/async";
import { EngineStack, pulumiCli } from "../../scripts/engine/driver";
import { killTree } from "../../scripts/engine/processes";

/**
 * For a describe block whose tests each use their own stack: gets the CLI (a build can take
 * minutes, so outside any test's timeout), starts one simulator, and returns both accessors.
 */
export function engineSuite(defaults: StackOptions = {}): { sim: () => Simulator; newStack: ReturnType<typeof stackPerTest> } {
  let sim: Simulator | undefined;
  beforeAll(async () => {
    await pulumiCli();
    sim = await simulator();
  }, 30 * 60_000);
  const current = () => sim!;
  return { sim: current, newStack: stackPerTest(current, defaults) };
}

/**
 * A scratch folder for the file, removed after its tests. Removed without blocking and with minutes
 * to do it: it may hold a clone and its node_modules, and a busy CI disk once took longer than the
 * 20 s a hook gets to delete one in a single synchronous call.
 */
export function scratchFolder(prefix: string): string {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rm(folder, { recursive: true, force: true, maxRetries: 3 }), 5 * 60_000);
  return folder;
}

/**
 * Two accounts, each its own service with its own token ("acme", the default provider's, and
 * "globex", for an explicit provider), and a fresh stack per test configured for acme.
 */
export function twoAccountsSuite(): { acme: () => Simulator; globex: () => Simulator; newStack: ReturnType<typeof stackPerTest> } {
  let acme: Simulator | undefined;
  let globex: Simulator | undefined;
  beforeAll(async () => {
    await pulumiCli();
    acme = await simulator({ token: "acme_token_0001" });
    globex = await simulator({ token: "globex_token_0002" });
  }, 30 * 60_000);
  return { acme: () => acme!, globex: () => globex!, newStack: stackPerTest(() => acme!) };
}

type StackOptions = NonNullable<Parameters<typeof EngineStack.create>[1]>;

/**
 * A fresh stack per test: returns a function that creates one (`defaults` under the options it is
 * given); after each test it is disposed and the simulator's faults and rate limit are cleared.
 */
export function stackPerTest(sim: () => Simulator, defaults: StackOptions = {}): (options?: StackOptions) => Promise<EngineStack> {
  let current: EngineStack | undefined;
  afterEach(async () => {
    sim().clearFaults();
    sim().setRateLimit(undefined);
    await current?.dispose();
    current = undefined;
  });
  return async (options) => (current = await EngineStack.create(sim(), { ...defaults, ...options }));
}

/** Logical name → id, from every `serviceapi: created Product "<name>" <id>` line in a run's output. */
export function createdInOutput(output: string): Map<string, string> {
  return new Map([...output.matchAll(/serviceapi: created Product "([^"]+)" ([0-9a-f-]{36})/g)].map((m) => [m[1]!, m[2]!]));
}

/**
 * `pulumi up` killed as a lost runner is (SIGKILL to the CLI and every process under it): the first
 * `made` creates go through, the next hang unprocessed on the simulator, and the kill comes once the
 * output names all `made` and a create is hanging. Returns the killed run's output; faults are cleared
 * once the simulator has read all the killed run sent (it must have no other client then).
 */
export async function killedUp(engine: EngineStack, sim: Simulator, made: number): Promise<string> {
  sim.addFault({ operation: "products.create", kind: "delay", delayMs: 0, times: made });
  sim.addFault({ operation: "products.create", kind: "hang", times: 1000 });
  const run = engine.spawnCli(["up", "--yes", "--non-interactive"]);
  await until(`${made} created lines`, () => createdInOutput(run.output()).size === made);
  await until("the next creates to hang", () => sim.requests("products.create").some((r) => r.status === null));
  killTree(run.child.pid!);
  await run.exited;
  // A create the killed provider wrote just before it died may still be unread in the simulator's
  // socket buffer: cleared faults would let it through (a product the test never counted — seen once
  // in CI). Once the killed processes' connections are closed, everything they sent has been read
  // and every held create dropped.
  await until("the killed run's connections to close", () => sim.openConnections() === 0);
  await until("its held creates to be dropped", () => sim.requests("products.create").every((r) => r.status !== null));
  sim.clearFaults();
  return run.output();
}

/**
 * One step of an ordered scenario inside a single test (terraform-provider-tfe's acceptance-test
 * steps): each runs after the one before, against the same stack, and a failure names its step.
 * A scenario is one test, so no test depends on another having run, or on the order they run in.
 */
export async function step<T>(name: string, run: () => Promise<T> | T): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof Error) error.message = `step "${name}": ${error.message}`;
    throw error;
  }
}

/** The products `pulumi up` of examples/catalog-pulumi-yaml makes, by title. */
export const CATALOG_EXAMPLE_TITLES = ["Legacy basic plan", "Pro plan", "Starter plan"];

/** The titles of the service's products (those `which` keeps, if given), sorted. */
export function productTitles(
  sim: Simulator,
  which: (product: ReturnType<Simulator["products"]>[number]) => boolean = () => true,
): string[] {
  return sim
    .products()
    .filter(which)
    .map((p) => p.title)
    .sort();
}

/** A Pulumi YAML program of `count` products through the plugin, titled `<prefix> <n>`. */
export function yamlProducts(project: string, count: number, prefix: string): string {
  const resources = Array.from(
    { length: count },
    (_, i) => `  p${i}:\n    type: serviceapi:index:Product\n    properties:\n      projectId: ${project}\n      title: ${prefix} ${i}\n`,
  ).join("");
  return `name: ${prefix.toLowerCase().replace(/[^a-z0-9]+/g, "-")}\nruntime: yaml\nresources:\n${resources}`;
}
