/**
 * The GitOps workflow in examples/github-actions: it is a valid GitHub Actions workflow (checked
 * against the workflow JSON schema), and its own `run:` scripts, executed here with the local CLI
 * against the simulator, exit 0 without drift and non-zero with drift.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { validateWorkflow } from "@action-validator/core";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServiceApiClient } from "../../src";
import type { Simulator } from "../../simulator";
import { simulatorForSuite } from "./suite";
import { ENGINE_TIMEOUT_MS, EngineStack, REPO } from "../../scripts/engine/driver";

const WORKFLOW = join(REPO, "examples", "github-actions", "pulumi.yml");
const workflowText = readFileSync(WORKFLOW, "utf8");

interface Workflow {
  jobs: Record<string, { concurrency?: { group: string; "cancel-in-progress": boolean }; steps: { id?: string; run?: string }[] }>;
}
const workflow = parse(workflowText) as Workflow;

function script(job: string, stepId: string): string {
  const step = workflow.jobs[job]!.steps.find((s) => s.id === stepId);
  if (!step?.run) throw new Error(`no run step ${stepId} in job ${job}`);
  return step.run;
}

describe("the GitHub Actions workflow", () => {
  it("validates against the workflow schema (and the check is not vacuous)", () => {
    expect(validateWorkflow(workflowText).errors).toEqual([]);
    const broken = workflowText.replace("runs-on: ubuntu-latest", "runs_on: ubuntu-latest");
    expect(validateWorkflow(broken).errors.length).toBeGreaterThan(0);
  });

  it("never runs two `up`s at once and never cancels one", () => {
    expect(workflow.jobs.up!.concurrency).toEqual({ group: "pulumi-up-production", "cancel-in-progress": false });
    expect(workflowText).toContain("SERVICEAPI_TOKEN: ${{ secrets.SERVICEAPI_TOKEN }}");
  });
});

describe("the workflow's commands under the real CLI", { timeout: ENGINE_TIMEOUT_MS }, () => {
  let sim: Simulator;
  let engine: EngineStack;

  beforeAll(async () => {
    sim = await simulatorForSuite();
    // As in the workflow: the token comes from the environment, not from stack config.
    engine = await EngineStack.create(sim, {
      program: join(REPO, "examples", "quickstart"),
      token: null,
      env: { SERVICEAPI_TOKEN: sim.token },
    });
  }, 30 * 60_000);

  afterAll(() => engine?.dispose());

  /** Runs a shell script as the workflow would (async: the simulator lives in this process). */
  function shell(text: string): Promise<{ status: number | null; output: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn("bash", ["-e", "-c", text], { cwd: engine.dir, env: { ...process.env, ...engine.env, PULUMI_STACK: "test" } });
      let output = "";
      child.stdout.on("data", (d: Buffer) => (output += d.toString()));
      child.stderr.on("data", (d: Buffer) => (output += d.toString()));
      child.on("error", reject);
      child.on("close", (status) => resolve({ status, output }));
    });
  }

  const runStep = (job: string, stepId: string) => shell(script(job, stepId));

  it("deploy exits 0; the drift gate exits 0 without drift and non-zero with it; deploy restores", async () => {
    const deploy = await runStep("up", "up");
    expect(deploy.output).toContain("+ 6 created");
    expect(deploy.status).toBe(0);

    expect((await runStep("drift", "drift-gate")).status).toBe(0);
    expect((await runStep("preview", "preview")).status).toBe(0);

    const client = new ServiceApiClient({ baseUrl: sim.url, token: sim.token });
    const products = JSON.parse((await shell("pulumi stack output productIds --json --stack test")).output) as { pro: string };
    await client.updateProduct(products.pro, { title: "Changed in the UI" });
    await client.close();

    const gate = await runStep("drift", "drift-gate");
    expect(gate.status).toBe(7);
    expect(gate.output).toMatch(/~ title\s+: "Changed in the UI" => "Pro plan"/);
    expect(gate.output).not.toContain(sim.token);

    expect((await runStep("up", "up")).status).toBe(0);
    expect((await runStep("drift", "drift-gate")).status).toBe(0);
  });
});
