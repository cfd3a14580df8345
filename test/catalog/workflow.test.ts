/**
 * The catalog tool's GitHub Actions workflow (examples/catalog-tool/github-workflow.yml), read the
 * way GitHub reads it: valid against the workflow schema, and the properties a security review
 * asks for, each computed from the file rather than declared beside it. Which jobs can run on an
 * event is decided by evaluating each job's `if:` with GitHub's own expression evaluator
 * (@actions/expressions) under that event's contexts, for every value the `needs` outputs and job
 * results it reads could take; so a job whose condition is loosened is caught, and every check is
 * shown to fire on a copy broken on purpose. Then: the commands and options it runs are the tool's,
 * and the fields it reads are the ones `plan --json` prints. Pure: no Pulumi CLI, no service.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validateWorkflow } from "@action-validator/core";
import { Evaluator, Lexer, Parser, data } from "@actions/expressions";
import { truthy } from "@actions/expressions/result";
import { parse } from "yaml";
import { describe, expect, it, onTestFinished } from "vitest";
import { main as catalogCli } from "../../provider/catalog/cli";
import { runPlan, type ToolOptions } from "../../provider/catalog/tool";
import { Workspaces } from "../../provider/catalog/workspace";
import { REPO } from "../../scripts/repo";

interface Step {
  id?: string;
  name?: string;
  if?: string;
  run?: string;
  uses?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Job {
  if?: string;
  needs?: string | string[];
  environment?: string | { name: string };
  concurrency?: unknown;
  permissions?: Record<string, string>;
  strategy?: { "fail-fast"?: boolean; matrix?: Record<string, unknown> };
  outputs?: Record<string, string>;
  secrets?: unknown;
  steps: Step[];
}
interface Workflow {
  on: Record<string, unknown>;
  env?: Record<string, string>;
  concurrency?: { group: string; "cancel-in-progress": string | boolean };
  jobs: Record<string, Job>;
}

const FILE = join(REPO, "examples", "catalog-tool", "github-workflow.yml");
const text = readFileSync(FILE, "utf8");
const workflow = parse(text) as Workflow;
const copy = (): Workflow => structuredClone(workflow);

/** The CLI the package is proven with (scripts/install-pulumi.sh builds it): what the workflow must pin. */
const PULUMI_VERSION = /^PULUMI_VERSION=(\S+)$/m.exec(readFileSync(join(REPO, "scripts", "install-pulumi.sh"), "utf8"))![1]!;

/** The secrets a job that runs on pull_request (the pull request's code) may read: read-only ones. */
const READ_SECRETS = ["NPM_TOKEN", "SERVICEAPI_READ_TOKEN", "PULUMI_BACKEND_READ_URL", "PGPASSWORD_READ", "PULUMI_CONFIG_PASSPHRASE"];
/** The secrets that can change the products or the state: only jobs in environment production read them. */
const WRITE_SECRETS = ["SERVICEAPI_TOKEN", "PULUMI_BACKEND_URL", "PGPASSWORD"];
/** The drift check's token, which may update products (its read is an empty PATCH): only jobs in environment drift read it. */
const DRIFT_SECRETS = ["SERVICEAPI_DRIFT_TOKEN"];
/**
 * The adoption preview's token, which may update products (an adoption's preview reads each product
 * with an empty PATCH): only jobs in environment adoption read it — the one environment besides
 * preview a pull request's job may name, as it requires a reviewer's approval before the job starts.
 */
const ADOPT_SECRETS = ["SERVICEAPI_ADOPT_TOKEN"];

/** The contexts of each event the workflow is triggered by (`on:`), as GitHub gives them to `if:`. */
const EVENTS: Record<string, { on: string; github: Record<string, unknown>; inputs: Record<string, unknown> }> = {
  pull_request: {
    on: "pull_request",
    github: { event_name: "pull_request", ref: "refs/pull/12/merge", base_ref: "main", event: { pull_request: { number: 12 } } },
    inputs: {},
  },
  push: { on: "push", github: { event_name: "push", ref: "refs/heads/main", base_ref: "", event: {} }, inputs: {} },
  schedule: { on: "schedule", github: { event_name: "schedule", ref: "refs/heads/main", base_ref: "", event: {} }, inputs: {} },
  "workflow_dispatch on main": {
    on: "workflow_dispatch",
    github: { event_name: "workflow_dispatch", ref: "refs/heads/main", base_ref: "", event: {} },
    inputs: { remediate: false },
  },
  "workflow_dispatch on main, remediate": {
    on: "workflow_dispatch",
    github: { event_name: "workflow_dispatch", ref: "refs/heads/main", base_ref: "", event: {} },
    inputs: { remediate: true },
  },
  "workflow_dispatch on a branch, remediate": {
    on: "workflow_dispatch",
    github: { event_name: "workflow_dispatch", ref: "refs/heads/topic", base_ref: "", event: {} },
    inputs: { remediate: true },
  },
};

