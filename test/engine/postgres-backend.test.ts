/**
 * The team backend: Pulumi's state in PostgreSQL (`PULUMI_BACKEND_URL=postgres://…`), a real server
 * started by scripts/postgres.sh, the real CLI, the simulator. What a pipeline meets there:
 *  - two `pulumi up` of one stack at once (two merges racing): the second is refused by the lock
 *    with Pulumi's message, the first finishes, and the service has every product once;
 *  - `pulumi up` killed with SIGKILL (a lost runner): the recovery in docs/recovery.md works as with
 *    the file backend — `pulumi cancel`, `pulumi refresh --clear-pending-creates`, `adoptId` for
 *    what the stack lacks — and ends with every product once.
 * The quick start's up / one-field change / drift gate / destroy on PostgreSQL is in gitops.test.ts.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_IDS } from "../../simulator/seed";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { until } from "../../scripts/engine/async";
import { createdInOutput, engineSuite, killedUp, step } from "./suite";
import { postgresForSuite } from "./postgres";
import { ENGINE_TIMEOUT_MS, catalog } from "../../scripts/engine/driver";

const project = DEFAULT_IDS.acmeDocs;

/** Pulumi's words when a stack's lock is held (the DIY backends, PostgreSQL included). */
const LOCKED =
  "error: the stack is currently locked by 1 lock(s). Either wait for the other process(es) to end or delete the lock file with `pulumi cancel`.";

describe("state in PostgreSQL", { timeout: ENGINE_TIMEOUT_MS * 2 }, () => {
  const postgres = postgresForSuite();
  const suite = engineSuite();
  let sim: Simulator;
  beforeEach(() => {
    sim = suite.sim();
  });

  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const onService = (prefix: string) => sim.products().filter((p) => p.title.startsWith(`${prefix} `));

  it("two `pulumi up` of one stack at once: the second is refused by the lock, the first completes, 0 duplicates", async () => {
    const engine = await suite.newStack({ env: { PULUMI_BACKEND_URL: postgres.backend("race") } });
    await engine.setSpec(catalog(project, 20, "race"));
    // Slow creates keep the first `up` inside its update — holding the lock — while the second starts.
    sim.addFault({ operation: "products.create", kind: "delay", delayMs: 1500, times: 1000 });

    const first = engine.spawnCli(["up", "--yes", "--non-interactive"]);
    await until("the first up's first create", () => sim.requests("products.create").length > 0);
    const second = engine.spawnCli(["up", "--yes", "--non-interactive"]);

    const refused = await step("the second up", async () => {
      expect(await second.exited).toBe(1);
      return second.output();
    });
    // The whole output: Pulumi's message, then the lock's key, credentials masked, naming the first up's process.
    expect(refused.trim()).toMatch(
      new RegExp(
        `^${escape(LOCKED)}\\n  postgres://\\*{4}:\\*{4}@127\\.0\\.0\\.1:\\d+/pulumi/\\.pulumi/locks/organization/engine/test/[0-9a-f-]{36}\\.json` +
          `\\?sslmode=disable&table=race: created by \\S+ \\(pid ${first.child.pid}\\) at \\S+$`,
      ),
    );
    // Refused before its program ran: no request of its own reached the service.
    expect(createdInOutput(refused).size).toBe(0);

    await step("the first up", async () => {
      expect(await first.exited).toBe(0);
      sim.clearFaults();
    });

    await step("afterwards: state and service agree, every product once", async () => {
      const inState = ((await engine.deployment()).resources ?? []).filter((r) => r.type.endsWith(":Product"));
      expect(inState).toHaveLength(20);
      expect(onService("race")).toHaveLength(20);
      expect(new Set(inState.map((r) => r.id))).toEqual(new Set(onService("race").map((p) => p.id)));
      // The second merge's deploy, re-run: nothing left to do.
      const rerun = await engine.up();
      expect(rerun.result.summary.resourceChanges).toEqual({ same: 21 });
      expect(onService("race")).toHaveLength(20);
    });
  });

  it("SIGKILL of the whole job: the recovery in docs/recovery.md works as with the file backend, 0 duplicates", async () => {
    const engine = await suite.newStack({ env: { PULUMI_BACKEND_URL: postgres.backend("killed") } });
    const prefix = "pgkill";
    await engine.setSpec(catalog(project, 40, prefix));
    // 15 creates go through; the rest hang, unprocessed, until the client is gone.
    const output = await killedUp(engine, sim, 15);

    const named = createdInOutput(output);
    expect(onService(prefix)).toHaveLength(15);
    expect(new Set(named.values())).toEqual(new Set(onService(prefix).map((p) => p.id)));

    await step("the lock is left: the next up is refused; pulumi cancel releases it", async () => {
      const locked = engine.spawnCli(["up", "--yes", "--non-interactive"]);
      expect(await locked.exited).toBe(1);
      expect(locked.output()).toContain(LOCKED);
      expect(await engine.spawnCli(["cancel", "--yes"]).exited).toBe(0);
    });

    await step("pending creates are left: refresh --clear-pending-creates clears them", async () => {
      expect((await engine.deployment()).pending_operations?.length ?? 0).toBeGreaterThan(0);
      expect(await engine.spawnCli(["refresh", "--clear-pending-creates", "--yes", "--non-interactive"]).exited).toBe(0);
      expect((await engine.deployment()).pending_operations ?? []).toEqual([]);
    });

    await step("adoptId for what the stack lacks, then up: 40 products, each once", async () => {
      const inStack = new Set(((await engine.deployment()).resources ?? []).map((r) => r.id));
      const spec = catalog(project, 40, prefix);
      for (const [name, id] of named) if (!inStack.has(id)) spec.products![name]!.adoptId = id;
      await engine.setSpec(spec);
      await engine.up();
      expect(onService(prefix)).toHaveLength(40);
      expect(new Set(onService(prefix).map((p) => p.title)).size).toBe(40);
      const inState = ((await engine.deployment()).resources ?? []).filter((r) => r.type.endsWith(":Product"));
      expect(new Set(inState.map((r) => r.id))).toEqual(new Set(onService(prefix).map((p) => p.id)));
    });
  });
});
