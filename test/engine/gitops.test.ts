/**
 * The GitOps workflow in examples/github-actions: it is a valid GitHub Actions workflow (checked
 * against the workflow JSON schema), and its own `run:` scripts, executed here with the local CLI
 * against the simulator, exit 0 without drift and non-zero with drift — with the state in a file
 * backend and in PostgreSQL (`PULUMI_BACKEND_URL=postgres://…`, a real server from scripts/postgres.sh).
 * The catalog tool's workflow (examples/catalog-tool/github-workflow.yml) has its own checks, in the
 * fast tier: test/catalog/workflow.test.ts.
 */
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { validateWorkflow } from "@action-validator/core";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServiceApiClient } from "../../provider";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { postgresForSuite } from "./postgres";
import { simulator } from "../helpers";
import { step } from "./suite";
import { ENGINE_TIMEOUT_MS, EngineStack, REPO } from "../../scripts/engine/driver";

const WORKFLOW = join(REPO, "examples", "github-actions", "pulumi.yml");
const workflowText = readFileSync(WORKFLOW, "utf8");

interface Workflow {
  jobs: Record<
    string,
    {
      concurrency?: { group: string; "cancel-in-progress": boolean };
      strategy?: { "fail-fast"?: boolean; matrix?: Record<string, unknown> };
      steps: { id?: string; run?: string; uses?: string; with?: Record<string, unknown>; env?: Record<string, string> }[];
    }
  >;
}
const workflow = parse(workflowText) as Workflow;

function script(job: string, stepId: string, of: Workflow = workflow): string {
  const step = of.jobs[job]!.steps.find((s) => s.id === stepId);
  if (!step?.run) throw new Error(`no run step ${stepId} in job ${job}`);
  return step.run;
}

describe("the GitHub Actions workflow", () => {
  it("validates against the workflow schema (and the check is not vacuous)", () => {
    expect(validateWorkflow(workflowText).errors).toEqual([]);
    const broken = workflowText.replace("runs-on: ubuntu-latest", "runs_on: ubuntu-latest");
    expect(validateWorkflow(broken).errors.length).toBeGreaterThan(0);
  });

  it("never runs two `up`s of one stack at once, never cancels one, and keeps the token and the backend URL secret", () => {
    expect(workflow.jobs.up!.concurrency).toEqual({ group: "pulumi-up-${{ matrix.stack }}", "cancel-in-progress": false });
    // A failing stack must not cancel its siblings' deploys half-way (GitHub's default for a matrix).
    for (const job of ["drift", "preview", "up"]) expect(workflow.jobs[job]!.strategy).toMatchObject({ "fail-fast": false });
    expect(workflowText).toContain("SERVICEAPI_TOKEN: ${{ secrets.SERVICEAPI_TOKEN }}");
    expect(workflowText).toContain("PULUMI_BACKEND_URL: ${{ secrets.PULUMI_BACKEND_URL }}");
    expect(workflowText).toContain("PGPASSWORD: ${{ secrets.PGPASSWORD }}");
  });
});

describe("the workflow's install from the team's npm registry (docs/gitops.md)", () => {
  it("every job takes Node.js >= 22.19 from setup-node, and only its `npm ci` step gets NPM_TOKEN", () => {
    for (const [name, job] of Object.entries(workflow.jobs)) {
      const node = job.steps.find((s) => s.uses?.startsWith("actions/setup-node@"));
      // A bare major such as 22 would accept any 22.x cached on the runner, older than 22.19 included.
      expect([name, String(node?.with?.["node-version"])]).toEqual([name, "24"]);
      const withToken = job.steps.filter((s) => JSON.stringify(s).includes("NPM_TOKEN"));
      expect([name, withToken]).toEqual([name, [{ run: "npm ci", env: { NPM_TOKEN: "${{ secrets.NPM_TOKEN }}" } }]]);
    }
  });
});

