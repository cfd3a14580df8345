/**
 * A `pulumi up` SIGKILLed on its own — a CI job's timeout that kills the step's process, `kill -9`
 * of the CLI — leaves its provider processes with no `pulumi` to serve. Nothing tells them: the
 * engine that would stop them is the process that died. Each provider process is gone within 2 s
 * of the kill, through both faces (the dynamic provider, the plugin), on a busy machine: two CPU
 * burners run through each test (the providers watch their parent: provider/resources/parent-watch.ts).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { DEFAULT_IDS } from "../../simulator/seed";
import { until } from "../../scripts/engine/async";
import { ENGINE_TIMEOUT_MS, catalog, type EngineStack } from "../../scripts/engine/driver";
import { procFile, processTree, processesWithEnv } from "../../scripts/engine/processes";
import { engineSuite, yamlProducts } from "./suite";

const project = DEFAULT_IDS.acmeDocs;
/** The budget a kill leaves its provider processes. */
const GONE_WITHIN_MS = 2000;

function alive(pid: number): boolean {
  return procFile(pid, "stat") !== undefined && !procFile(pid, "stat")!.includes(") Z ");
}

describe("a SIGKILLed pulumi up leaves no provider process behind", { timeout: ENGINE_TIMEOUT_MS }, () => {
  const suite = engineSuite();
  let sim: Simulator;
  let burners: ChildProcess[] = [];
  /** The PULUMI_HOME of the test's stack: every process of its runs carries it. */
  let home: string | undefined;
  beforeEach(() => {
    sim = suite.sim();
    // Both CPUs busy, as on a CI runner running other jobs: the bound must hold there.
    burners = [0, 1].map(() => spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }));
  });
  afterEach(() => {
    for (const burner of burners) burner.kill("SIGKILL");
    // Pulumi's own processes a killed CLI leaves (its language host, the program) are not this package's to stop: ended here.
    if (home !== undefined) for (const { pid } of processesWithEnv("PULUMI_HOME", home)) process.kill(pid, "SIGKILL");
    home = undefined;
    sim.clearFaults();
  });

  async function killMidCreate(engine: EngineStack, provider: RegExp): Promise<{ providers: number[]; goneMs: number; others: string[] }> {
    // The creates hang on the service: the providers are busy serving when the CLI dies.
    sim.addFault({ operation: "products.create", kind: "hang", times: 1000 });
    const run = engine.spawnCli(["up", "--yes", "--non-interactive"]);
    await until("a create to hang", () => sim.requests("products.create").some((r) => r.status === null));
    const providers = processTree(run.child.pid!).filter((pid) => provider.test(procFile(pid, "cmdline") ?? ""));
    expect(providers.length, run.output()).toBeGreaterThan(0);
    home = engine.env.PULUMI_HOME!;
    process.kill(run.child.pid!, "SIGKILL");
    const killed = performance.now();
    await run.exited;
    await until("the provider processes to go", () => providers.every((pid) => !alive(pid)), 30_000);
    const goneMs = performance.now() - killed;
    const others = processesWithEnv("PULUMI_HOME", home).map((p) => p.command);
    return { providers, goneMs, others };
  }

  it("the dynamic provider: gone within 2 s of the kill", async () => {
    const engine = await suite.newStack();
    await engine.setSpec(catalog(project, 4, "orphan dynamic"));
    const { goneMs, others } = await killMidCreate(engine, /cmd\/dynamic-provider/);
    console.log(`dynamic provider gone ${Math.round(goneMs)} ms after the kill; Pulumi's own left then: ${others.length}`);
    expect(goneMs).toBeLessThan(GONE_WITHIN_MS);
  });

  it("the plugin: gone within 2 s of the kill", async () => {
    const engine = await suite.newStack({ yaml: yamlProducts(project, 4, "Orphan plugin"), plugin: true });
    // The launcher execs node on the plugin's build (or its bundle, from a plugin archive).
    const { goneMs, others } = await killMidCreate(engine, /provider\/plugin\/main\.js|serviceapi-plugin\.js/);
    console.log(`plugin gone ${Math.round(goneMs)} ms after the kill; Pulumi's own left then: ${others.length}`);
    expect(goneMs).toBeLessThan(GONE_WITHIN_MS);
  });
});
