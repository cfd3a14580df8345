/**
 * Which configuration each command uses, under the real Pulumi CLI — every sentence of
 * docs/resources.md, "Which command uses which configuration".
 *
 * Two simulators share one SQLite file: the same service reached at an old and a new base URL, so
 * every record exists at both and only the request logs tell which one a command used.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { step } from "./suite";
import { startSimulator, type Simulator } from "pulumi-serviceapi-simulator";
import { DEFAULT_IDS } from "../../simulator/seed";
import { ENGINE_TIMEOUT_MS, EngineStack, expectFailure, pulumiCli } from "../../scripts/engine/driver";

const project = DEFAULT_IDS.acmeDocs;

describe("which configuration each command uses", { timeout: ENGINE_TIMEOUT_MS * 2 }, () => {
  let dir: string;
  let oldSim: Simulator;
  let newSim: Simulator;
  let engine: EngineStack;

  beforeAll(async () => {
    await pulumiCli();
    dir = mkdtempSync(join(tmpdir(), "serviceapi-rotation-"));
    oldSim = await startSimulator({ port: 0, dataFile: join(dir, "service.db") });
    newSim = await startSimulator({ port: 0, dataFile: join(dir, "service.db") });
  }, 30 * 60_000);

  afterAll(async () => {
    await engine?.dispose();
    await oldSim?.close();
    await newSim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs one command and returns the operations each base URL received. */
  async function used(command: () => Promise<unknown>): Promise<{ old: string[]; new: string[] }> {
    oldSim.clearRequests();
    newSim.clearRequests();
    await command();
    const ops = (sim: Simulator) =>
      sim
        .requests()
        .map((r) => r.operation ?? "?")
        .sort();
    return { old: ops(oldSim), new: ops(newSim) };
  }

  async function pointAt(sim: Simulator): Promise<void> {
    await engine.stack.setConfig("serviceapi:baseUrl", { value: sim.url });
  }

  /** `pulumi up` with `sim`'s URL (recorded in the state), then the stack config points at `next`. */
  async function recordThenMove(sim: Simulator, next: Simulator): Promise<void> {
    await pointAt(sim);
    await engine.up();
    await pointAt(next);
  }

  it("each command, in order: a moved baseUrl, a rotated token, productRefresh changed, a token only in the environment", async () => {
    await step(
      "baseUrl changed after the last up: refresh, destroy and the --refresh step use the recorded one; --run-program and up the current one",
      async () => {
        engine = await EngineStack.create(oldSim);
        await engine.setSpec({ products: { p: { projectId: project, title: "Rotation" } }, lookups: { projectName: "Acme Docs" } });
        await recordThenMove(oldSim, newSim);

        expect(await used(() => engine.refresh())).toEqual({ old: ["products.update"], new: [] });
        // The refresh step reads with the recorded configuration; the program (its data source) runs with the current one.
        expect(await used(() => engine.preview({ refresh: true }))).toEqual({ old: ["products.update"], new: ["projects.list"] });
        expect(await used(() => engine.preview({ refresh: true, runProgram: true }))).toEqual({
          old: [],
          new: ["products.update", "projects.list"],
        });
        expect(await used(() => engine.preview())).toEqual({ old: [], new: ["projects.list"] });
        expect(await used(() => engine.destroy())).toEqual({ old: ["products.update"], new: [] });

        await recordThenMove(oldSim, newSim);
        expect(await used(() => engine.destroy({ runProgram: true }))).toEqual({ old: [], new: ["products.update", "projects.list"] });

        // `refresh --run-program` uses the current configuration and records it: later commands use it too.
        await recordThenMove(oldSim, newSim);
        expect(await used(() => engine.refresh({ runProgram: true }))).toEqual({ old: [], new: ["products.update", "projects.list"] });
        expect(await used(() => engine.refresh())).toEqual({ old: [], new: ["products.update"] });

        // So does `up`, even when nothing else changes.
        await engine.refresh({ runProgram: true });
        await pointAt(oldSim);
        expect(await used(() => engine.up())).toEqual({ old: ["projects.list"], new: [] });
        expect(await used(() => engine.refresh())).toEqual({ old: ["products.update"], new: [] });
      },
    );

    await step(
      "a rotated token in stack config: refresh keeps the recorded one; --run-program uses the new one, and a 401 says why",
      async () => {
        await recordThenMove(newSim, newSim);
        await engine.stack.setConfig("serviceapi:token", { value: "revoked_token_0001", secret: true });
        expect(await used(() => engine.refresh())).toEqual({ old: [], new: ["products.update"] });
        const failed = await expectFailure(engine.refresh({ runProgram: true }));
        expect(failed.text).toContain("401 unauthorized");
        // --run-program reads the stack config as it is now; the read is not told so, and its advice names both cases.
        expect(failed.text).toContain(
          "The service refused the token: it is serviceapi:token, as recorded at the last `pulumi up` for `pulumi refresh`, " +
            "`pulumi destroy` and the refresh step of `--refresh` (unless run with `--run-program`), else as the stack config sets it now. " +
            "If it was rotated since that `pulumi up`, run the command with `--run-program`, or `pulumi up` first; otherwise set the " +
            "right one with `pulumi config set --secret serviceapi:token <token>`.",
        );
        expect(failed.text).not.toContain("revoked_token_0001");
        await engine.stack.setConfig("serviceapi:token", { value: newSim.token, secret: true });
        await engine.up();
      },
    );

    await step(
      "serviceapi:productRefresh changed after the last up: refresh keeps reading products until up or --run-program",
      async () => {
        await recordThenMove(newSim, newSim);
        await engine.stack.setConfig("serviceapi:productRefresh", { value: "false" });
        expect(await used(() => engine.refresh())).toEqual({ old: [], new: ["products.update"] });
        expect(await used(() => engine.refresh({ runProgram: true }))).toEqual({ old: [], new: ["projects.list"] });
        await engine.stack.removeConfig("serviceapi:productRefresh");
      },
    );

    await step("a token only in SERVICEAPI_TOKEN is read by every command when it runs, refresh and destroy included", async () => {
      const envOnly = await EngineStack.create(newSim, { token: null, env: { SERVICEAPI_TOKEN: newSim.token } });
      try {
        await envOnly.setSpec({ products: { q: { projectId: project, title: "Env token" } } });
        await envOnly.up();
        envOnly.setEnv("SERVICEAPI_TOKEN", "revoked_token_0002");
        const failed = await expectFailure(envOnly.refresh());
        expect(failed.text).toContain("401 unauthorized");
        envOnly.setEnv("SERVICEAPI_TOKEN", newSim.token);
        expect(await used(() => envOnly.refresh())).toEqual({ old: [], new: ["products.update"] });
        expect(await used(() => envOnly.destroy())).toEqual({ old: [], new: ["products.update"] });
      } finally {
        await envOnly.dispose();
      }
    });
  });
});