for (const backend of ["file", "postgres"] as const) {
  describe(
    `the workflow's commands under the real CLI, state in ${backend === "file" ? "a file backend" : "PostgreSQL"}`,
    { timeout: ENGINE_TIMEOUT_MS },
    () => {
      const postgres = backend === "postgres" ? postgresForSuite() : undefined;
      let sim: Simulator;
      let engine: EngineStack;

      beforeAll(async () => {
        sim = await simulator();
        // As in the workflow: the token comes from the environment, not from stack config.
        engine = await EngineStack.create(sim, {
          program: join(REPO, "examples", "quickstart"),
          token: null,
          env: {
            SERVICEAPI_TOKEN: sim.token,
            // As docs/gitops.md advises: the password in PGPASSWORD, not in the URL Pulumi prints.
            ...(postgres && { PULUMI_BACKEND_URL: postgres.backendWithoutPassword("gitops"), PGPASSWORD: postgres.password() }),
          },
        });
      }, 30 * 60_000);

      afterAll(() => engine?.dispose());

      /** Runs a shell script as the workflow would (async: the simulator lives in this process). */
      function shell(text: string): Promise<{ status: number | null; output: string }> {
        return new Promise((resolve, reject) => {
          const child = spawn("bash", ["-e", "-c", text], {
            cwd: engine.dir,
            env: { ...process.env, ...engine.env, PULUMI_STACK: "test" },
          });
          let output = "";
          child.stdout.on("data", (d: Buffer) => (output += d.toString()));
          child.stderr.on("data", (d: Buffer) => (output += d.toString()));
          child.on("error", reject);
          child.on("close", (status) => resolve({ status, output }));
        });
      }

      const runStep = (job: string, stepId: string) => shell(script(job, stepId));

      it("deploy; a one-field change sends one PATCH; the drift gate exits 0 without drift and 7 with it; deploy restores; destroy", async () => {
        await step("deploy", async () => {
          const deploy = await runStep("up", "up");
          expect(deploy.output).toContain("+ 6 created");
          expect(deploy.status).toBe(0);
        });

        await step("gate and preview without drift", async () => {
          expect((await runStep("drift", "drift-gate")).status).toBe(0);
          expect((await runStep("preview", "preview")).status).toBe(0);
        });

        const products = JSON.parse((await shell("pulumi stack output productIds --json --stack test")).output) as { pro: string };

        await step("one field changed in the program, merged, deployed", async () => {
          const program = join(engine.dir, "index.ts");
          writeFileSync(program, readFileSync(program, "utf8").replace('title: "Pro plan"', 'title: "Pro plan (2027)"'));
          const preview = await runStep("preview", "preview");
          expect(preview.output).toMatch(/~ title\s+: "Pro plan" => "Pro plan \(2027\)"/);
          sim.clearRequests();
          expect((await runStep("up", "up")).status).toBe(0);
          // The empty PATCHes are the reads of `--refresh` (the API has no GET of one product).
          const patches = sim.requests("products.update").filter((r) => r.status === 200 && Object.keys(r.body as object).length > 0);
          expect(patches.map((r) => [r.path, r.body])).toEqual([[`/api/v1/public/products/${products.pro}`, { title: "Pro plan (2027)" }]]);
        });

        await step("changed behind Pulumi's back: the gate fails naming the field; a deploy restores", async () => {
          const client = new ServiceApiClient({ baseUrl: sim.url, token: sim.token });
          await client.updateProduct(products.pro, { title: "Changed in the UI" });
          await client.close();

          const gate = await runStep("drift", "drift-gate");
          expect(gate.status).toBe(7);
          expect(gate.output).toMatch(/~ title\s+: "Changed in the UI" => "Pro plan \(2027\)"/);
          expect(gate.output).not.toContain(sim.token);

          expect((await runStep("up", "up")).status).toBe(0);
          expect((await runStep("drift", "drift-gate")).status).toBe(0);
          expect(sim.products().find((p) => p.id === products.pro)?.title).toBe("Pro plan (2027)");
        });

        if (postgres) {
          await step("the database unreachable: the gate fails naming the URL, and the password stays out of it", async () => {
            const down = (url: string) => url.replace(/@127\.0\.0\.1:\d+\//, "@127.0.0.1:1/");
            const gate = await shell(
              `PULUMI_BACKEND_URL='${down(postgres.backendWithoutPassword("gitops"))}'\n${script("drift", "drift-gate")}`,
            );
            expect(gate.status).not.toBe(0);
            expect(gate.output).toContain("failed to ping PostgreSQL: dial tcp 127.0.0.1:1: connect: connection refused");
            expect(gate.output).not.toContain(postgres.password());
            // Why the advice: with the password in the URL, Pulumi (v3.248.0) prints it.
            const leaky = await shell(`PULUMI_BACKEND_URL='${down(postgres.backend("gitops"))}' pulumi stack ls`);
            expect(leaky.output).toContain(postgres.password());
          });
        }

        await step("destroy", async () => {
          const destroy = await shell("pulumi destroy --stack test --yes --non-interactive");
          expect(destroy.status).toBe(0);
          expect((await engine.deployment()).resources ?? []).toEqual([]);
          expect(sim.products().find((p) => p.id === products.pro)?.status).toBe("archived");
        });
      });
    },
  );
}
