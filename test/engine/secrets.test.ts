/**
 * Secrets under the real Pulumi CLI. Every string input of a Product and a Task is a
 * `pulumi.secret(…)`; through create, update, replace, refresh (with drift), a check failure and
 * destroy, no plaintext reaches the CLI output or any engine event — including the messages the
 * provider writes, which name records by logical name and id only. And the token: a warning when
 * it sits in plain stack config, none when it is a secret.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServiceApiClient } from "../../provider";
import { DEFAULT_IDS } from "../../simulator/seed";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { simulator } from "../helpers";
import { stackPerTest } from "./suite";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { ENGINE_TIMEOUT_MS, EngineStack, expectFailure, pulumiCli, type ProgramSpec } from "../../scripts/engine/driver";
import { nextWeeklyAt } from "../support/time";

const project = DEFAULT_IDS.acmeWeb;

const MONDAY = nextWeeklyAt(new Date(Date.now() + 7 * 86_400_000), 1, 9);

/** Distinct plaintexts, so a match can only be a leak. */
const SECRET = {
  title: "Acquisition of Globex 5d1",
  title2: "Acquisition of Globex 5d1, phase two",
  description: "Board-only notes 8c2e",
  slug: "globex-deal-3f7",
  url: "https://shop.example.com/globex-deal-a41",
  taskTitle: "Integration task 77b",
  prompt: "Summarize the Globex due diligence 0e9",
  prompt2: "Summarize the Globex due diligence, round two 0e9",
  /** A Monday at 09:00 at least a week ahead, whenever the test runs (no fixed date: one would pass silently once it is past). */
  scheduledAt: MONDAY.toISOString().replace(".000Z", "Z"),
  /** Mondays from a Monday: the first run is scheduledAt itself, in another spelling. */
  firstRun: MONDAY.toISOString(),
  rrule: "FREQ=WEEKLY;BYDAY=MO;BYHOUR=9",
  emoji: "🤫",
  drifted: "Edited in the UI 6b4",
  tooLong: "Q".repeat(10_001),
};

function leaks(text: string): string[] {
  const found = Object.entries(SECRET).filter(([key, value]) =>
    key === "tooLong" ? text.includes(value.slice(0, 40)) : text.includes(value),
  );
  return found.map(([key]) => key);
}