const STATUS_FUNCTIONS = ["always", "success", "failure", "cancelled"];

function expressionData(value: unknown): data.ExpressionData {
  if (value === null || value === undefined) return new data.Null();
  if (typeof value === "string") return new data.StringData(value);
  if (typeof value === "boolean") return new data.BooleanData(value);
  if (typeof value === "number") return new data.NumberData(value);
  if (Array.isArray(value)) return new data.Array(...value.map(expressionData));
  return new data.Dictionary(...Object.entries(value as object).map(([key, v]) => ({ key, value: expressionData(v) })));
}

/** `text` (a bare expression, or one `${{ … }}`) evaluated as GitHub does, the status functions answering `status`. */
const parsed = new Map<string, ReturnType<Parser["parse"]>>();
const FUNCTIONS = STATUS_FUNCTIONS.map((name) => ({ name, minArgs: 0, maxArgs: 0 }));

function evaluate(text: string, contexts: Record<string, unknown>, status: Record<string, boolean> = {}): data.ExpressionData {
  const inner = /^\s*\$\{\{([\s\S]*)\}\}\s*$/.exec(text)?.[1] ?? text;
  const functions = FUNCTIONS;
  // Parsed once per expression and set of contexts: canRun evaluates one condition for many combinations.
  const key = `${Object.keys(contexts).join(",")}\n${inner}`;
  let tree = parsed.get(key);
  if (tree === undefined) {
    tree = new Parser(new Lexer(inner).lex().tokens, Object.keys(contexts), functions).parse();
    parsed.set(key, tree);
  }
  const implementations = new Map(
    functions.map((f) => [f.name, { ...f, call: () => new data.BooleanData(f.name === "always" || (status[f.name] ?? false)) }]),
  );
  const dictionary = new data.Dictionary(...Object.entries(contexts).map(([key, value]) => ({ key, value: expressionData(value) })));
  return new Evaluator(tree, dictionary, implementations).evaluate();
}

/** Every combination of the given choices. */
function* combinations<T>(choices: [string, readonly T[]][]): Generator<Record<string, T>> {
  if (choices.length === 0) {
    yield {};
    return;
  }
  const [[key, values], ...rest] = choices as [[string, readonly T[]], ...[string, readonly T[]][]];
  for (const value of values) for (const tail of combinations(rest)) yield { [key]: value, ...tail };
}

/**
 * Whether `job` can run on `event`: its `if:` (GitHub's default `success()` when it has none) is true
 * for some value of each `needs` output and result it reads — outputs taking any string literal the
 * workflow compares with, or another; results any of GitHub's four — and of the status functions.
 */
