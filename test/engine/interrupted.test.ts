/**
 * An interrupted `pulumi up`, under the real CLI. SIGINT and SIGTERM (what CI runners send on
 * cancel and timeout): Pulumi finishes the steps in flight, records them, and the next `up`
 * converges with no duplicate. SIGKILL of the whole process group (a lost runner): the killed
 * run's output names the id of every product it made, and the recovery in docs/recovery.md —
 * `pulumi cancel`, `pulumi refresh --clear-pending-creates`, `adoptId` for what the stack lacks —
 * ends with every product once.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_IDS } from "../../simulator/seed";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { until } from "../../scripts/engine/async";
import { createdInOutput, engineSuite, killedUp } from "./suite";
import { ENGINE_TIMEOUT_MS, catalog } from "../../scripts/engine/driver";

const project = DEFAULT_IDS.acmeDocs;

describe("an interrupted pulumi up", { timeout: ENGINE_TIMEOUT_MS * 2 }, () => {
  const suite = engineSuite();
  let sim: Simulator;
  beforeEach(() => {
    sim = suite.sim();
  });

  /** Products of this test's titles on the service. */
  function onService(prefix: string) {
    return sim.products().filter((p) => p.title.startsWith(`${prefix} `));
  }

  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`${signal} mid-create: in-flight creates finish and are recorded; the next up converges with 0 duplicates`, async () => {
      const engine = await suite.newStack();
      const prefix = signal.toLowerCase();
      await engine.setSpec(catalog(project, 40, prefix));
      // Each create is held a second on the service, so creates are in flight when the signal comes.
      sim.addFault({ operation: "products.create", kind: "delay", delayMs: 1000, times: 1000 });
      // At most 4 creates at a time, whatever the machine (Pulumi's default is 4 per CPU, which could be all 40).
      const run = engine.spawnCli(["up", "--yes", "--non-interactive", "--parallel", "4"]);
      const inFlight = () => sim.requests("products.create").filter((r) => r.status === null);
      // The signal comes once 4 creates have reached the service and none has been answered.
      await until("4 creates in flight", () => inFlight().length === 4);
      const interrupted = inFlight().map((r) => (r.body as { title: string }).title);
      process.kill(run.child.pid!, signal);
      expect(await run.exited).not.toBe(0);
      sim.clearFaults();

      const deployment = await engine.deployment();
      expect(deployment.pending_operations ?? []).toEqual([]);
      const recorded = (deployment.resources ?? []).filter((r) => r.type.endsWith(":Product"));
      // Every create in flight at the signal finished and is in the state; the rest were never started.
      expect(recorded.map((r) => r.inputs!.title)).toEqual(expect.arrayContaining(interrupted));
      expect(recorded.length).toBeLessThan(40);
      expect(onService(prefix)).toHaveLength(recorded.length);

      const up = await engine.up();
      expect(up.result.summary.resourceChanges).toMatchObject({ create: 40 - recorded.length });
      expect(onService(prefix)).toHaveLength(40);
    });
  }

  it("SIGKILL of the whole job (the CLI and everything under it): the output names every product made; the documented recovery ends with 0 duplicates", async () => {
    const engine = await suite.newStack();
    const prefix = "kill";
    await engine.setSpec(catalog(project, 40, prefix));
    const stateBefore = engine.stateFileText();
    // 15 creates go through; the rest hang, unprocessed, until the client is gone.
    const output = await killedUp(engine, sim, 15);

    // Every product on the service is named, with its id, in the killed run's output.
    const named = createdInOutput(output);
    const made = onService(prefix);
    expect(made).toHaveLength(15);
    expect(new Set(named.values())).toEqual(new Set(made.map((p) => p.id)));

    // A killed run can lose its last checkpoints; here the state file is put back to what it was
    // before the run, so the stack knows none of the 15 — the case the log lines are for.
    engine.writeStateFile(stateBefore);

    // docs/recovery.md, step by step.
    const locked = engine.spawnCli(["up", "--yes", "--non-interactive"]);
    expect(await locked.exited).not.toBe(0);
    expect(locked.output()).toContain("the stack is currently locked");
    expect(await engine.spawnCli(["cancel", "--yes"]).exited).toBe(0);
    expect(await engine.spawnCli(["refresh", "--clear-pending-creates", "--yes", "--non-interactive"]).exited).toBe(0);
    const inStack = new Set(((await engine.deployment()).resources ?? []).map((r) => r.id));
    const spec = catalog(project, 40, prefix);
    for (const [name, id] of named) if (!inStack.has(id)) spec.products![name]!.adoptId = id;
    expect(Object.values(spec.products!).filter((p) => p.adoptId !== undefined)).toHaveLength(15);
    await engine.setSpec(spec);
    sim.clearRequests();
    const up = await engine.up();
    expect(up.result.summary.resourceChanges).toMatchObject({ create: 41 });
    expect(sim.requests("products.create").filter((r) => r.status === 201)).toHaveLength(25);
    expect(onService(prefix)).toHaveLength(40);
    expect(new Set(onService(prefix).map((p) => p.title)).size).toBe(40);
  });
});