describe("secret inputs are never echoed", { timeout: ENGINE_TIMEOUT_MS }, () => {
  let sim: Simulator;
  let engine: EngineStack;
  const runs: { result?: { stdout?: string; stderr?: string }; message?: string; events: EngineEvent[] }[] = [];
  let spec: ProgramSpec;

  beforeAll(async () => {
    sim = await simulator();
    engine = await EngineStack.create(sim);
    spec = {
      secretInputs: true,
      products: {
        deal: {
          projectId: project,
          title: SECRET.title,
          description: SECRET.description,
          slug: SECRET.slug,
          externalCheckoutUrl: SECRET.url,
          status: "active",
          onDelete: "archive",
        },
      },
      tasks: {
        diligence: {
          projectId: project,
          title: SECRET.taskTitle,
          prompt: SECRET.prompt,
          scheduledAt: SECRET.scheduledAt,
          rrule: SECRET.rrule,
          emoji: SECRET.emoji,
        },
      },
    };
  }, 30 * 60_000);

  afterAll(() => engine?.dispose());

  it("create, update, replace, refresh with drift, a too-long secret and destroy: 0 plaintext occurrences", async () => {
    await engine.setSpec(spec);
    const created = await engine.up();
    runs.push(created);
    expect(created.result.summary.resourceChanges).toEqual({ create: 3 });
    const [product] = await engine.resources("Product");
    const [task] = await engine.resources("Task");
    // State keeps them encrypted, nextRunAt (derived from scheduledAt and rrule) included.
    expect(leaks(engine.stateFileText())).toEqual([]);
    expect(engine.stateFileText()).toContain(product!.id);

    spec.products!.deal!.title = SECRET.title2;
    await engine.setSpec(spec);
    runs.push(await engine.preview({ diff: true }));
    const updated = await engine.up();
    runs.push(updated);
    expect(updated.result.summary.resourceChanges).toEqual({ same: 2, update: 1 });

    spec.tasks!.diligence!.prompt = SECRET.prompt2;
    await engine.setSpec(spec);
    const replacePreview = await engine.preview({ diff: true });
    runs.push(replacePreview);
    const replaced = await engine.up();
    runs.push(replaced);
    expect(replaced.result.summary.resourceChanges).toMatchObject({ replace: 1 });
    // The replacement names the task by logical name and id.
    expect(replaced.diagnostics.map((d) => d.message).join("\n")).toContain(
      `Task "diligence" (id ${task!.id}) will be replaced because prompt changed`,
    );

    const client = new ServiceApiClient({ baseUrl: sim.url, token: sim.token });
    await client.updateProduct(product!.id, { description: SECRET.drifted });
    await client.close();
    const drift = await engine.preview({ refresh: true, diff: true });
    runs.push(drift);
    expect(drift.result.changeSummary).toMatchObject({ update: 1 });
    const refreshed = await engine.refresh();
    runs.push(refreshed);

    spec.products!.deal!.description = SECRET.tooLong;
    await engine.setSpec(spec);
    const refused = await expectFailure(engine.preview());
    runs.push(refused);
    expect(refused.text).toContain("resource 'deal' has a problem: description must be at most 10000 characters long (got 10001)");

    spec.products!.deal!.description = SECRET.description;
    await engine.setSpec(spec);
    const destroyed = await engine.destroy();
    runs.push(destroyed);
    const messages = destroyed.diagnostics.map((d) => d.message).join("\n");
    expect(messages).toContain(`Product "deal" (id ${product!.id}): sent PATCH {status: "archived"}`);
    expect(messages).toMatch(/Task "diligence" \(id [0-9a-f-]{36}\) was removed from the stack only/);

    // What a user can see: the CLI's output and every engine event but Pulumi's own debug log.
    const visible = runs.map((r) =>
      [
        r.result?.stdout ?? "",
        r.result?.stderr ?? "",
        r.message ?? "",
        ...r.events.filter((e) => (e.diagnosticEvent?.severity as string | undefined) !== "debug").map((e) => JSON.stringify(e)),
      ].join("\n"),
    );
    expect(visible.flatMap(leaks)).toEqual([]);
    expect(visible.join("").length).toBeGreaterThan(50_000);
    // Pulumi's SDK logs every RegisterResource response at debug level (`--debug`, `-v`, the event log),
    // secrets included. Those are the only places a plaintext shows, and none is a message of ours.
    const debugLeaks = runs
      .flatMap((r) => r.events)
      .filter((e) => (e.diagnosticEvent?.severity as string | undefined) === "debug" && leaks(JSON.stringify(e)).length > 0);
    expect(debugLeaks.length).toBeGreaterThan(0);
    for (const e of debugLeaks)
      expect(e.diagnosticEvent!.message).toMatch(/^(RegisterResource|RegisterResourceOutputs|ReadResource) RPC finished/);
  });
});

describe("the token in stack config", { timeout: ENGINE_TIMEOUT_MS }, () => {
  let sim: Simulator;
  // The warning is the program process's, said once per process (provider/program/token-warning.ts): the program runs as one.
  const newStack = stackPerTest(() => sim, { programProcess: true });
  const warning = "serviceapi:token is set in plain text in the stack config";
  beforeAll(async () => {
    await pulumiCli();
    sim = await simulator();
  }, 30 * 60_000);

  it("set without --secret: one warning saying how to fix it, never the token", async () => {
    const engine = await newStack();
    await engine.stack.setConfig("serviceapi:token", { value: sim.token, secret: false });
    await engine.setSpec({ products: { p: { projectId: project, title: "Plain token" } } });
    const run = await engine.preview();
    const warnings = run.diagnostics.filter((d) => d.message.includes(warning));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toContain("pulumi config set --secret serviceapi:token <token>");
    expect(warnings[0]!.message).toContain("SERVICEAPI_TOKEN");
    // (Pulumi itself shows a plain config value in its events, which is what the warning is about.)
    expect(warnings[0]!.message).not.toContain(sim.token);
  });

  it("set with --secret, or only in SERVICEAPI_TOKEN: no warning", async () => {
    const secret = await newStack();
    await secret.setSpec({ products: { p: { projectId: project, title: "Secret token" } } });
    expect((await secret.preview()).text).not.toContain(warning);
    await secret.dispose();

    const fromEnv = await newStack({ token: null, env: { SERVICEAPI_TOKEN: sim.token } });
    await fromEnv.setSpec({ products: { p: { projectId: project, title: "Env token" } } });
    const run = await fromEnv.preview();
    expect(run.text).not.toContain(warning);
    expect(run.result.changeSummary).toEqual({ create: 2 });
  });
});