function canRun(of: Workflow, job: string, event: keyof typeof EVENTS): boolean {
  const condition = of.jobs[job]!.if ?? "success()";
  // A form the leaves below would miss would make a job look safer than it is: refuse it instead.
  if (/needs\s*\[|needs\.\*|needs\.[\w-]+\s*\[|toJSON\(\s*needs/.test(condition))
    throw new Error(`${job}: an \`if:\` this check cannot read: ${condition}`);
  const literals = [...new Set([...JSON.stringify(of.jobs).matchAll(/'([^'\\]*)'/g)].map((m) => m[1]!)), "something else"];
  const leaves = [...new Set([...condition.matchAll(/needs\.([\w-]+)\.(outputs\.[\w-]+|result)/g)].map((m) => m[0]))];
  const choices: [string, readonly (string | boolean)[]][] = [
    ...leaves.map((leaf): [string, readonly string[]] => [
      leaf,
      leaf.endsWith(".result") ? ["success", "failure", "cancelled", "skipped"] : literals,
    ]),
    ...["success", "failure", "cancelled"].map((f): [string, readonly boolean[]] => [`${f}()`, [true, false]]),
  ];
  const { github, inputs } = EVENTS[event]!;
  for (const values of combinations<string | boolean>(choices)) {
    const needs: Record<string, { result?: unknown; outputs: Record<string, unknown> }> = {};
    for (const leaf of leaves) {
      const [, name, what, output] = /^needs\.([\w-]+)\.(outputs|result)\.?([\w-]*)$/.exec(leaf)!;
      const entry = (needs[name!] ??= { outputs: {} });
      if (what === "result") entry.result = values[leaf];
      else entry.outputs[output!] = values[leaf];
    }
    const status = {
      success: values["success()"] === true,
      failure: values["failure()"] === true,
      cancelled: values["cancelled()"] === true,
    };
    if (truthy(evaluate(condition, { github, inputs, needs, vars: {} }, status))) return true;
  }
  return false;
}

function jobsOn(of: Workflow, event: keyof typeof EVENTS): string[] {
  return Object.keys(of.jobs)
    .filter((job) => canRun(of, job, event))
    .sort();
}

/** The environment `job` runs in on `event` (an expression is evaluated), or undefined. */
function environmentOf(of: Workflow, job: string, event: keyof typeof EVENTS): string | undefined {
  const declared = of.jobs[job]!.environment;
  if (declared === undefined) return undefined;
  const name = typeof declared === "string" ? declared : declared.name;
  if (!name.includes("${{")) return name;
  const { github, inputs } = EVENTS[event]!;
  return evaluate(name, { github, inputs, vars: {} }).coerceString();
}

/** The secrets a piece of the workflow reads; `(every secret)` for a form that reads them by a computed name. */
function secretsOf(node: unknown): string[] {
  const json = JSON.stringify(node) ?? "";
  const names = [...json.matchAll(/secrets\.([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!);
  const dynamic = /secrets\s*\[|toJSON\(\s*secrets\s*\)|"secrets":"inherit"/.test(json);
  return [...new Set([...names, ...(dynamic ? ["(every secret)"] : [])])].sort();
}

/** The Pulumi CLI's action, pinned by the commit of its v6.6.1 tag. */
const PULUMI_ACTION = "pulumi/actions@8582a9e8cc630786854029b4e09281acd6794b58";
/** An action pinned by a full commit SHA: a tag can be moved to other code, a commit cannot. */
const PINNED = /^[\w.-]+\/[\w.-]+(\/[\w./-]+)?@[0-9a-f]{40}$/;

/** What a security review refuses, as one line each; [] when none. */
function violations(of: Workflow): string[] {
  const found: string[] = [];
  for (const [job, body] of Object.entries(of.jobs))
    for (const step of body.steps)
      if (step.uses !== undefined && !PINNED.test(step.uses)) found.push(`${job}: ${step.uses} is not pinned by a commit SHA`);
  const modelled = new Set(Object.values(EVENTS).map((e) => e.on));
  for (const on of Object.keys(of.on)) if (!modelled.has(on)) found.push(`on: ${on} is an event this check does not model`);
  for (const [key, value] of Object.entries(of)) {
    if (key === "jobs") continue;
    for (const secret of secretsOf(value)) found.push(`top-level ${key}: reads secrets.${secret}, which every job would see`);
  }
  for (const [job, body] of Object.entries(of.jobs)) {
    // The registry's token while npm downloads, never while the packages' install scripts run.
    body.steps.forEach((step, i) => {
      if (!JSON.stringify(step).includes("NPM_TOKEN")) return;
      if (step.run !== "npm ci --ignore-scripts") found.push(`${job}: NPM_TOKEN is in scope of \`${step.run ?? step.uses}\``);
      else if (body.steps[i + 1]?.run !== "npm rebuild" || body.steps[i + 1]?.env !== undefined)
        found.push(`${job}: \`npm ci --ignore-scripts\` is not followed by \`npm rebuild\` without secrets`);
    });
    const secrets = secretsOf(body);
    if (canRun(of, job, "pull_request")) {
      for (const secret of secrets.filter((s) => !READ_SECRETS.includes(s) && !ADOPT_SECRETS.includes(s))) {
        found.push(`${job}: can run on pull_request and reads secrets.${secret}`);
      }
      const environment = environmentOf(of, job, "pull_request");
      if (environment !== undefined && environment !== "preview" && environment !== "adoption") {
        found.push(`${job}: can run on pull_request in environment ${environment}`);
      }
    }
    for (const event of Object.keys(EVENTS) as (keyof typeof EVENTS)[]) {
      if (!canRun(of, job, event)) continue;
      const environment = environmentOf(of, job, event);
      for (const secret of secrets.filter((s) => WRITE_SECRETS.includes(s) || s === "(every secret)")) {
        if (environment !== "production") found.push(`${job}: reads secrets.${secret} outside environment production (${event})`);
      }
      for (const secret of secrets.filter((s) => DRIFT_SECRETS.includes(s))) {
        if (environment !== "drift") found.push(`${job}: reads secrets.${secret} outside environment drift (${event})`);
      }
      for (const secret of secrets.filter((s) => ADOPT_SECRETS.includes(s))) {
        if (environment !== "adoption") found.push(`${job}: reads secrets.${secret} outside environment adoption (${event})`);
      }
    }
  }
  return [...new Set(found)];
}

describe("the catalog tool's workflow (examples/catalog-tool/github-workflow.yml)", () => {
  it("validates against the workflow schema (and the check is not vacuous)", () => {
    expect(validateWorkflow(text).errors).toEqual([]);
    expect(validateWorkflow(text.replace("runs-on: ubuntu-latest", "runs_on: ubuntu-latest")).errors.length).toBeGreaterThan(0);
  });

  it("runs each job on the events it should, as its `if:` decides", () => {
    expect(Object.keys(workflow.jobs)).toEqual([
      "plan",
      "preview",
      "preview-adoptions",
      "report",
      "comment",
      "split",
      "up",
      "summary",
      "drift",
      "remediate",
    ]);
    expect(jobsOn(workflow, "pull_request")).toEqual(["comment", "plan", "preview", "preview-adoptions", "report"]);
    expect(jobsOn(workflow, "push")).toEqual(["plan", "split", "summary", "up"]);
    expect(jobsOn(workflow, "workflow_dispatch on main")).toEqual(["plan", "split", "summary", "up"]);
    expect(jobsOn(workflow, "schedule")).toEqual(["drift", "remediate"]);
    // By hand with remediate: the drift check, then the remediation; no deploy of every stack beside it.
    expect(jobsOn(workflow, "workflow_dispatch on main, remediate")).toEqual(["drift", "remediate"]);
    // Deploys and remediations run from main only (environment production allows main only, too).
    expect(jobsOn(workflow, "workflow_dispatch on a branch, remediate")).toEqual([]);
  });

  it("no job that can run on pull_request reads a write secret or another environment than preview; no secret at the top level", () => {
    expect(violations(workflow)).toEqual([]);
    expect(secretsOf(workflow.jobs.preview)).toEqual(READ_SECRETS.slice().sort());
    // The adoption preview: the read secrets, but the token that may update products instead of the read one.
    expect(secretsOf(workflow.jobs["preview-adoptions"])).toEqual(
      [...READ_SECRETS.filter((s) => s !== "SERVICEAPI_READ_TOKEN"), ...ADOPT_SECRETS].sort(),
    );
    expect(environmentOf(workflow, "preview-adoptions", "pull_request")).toBe("adoption");
    expect(secretsOf(workflow.jobs.up)).toEqual(["NPM_TOKEN", ...WRITE_SECRETS, "PULUMI_CONFIG_PASSPHRASE"].sort());
    expect(Object.keys(workflow.env ?? {}).sort()).toEqual(["PULUMI_SKIP_UPDATE_CHECK", "SERVICEAPI_BASE_URL"]);
  });

  it("the check fires on copies broken on purpose", () => {
    const topLevel = copy();
    topLevel.env!.SERVICEAPI_TOKEN = "${{ secrets.SERVICEAPI_TOKEN }}";
    expect(violations(topLevel)).toContain("top-level env: reads secrets.SERVICEAPI_TOKEN, which every job would see");

    const previewWithWriteToken = copy();
    previewWithWriteToken.jobs.preview!.steps.find((s) => s.run?.includes("preview --stack"))!.env!.SERVICEAPI_TOKEN =
      "${{ secrets.SERVICEAPI_TOKEN }}";
    expect(violations(previewWithWriteToken)).toEqual([
      "preview: can run on pull_request and reads secrets.SERVICEAPI_TOKEN",
      "preview: reads secrets.SERVICEAPI_TOKEN outside environment production (pull_request)",
    ]);

    // A deploy whose condition forgets the event: on a pull request its `needs` could all succeed.
    const loosened = copy();
    loosened.jobs.up!.if = "${{ !cancelled() && needs.plan.outputs.any == 'true' }}";
    expect(violations(loosened)).toEqual([
      "up: can run on pull_request and reads secrets.PGPASSWORD",
      "up: can run on pull_request and reads secrets.PULUMI_BACKEND_URL",
      "up: can run on pull_request and reads secrets.SERVICEAPI_TOKEN",
      "up: can run on pull_request in environment production",
    ]);
    const negated = copy();
    negated.jobs.split!.if = "github.event_name != 'schedule' && needs.plan.outputs.split == 'true'";
    expect(violations(negated)).toContain("split: can run on pull_request in environment production");

    const dynamic = copy();
    dynamic.jobs.report!.steps[0]!.env = { ALL: "${{ toJSON(secrets) }}" };
    expect(violations(dynamic)).toContain("report: can run on pull_request and reads secrets.(every secret)");

    // The adoption token in the ordinary preview job, or the adoption job in the preview environment.
    const adoptInPreview = copy();
    adoptInPreview.jobs.preview!.steps.find((s) => s.run?.includes("preview --stack"))!.env!.SERVICEAPI_TOKEN =
      "${{ secrets.SERVICEAPI_ADOPT_TOKEN }}";
    expect(violations(adoptInPreview)).toEqual([
      "preview: reads secrets.SERVICEAPI_ADOPT_TOKEN outside environment adoption (pull_request)",
    ]);
    const unapproved = copy();
    unapproved.jobs["preview-adoptions"]!.environment = "preview";
    expect(violations(unapproved)).toEqual([
      "preview-adoptions: reads secrets.SERVICEAPI_ADOPT_TOKEN outside environment adoption (pull_request)",
    ]);

    // Install scripts with the registry's token in scope, or never run.
    const scripted = copy();
    scripted.jobs.preview!.steps.find((s) => s.run === "npm ci --ignore-scripts")!.run = "npm ci";
    expect(violations(scripted)).toEqual(["preview: NPM_TOKEN is in scope of `npm ci`"]);
    const unbuilt = copy();
    unbuilt.jobs.up!.steps = unbuilt.jobs.up!.steps.filter((s) => s.run !== "npm rebuild");
    expect(violations(unbuilt)).toEqual(["up: `npm ci --ignore-scripts` is not followed by `npm rebuild` without secrets"]);

    const tagPinned = copy();
    tagPinned.jobs.preview!.steps[0]!.uses = "actions/checkout@v4";
    expect(violations(tagPinned)).toEqual(["preview: actions/checkout@v4 is not pinned by a commit SHA"]);

    const pullRequestTarget = copy();
    pullRequestTarget.on.pull_request_target = {};
    expect(violations(pullRequestTarget)).toContain("on: pull_request_target is an event this check does not model");
  });

  it("pins the Pulumi CLI in every job that installs it, and every job that runs the tool on stacks installs it", () => {
    const problems = (of: Workflow) =>
      Object.entries(of.jobs).flatMap(([job, body]) => {
        const found: string[] = [];
        const install = body.steps.findIndex((s) => s.uses?.startsWith("pulumi/actions@"));
        for (const step of body.steps.filter((s) => s.uses?.startsWith("pulumi/actions@"))) {
          if (step.uses !== PULUMI_ACTION || step.with?.["pulumi-version"] !== PULUMI_VERSION) {
            found.push(`${job}: ${step.uses} with pulumi-version ${String(step.with?.["pulumi-version"])}`);
          }
        }
        body.steps.forEach((step, i) => {
          const commands = [...(step.run ?? "").matchAll(/npx serviceapi-catalog (\w+)/g)].map((m) => m[1]!);
          if (commands.some((c) => c !== "report") && (install < 0 || install > i))
            found.push(`${job}: runs the tool without the CLI installed`);
        });
        return found;
      });
    expect(problems(workflow)).toEqual([]);
    expect(
      Object.entries(workflow.jobs)
        .filter(([, b]) => b.steps.some((s) => s.uses?.startsWith("pulumi/actions@")))
        .map(([j]) => j),
    ).toEqual(["plan", "preview", "preview-adoptions", "split", "up", "drift", "remediate"]);
    const unpinned = copy();
    delete unpinned.jobs.drift!.steps.find((s) => s.uses?.startsWith("pulumi/actions@"))!.with;
    expect(problems(unpinned)).toEqual([`drift: ${PULUMI_ACTION} with pulumi-version undefined`]);
  });

  it("each action pinned by a commit SHA says its version beside it; every job that previews or deploys installs OPA for the policies", () => {
    const uses = [...text.matchAll(/^\s*- uses: (\S+)(.*)$/gm)];
    expect(uses.length).toBeGreaterThan(20);
    for (const [, action, rest] of uses) expect([action, rest]).toEqual([action, expect.stringMatching(/^ # v\d+\.\d+\.\d+$/)]);
    const opaJobs = Object.entries(workflow.jobs).filter(([, b]) =>
      b.steps.some((s) => s.uses?.startsWith("open-policy-agent/setup-opa@")),
    );
    const toolJobs = Object.entries(workflow.jobs).filter(([, b]) =>
      b.steps.some((s) => /npx serviceapi-catalog (preview|up)\b/.test(s.run ?? "")),
    );
    expect(opaJobs.map(([j]) => j)).toEqual(toolJobs.map(([j]) => j));
    expect(opaJobs.map(([j]) => j)).toEqual(["preview", "preview-adoptions", "up", "remediate"]);
    for (const [, body] of opaJobs)
      expect(body.steps.find((s) => s.uses?.startsWith("open-policy-agent/"))!.with).toEqual({ version: "1.22.3" });
  });

  it("drift and the deploy-side jobs share one concurrency group, never cancelled in progress; a pull request's runs have their own", () => {
    // Set for the whole run: a matrix job in a job-level group would run its batches one at a time and cancel the waiting ones.
    for (const [job, body] of Object.entries(workflow.jobs)) expect([job, body.concurrency]).toEqual([job, undefined]);
    const concurrency = (event: keyof typeof EVENTS) => {
      const { github, inputs } = EVENTS[event]!;
      const group = evaluate(workflow.concurrency!.group, { github, inputs }).coerceString();
      const cancel = truthy(evaluate(String(workflow.concurrency!["cancel-in-progress"]), { github, inputs }));
      return { group, cancel };
    };
    const state = { group: "serviceapi-catalog-state", cancel: false };
    for (const event of ["push", "schedule", "workflow_dispatch on main", "workflow_dispatch on main, remediate"] as const) {
      expect([event, concurrency(event)]).toEqual([event, state]);
    }
    // Every job in environment production or drift (a write secret, or the drift token) runs only on those events.
    const stateJobs = Object.keys(workflow.jobs).filter((job) => ["production", "drift"].includes(String(workflow.jobs[job]!.environment)));
    expect(stateJobs.sort()).toEqual(["drift", "remediate", "split", "up"]);
    for (const job of stateJobs) expect([job, canRun(workflow, job, "pull_request")]).toEqual([job, false]);
    expect(concurrency("pull_request")).toEqual({ group: "serviceapi-catalog-pr-12", cancel: true });
  });

  it("remediation: environment production, after a drift check that exited 7 with drifted stacks", () => {
    expect(workflow.jobs.remediate!.environment).toBe("production");
    expect(workflow.jobs.remediate!.needs).toBe("drift");
    expect(workflow.jobs.drift!.environment).toBe("drift");
    const runs = (status: string, drifted: string) =>
      truthy(
        evaluate(
          workflow.jobs.remediate!.if!,
          { github: EVENTS.schedule!.github, inputs: {}, needs: { drift: { result: "failure", outputs: { status, drifted } } } },
          { failure: true },
        ),
      );
    expect(runs("7", "catalog-a,catalog-b")).toBe(true);
    expect(runs("0", "")).toBe(false);
    expect(runs("1", "catalog-a")).toBe(false);
    expect(runs("7", "")).toBe(false);
    const step = workflow.jobs.remediate!.steps.find((s) => s.run?.includes("up --refresh"))!;
    expect(step.run).toContain('npx serviceapi-catalog up --refresh --stack "$DRIFTED" --json');
    expect(step.env!.DRIFTED).toBe("${{ needs.drift.outputs.drifted }}");
    // The drifted stacks come from the drift check's JSON report.
    expect(workflow.jobs.drift!.steps.find((s) => s.id === "drift")!.run).toContain(
      `jq -r '[.results[] | select(any(.changes[]; .op == "drift" or .op == "gone")) | .stack] | join(",")' drift.json`,
    );
  });

  it("previews and deploys are matrices over the plan's batches, guarded by its `any`, never fail-fast", () => {
    for (const [job, batches, any] of [
      ["preview", "preview-batches", "preview-any"],
      ["preview-adoptions", "adoption-batches", "adoption-any"],
      ["up", "deploy-batches", "any"],
    ] as const) {
      expect(workflow.jobs[job]!.strategy).toEqual({
        "fail-fast": false,
        matrix: { batch: `\${{ fromJSON(needs.plan.outputs.${batches}) }}` },
      });
      expect(workflow.jobs[job]!.steps.some((s) => s.run?.includes('--stack "$BATCH"') && s.env?.BATCH === "${{ matrix.batch }}")).toBe(
        true,
      );
      // With `any` false the job cannot run, whatever else holds (an empty matrix is an error).
      const guarded = copy();
      guarded.jobs[job]!.if = guarded.jobs[job]!.if!.replace(
        `needs.plan.outputs.${any} == 'true'`,
        `needs.plan.outputs.${any} == 'true' && false`,
      );
      expect(jobsOn(guarded, "pull_request").concat(jobsOn(guarded, "push"))).not.toContain(job);
      expect(workflow.jobs[job]!.if).toContain(`needs.plan.outputs.${any} == 'true'`);
    }
  });

  it("Node.js 24; NPM_TOKEN only on `npm ci --ignore-scripts`; GH_TOKEN only where gh runs; no checkout keeps a token; the commenting job runs no repository code", () => {
    for (const [name, job] of Object.entries(workflow.jobs)) {
      for (const step of job.steps) {
        const json = JSON.stringify(step);
        if (json.includes("NPM_TOKEN"))
          expect([name, step]).toEqual([name, { run: "npm ci --ignore-scripts", env: { NPM_TOKEN: "${{ secrets.NPM_TOKEN }}" } }]);
        if (step.env?.GH_TOKEN !== undefined) expect([name, step.run]).toEqual([name, expect.stringMatching(/\bgh (api|run|pr) /)]);
        if (/\bgh (api|run|pr) /.test(step.run ?? "")) expect([name, step.env?.GH_TOKEN]).toEqual([name, "${{ github.token }}"]);
        if (step.uses?.startsWith("actions/checkout@")) expect([name, step.with?.["persist-credentials"]]).toEqual([name, false]);
      }
      if (job.steps.some((s) => s.run === "npm ci --ignore-scripts")) {
        const node = job.steps.find((s) => s.uses?.startsWith("actions/setup-node@"));
        expect([name, String(node?.with?.["node-version"])]).toEqual([name, "24"]);
      }
    }
    const writers = Object.entries(workflow.jobs).filter(([, job]) => Object.values(job.permissions ?? {}).includes("write"));
    expect(writers.map(([name]) => name)).toEqual(["comment"]);
    for (const [, job] of writers) {
      expect(job.steps.filter((s) => s.uses?.startsWith("actions/checkout@") || /\bnp[mx]\b/.test(s.run ?? ""))).toEqual([]);
    }
  });

  // Needs the tool's `--batch-size` and `up --refresh` (docs/catalog-workflow.md).
  it("runs only the tool's commands and options", async () => {
    let usage = "";
    expect(await catalogCli(["--help"], { out: (t) => (usage += t), err: () => {} }, new AbortController().signal)).toBe(0);
    // The commands the usage lists, one per line: `  plan      the stacks a change touches …`.
    const commands = [...usage.matchAll(/^ {2}([a-z]+) {2,}/gm)].map((m) => m[1]!);
    const options = new Set([...usage.matchAll(/^\s+(--[a-z-]+)/gm)].map((m) => m[1]!));
    const scripts = Object.values(workflow.jobs).flatMap((job) => job.steps.flatMap((s) => (s.run ? [s.run] : [])));
    const calls = scripts.flatMap((run) => [...run.matchAll(/npx serviceapi-catalog ([^\n>|]*)/g)].map((m) => m[1]!.trim().split(/\s+/)));
    expect(calls.map(([command]) => command).sort()).toEqual([
      "drift",
      "plan",
      "preview",
      "preview",
      "report",
      "report",
      "report",
      "report",
      "split",
      "up",
      "up",
    ]);
    const used = new Set(
      calls.flatMap(([, ...args]) => args.filter((a) => /^(\$\{base:\+)?--/.test(a)).map((a) => a.replace("${base:+", ""))),
    );
    expect([...used].sort()).toEqual(["--base", "--batch-size", "--json", "--policy-param", "--refresh", "--stack"]);
    for (const [command] of calls) expect(commands).toContain(command);
    expect([...used].filter((option) => !options.has(option))).toEqual([]);
  });

  // Needs the plan's `batches` (docs/catalog-workflow.md).
  it("reads only fields the tool's plan prints, and the outputs its plan step writes", async () => {
    const scripts = Object.values(workflow.jobs).flatMap((job) => job.steps.flatMap((s) => (s.run ? [s.run] : [])));
    // The plan's JSON, as the tool prints it for the example's catalog in a fresh backend, read with the workflow's own jq filters.
    const filters = [...scripts.join("\n").matchAll(/jq -c ('[^']+'|\S+) plan\.json/g)].map((m) => m[1]!.replace(/^'|'$/g, ""));
    const printed: string[] = [];
    // A fresh file backend: `plan` reads it directly, with no Pulumi CLI.
    const state = mkdtempSync(join(tmpdir(), "workflow-plan-"));
    onTestFinished(() => rmSync(state, { recursive: true, force: true }));
    const options_: ToolOptions = {
      catalogDir: join(REPO, "examples", "catalog-tool", "catalog"),
      workDir: join(state, "work"),
      project: "serviceapi-catalog",
      stackPrefix: "catalog-",
      stackSize: 250,
      parallel: 1,
      stacks: [],
      json: true,
      all: false,
      config: {},
      refresh: false,
      write: false,
      sites: false,
      forceUnlock: false,
      createAnew: [],
      journals: [],
      logs: [],
      batchSize: 8,
      keyFrom: "slug",
      policies: { dirs: [], off: [], params: {} },
    };
    const workspaces = new Workspaces({
      workDir: options_.workDir,
      project: options_.project,
      stackPrefix: options_.stackPrefix,
      config: {},
      env: { PULUMI_BACKEND_URL: `file://${state}` },
    });
    expect(await runPlan(options_, workspaces, { out: (t) => printed.push(t), err: () => {} })).toBe(0);
    const plan = JSON.parse(printed.join("")) as {
      any: unknown;
      preview: { any: unknown };
      moves: unknown[];
      batches?: Record<string, unknown[]>;
    };
    // Each filter of the workflow, as JavaScript; a filter not listed here fails, so a new one is checked too.
    const read: Record<string, (p: typeof plan) => unknown> = {
      ".batches.deploy": (p) => p.batches?.deploy,
      ".any": (p) => p.any,
      ".batches.previewReadOnly": (p) => p.batches?.previewReadOnly,
      ".batches.previewReadOnly | length > 0": (p) => p.batches!.previewReadOnly!.length > 0,
      ".batches.previewAdopting": (p) => p.batches?.previewAdopting,
      ".batches.previewAdopting | length > 0": (p) => p.batches!.previewAdopting!.length > 0,
      ".moves | length > 0": (p) => p.moves.length > 0,
    };
    expect(filters.sort()).toEqual(Object.keys(read).sort());
    expect(Object.fromEntries(filters.map((f) => [f, read[f]!(plan)]))).toEqual({
      ".batches.deploy": ["catalog-add-ons.all,catalog-legacy.all,catalog-plans.all"],
      ".any": true,
      ".batches.previewReadOnly": ["catalog-add-ons.all,catalog-legacy.all,catalog-plans.all"],
      ".batches.previewReadOnly | length > 0": true,
      ".batches.previewAdopting": [],
      ".batches.previewAdopting | length > 0": false,
      ".moves | length > 0": false,
    });
    // The job outputs are the ones its steps write (the plan step's, and the approval the `last` step looks up).
    const written = workflow.jobs.plan!.steps.flatMap((step) =>
      [...(step.run ?? "").matchAll(/echo "([a-z-]+)=/g)].map((m) => `\${{ steps.${step.id}.outputs.${m[1]}`),
    );
    for (const [name, value] of Object.entries(workflow.jobs.plan!.outputs!))
      expect([name, written.some((w) => value.startsWith(`${w} `) || value.startsWith(`${w}}`))]).toEqual([name, true]);
    // The same plan as text: counts in words that agree with their number.
    const text: string[] = [];
    expect(await runPlan({ ...options_, json: false }, workspaces, { out: (t) => text.push(t), err: () => {} })).toBe(0);
    expect(text.filter((line) => / \(\d+ products?\)$| stack\(s\) of at most /.test(line))).toEqual([
      "10 products in 3 stack(s) of at most 250 (no stack yet: `up` creates them)",
      "  catalog-add-ons.all (4 products)",
      "  catalog-legacy.all (2 products)",
      "  catalog-plans.all (4 products)",
    ]);
    // One of a kind is said in the singular (a new team read "1 products").
    text.length = 0;
    const one = join(state, "one");
    mkdirSync(one);
    writeFileSync(join(one, "plans.yaml"), "starter:\n  project: Acme Web\n  title: Starter\n");
    expect(await runPlan({ ...options_, json: false, catalogDir: one }, workspaces, { out: (t) => text.push(t), err: () => {} })).toBe(0);
    expect(text.slice(0, 1).concat(text.filter((line) => line.startsWith("  ")))).toEqual([
      "1 product in 1 stack(s) of at most 250 (no stack yet: `up` creates them)",
      "  catalog-plans.all (1 product)",
    ]);
  });
});
