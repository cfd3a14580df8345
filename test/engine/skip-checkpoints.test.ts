/**
 * What `PULUMI_SKIP_CHECKPOINTS=true` costs with this package (docs/scale.md). It makes a large
 * `up` faster by writing the state once, at the end, instead of at every step — so a run killed
 * before the end records nothing: not the products it created, not even that creates were in
 * flight. The service cannot tell a repeated POST from a new product, so the next `up` creates
 * every one of them again. The same kill with checkpoints leaves them in the state (or pending,
 * with the `created` lines to adopt them by — interrupted.test.ts).
 */
import { beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_IDS } from "../../simulator/seed";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { createdInOutput, engineSuite, killedUp, step } from "./suite";
import { ENGINE_TIMEOUT_MS, catalog, type EngineStack } from "../../scripts/engine/driver";

const project = DEFAULT_IDS.acmeDocs;

describe("PULUMI_SKIP_CHECKPOINTS and a killed pulumi up", { timeout: ENGINE_TIMEOUT_MS * 2 }, () => {
  const suite = engineSuite();
  let sim: Simulator;
  beforeEach(() => {
    sim = suite.sim();
  });

  const onService = (prefix: string) => sim.products().filter((p) => p.title.startsWith(`${prefix} `));
  const productsInState = async (engine: EngineStack) =>
    ((await engine.deployment()).resources ?? []).filter((r) => r.type.endsWith(":Product"));

  /** `pulumi up` of 30 products, killed (the whole job, as a lost runner) once 10 are made and the next hang. */
  async function killed30(engine: EngineStack, prefix: string): Promise<Map<string, string>> {
    await engine.setSpec(catalog(project, 30, prefix));
    const output = await killedUp(engine, sim, 10);
    // A kill during a state write can leave the file backend's `.attrs` empty: docs/recovery.md's fix.
    engine.repairEmptyAttrs();
    expect(onService(prefix)).toHaveLength(10);
    return createdInOutput(output);
  }

  it("with it, the state records none of the 10 products the killed run made, and the next up makes all 30 again: 10 duplicates", async () => {
    const engine = await suite.newStack({ env: { PULUMI_SKIP_CHECKPOINTS: "true" } });
    await killed30(engine, "skipped");

    await step("the state after the kill", async () => {
      const deployment = await engine.deployment();
      expect(await productsInState(engine)).toEqual([]);
      // Not even pending operations: nothing tells the next run that creates were made.
      expect(deployment.pending_operations ?? []).toEqual([]);
    });

    await step("the next run, as a re-run CI job does it", async () => {
      expect(await engine.spawnCli(["cancel", "--yes"]).exited).toBe(0);
      const up = await engine.up();
      expect(up.result.summary.resourceChanges).toMatchObject({ create: 31 });
      // On failure, every create the service heard (status, title): a 41st once seen in CI — which run sent it, and was it a retry?
      const creates = sim.requests("products.create").map((r) => `${r.status} ${(r.body as { title?: string } | null)?.title}`);
      expect(onService("skipped"), `creates heard: ${JSON.stringify(creates)}`).toHaveLength(40);
      expect(new Set(onService("skipped").map((p) => p.title)).size).toBe(30);
    });
  });

  it("without it (the default), the same kill leaves the made products in the state and the rest pending: nothing is made twice", async () => {
    const engine = await suite.newStack();
    const named = await killed30(engine, "checkpointed");
    const recorded = await productsInState(engine);
    // Each create is recorded when it returns; a kill can lose at most the last few writes,
    // and those are named in the killed run's output.
    expect(recorded.length).toBeGreaterThan(0);
    expect((await engine.deployment()).pending_operations?.length ?? 0).toBeGreaterThan(0);

    expect(await engine.spawnCli(["cancel", "--yes"]).exited).toBe(0);
    expect(await engine.spawnCli(["refresh", "--clear-pending-creates", "--yes", "--non-interactive"]).exited).toBe(0);
    const inStack = new Set((await productsInState(engine)).map((r) => r.id));
    const spec = catalog(project, 30, "checkpointed");
    for (const [name, id] of named) if (!inStack.has(id)) spec.products![name]!.adoptId = id;
    await engine.setSpec(spec);
    await engine.up();
    expect(onService("checkpointed")).toHaveLength(30);
    expect(new Set(onService("checkpointed").map((p) => p.title)).size).toBe(30);
  });
});
