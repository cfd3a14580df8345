/**
 * A killed `serviceapi-catalog up` leaves no process behind. SIGKILL goes to the tool's pid alone, as
 * the OOM killer or `kill -9 <pid>` sends it, once the first create has reached the service; the
 * `pulumi` CLI below it then dies of SIGPIPE or lives on, and the plugins it started (each in a
 * process group of its own) would be orphaned — the reaper's watcher (provider/catalog/reaper.ts)
 * kills them. A second Ctrl-C, which leaves at once, is a kill too. The installed bin, the real Pulumi CLI, a file backend and the simulator, as
 * catalog.test.ts runs them. What the stack holds after the kill is recovery's subject
 * (docs/recovery.md), not this file's.
 */
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it, onTestFinished } from "vitest";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { simulator, until } from "../helpers";
import { ENGINE_TIMEOUT_MS, pulumiCli } from "../../scripts/engine/driver";
import { processesWithEnv } from "../../scripts/engine/processes";
import { CatalogUser, type Entry } from "./catalog-support";

/** Marks every process of the run below (inherited from the tool: the CLI, its plugins, the watcher). */
const MARK = "CATALOG_KILL_RUN";

describe("serviceapi-catalog killed mid-up", { timeout: ENGINE_TIMEOUT_MS }, () => {
  // A CLI build can take minutes: outside the tests' timeout.
  beforeAll(() => pulumiCli(), 30 * 60_000);

  /**
   * `up` of 40 products over 2 stacks (`--stack-size 20`) for a user of their own (a backend, a
   * simulator); every create waits 3 s at the service, so the run is surely mid-`up` when it is stopped.
   */
  async function startUp(): Promise<
    ReturnType<CatalogUser["start"]> & { sim: Simulator; ofRun: () => { pid: number; command: string }[] }
  > {
    const sim = await simulator();
    const user = await CatalogUser.create(sim);
    onTestFinished(() => user.dispose());
    user.files["products.yaml"] = Object.fromEntries(
      Array.from({ length: 40 }, (_, n): [string, Entry] => [
        `p${n}`,
        { project: "Acme Web", title: `Product ${n}`, slug: `product-${n}` },
      ]),
    );
    user.writeCatalog();
    sim.addFault({ operation: "products.create", kind: "delay", delayMs: 3_000, times: 40 });
    const run = randomUUID();
    const ofRun = () => processesWithEnv(MARK, run).filter(({ command }) => command !== "");
    return { ...user.start(["up", "--stack-size", "20", "--parallel", "2"], { [MARK]: run }), sim, ofRun };
  }

  /** Once the first create has reached the service: the run's command lines, checked to be what a kill would orphan. */
  async function midUp(sim: Simulator, ofRun: () => { command: string }[]): Promise<string[]> {
    await until("the first create at the service", () => sim.requests("products.create").length > 0, ENGINE_TIMEOUT_MS);
    const alive = ofRun().map(({ command }) => command);
    // What a kill of the tool would leave running without the reaper, and a group kill would miss: the CLIs and their
    // providers (each stack's program runs in the tool's own process, so there is no language host or program process).
    expect(alive.filter((c) => /^pulumi up /.test(c)).length, alive.join("\n")).toBeGreaterThan(0);
    expect(alive.filter((c) => /dynamic-provider/.test(c)).length, alive.join("\n")).toBeGreaterThan(0);
    expect(
      alive.filter((c) => /pulumi-language-nodejs/.test(c)),
      alive.join("\n"),
    ).toEqual([]);
    expect(alive.filter((c) => /reaper-process\.js/.test(c)).length, alive.join("\n")).toBe(1);
    return alive;
  }

  it("SIGKILL to the tool's pid only, once the first create reached the service: soon no process of the run is alive", async () => {
    const { child, run, sim, ofRun } = await startUp();
    const alive = await midUp(sim, ofRun);

    const killedAt = performance.now();
    child.kill("SIGKILL");
    await until("no process of the run alive", () => ofRun().length === 0, 10_000);
    const goneMs = Math.round(performance.now() - killedAt);
    const { code, stderr } = await run;
    expect([child.signalCode, code]).toEqual(["SIGKILL", null]);
    expect(stderr).not.toMatch(/reaper failed|could not start the process reaper/);
    console.log(`serviceapi-catalog killed mid-up: ${alive.length} processes of the run, the last gone ${goneMs} ms after the kill`);
  });

  it("Ctrl-C twice: the first cancels, the second leaves at once with 130, and no process of the run is left", async () => {
    const { child, stderr, run, sim, ofRun } = await startUp();
    await midUp(sim, ofRun);

    child.kill("SIGINT");
    const cancelling = "serviceapi-catalog: cancelling — running stacks are asked to stop; press Ctrl-C again to leave at once";
    await until("the tool cancelling", () => stderr().includes(cancelling), 10_000);
    // The stacks wait for their creates in flight (3 s each) before they stop: the second Ctrl-C comes first.
    expect(ofRun().filter(({ command }) => /dynamic-provider/.test(command)).length).toBeGreaterThan(0);
    child.kill("SIGINT");
    const { code } = await run;
    expect(code).toBe(130);
    await until("no process of the run alive", () => ofRun().length === 0, 10_000);
  });
});
