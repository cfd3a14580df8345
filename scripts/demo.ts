/**
 * `npm run demo [-- --keep]`: the main job on the bundled simulator, with the real Pulumi CLI.
 *   1. `pulumi up` of the quick start
 *   2. one product field changed in the program → preview shows only that field; up sends one PATCH
 *   3. a change made behind Pulumi's back → the drift gate fails and names it; `up --refresh --run-program` restores
 *   4. `pulumi destroy --run-program` → products archived, site name restored, the task's warning
 * Ends with a table (step, result, API requests) and leaves nothing running, unless `--keep`, which
 * stops before destroy and keeps the stack and the simulator up for exploring.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { ServiceApiClient } from "../provider";
import { productChanges } from "../provider/resources/product";
import { isProductResource } from "../provider/resources/product/recorded";
import { startSimulator, type Simulator } from "pulumi-serviceapi-simulator";
import { EngineStack, REPO, pulumiCli, requestSummary, wire, type FailedRun } from "./engine/driver";

const keep = process.argv.includes("--keep");
const rows: { step: string; result: string; requests: string }[] = [];

class DemoFailure extends Error {
  constructor(
    readonly step: string,
    message: string,
    readonly reproduce: string,
  ) {
    super(message);
  }
}

function say(text: string): void {
  console.log(text);
}

/**
 * The fields an update step of a product would send, from the engine's events, with their values:
 * "pro-plan: title "Pro plan" → "Pro plan (2027)"". The product's own rule (`productChanges`: the
 * PATCH body `up` sends), as the catalog tool's reports use it.
 */
function changedFields(events: EngineEvent[]): string[] {
  return events.flatMap((e) => {
    const m = e.resourcePreEvent?.metadata;
    if (!m || m.op !== "update" || !m.old || !m.new || !isProductResource({ type: m.type, outputs: m.old.outputs })) return [];
    const key = m.urn.split("::").pop();
    return productChanges(m.old.outputs as never, m.new.inputs as never).map(
      (c) => `${key}: ${c.field} ${JSON.stringify(c.from)} → ${JSON.stringify(c.to)}`,
    );
  });
}

async function run(sim: Simulator): Promise<EngineStack> {
  say("\nCreating a temporary local stack of examples/quickstart (file backend, passphrase secrets).");
  const engine = await EngineStack.create(sim, { program: join(REPO, "examples", "quickstart") });
  const client = new ServiceApiClient({ baseUrl: sim.url, token: sim.token });
  const fail = (step: string, message: string, args: string) => new DemoFailure(step, message, engine.commandLine(args));
  try {
    say("\n── Step 1: pulumi up — create the catalog");
    const up = await engine.up().catch((e: FailedRun) => {
      throw fail("1 up", e.message, "up");
    });
    const out = await engine.outputs();
    say(`   Created: ${JSON.stringify(up.result.summary.resourceChanges)}`);
    say(`   Products: ${JSON.stringify(out.productStatuses?.value)}`);
    say(`   Site subdomain: ${out.siteSubdomain?.value}, renamed from ${JSON.stringify(out.siteOriginalName?.value)}`);
    say(`   Weekly report next runs at ${out.reportNextRunAt?.value}`);
    rows.push({
      step: "1. pulumi up (quick start)",
      result: `${up.result.summary.resourceChanges?.create ?? 0} created`,
      requests: requestSummary(sim),
    });
    const proId = (out.productIds?.value as { pro: string }).pro;

    say("\n── Step 2: change one field in the program (the Pro plan's title)");
    const programFile = join(engine.dir, "index.ts");
    writeFileSync(programFile, readFileSync(programFile, "utf8").replace('title: "Pro plan"', 'title: "Pro plan (2027)"'));
    const preview = await engine.preview({ diff: true }).catch((e: FailedRun) => {
      throw fail("2 preview", e.message, "preview --diff");
    });
    const planned = changedFields(preview.events);
    say(`   pulumi preview --diff plans: ${planned.join("; ")}`);
    const previewRequests = wire(sim).filter((c) => c.operation !== "projects.list" && c.operation !== "sites.list").length;
    say(`   Requests to change anything during preview: ${previewRequests} (the lookups by name are the only reads)`);
    if (planned.length !== 1)
      throw fail("2 preview", `expected exactly one changed field, got: ${planned.join("; ") || "none"}`, "preview --diff");
    rows.push({
      step: "2a. one field changed → preview --diff",
      result: `plans 1 update: ${planned[0]!.split(":")[1]!.trim().split(" ")[0]}`,
      requests: requestSummary(sim),
    });
    const update = await engine.up().catch((e: FailedRun) => {
      throw fail("2 up", e.message, "up");
    });
    const patches = wire(sim).filter((c) => c.operation === "products.update");
    for (const p of patches) say(`   Sent: ${p.method} ${p.path} ${JSON.stringify(p.body)}`);
    if (patches.length !== 1 || Object.keys(patches[0]!.body as object).length !== 1) {
      throw fail("2 up", `expected one PATCH with one key, got ${JSON.stringify(patches.map((p) => p.body))}`, "up");
    }
    rows.push({
      step: "2b. pulumi up",
      result: `${update.result.summary.resourceChanges?.update ?? 0} updated, 1 PATCH with 1 key`,
      requests: requestSummary(sim),
    });

    say("\n── Step 3: someone edits the Pro plan in the admin UI (a PATCH straight to the simulator)");
    await client.updateProduct(proId, { description: "Edited in the admin UI" });
    // --run-program: the refresh uses the current stack config, not the copy recorded at the last up (docs/resources.md).
    say("   pulumi preview --refresh --run-program --expect-no-changes (the drift gate a pull request runs):");
    const gate = await engine.preview({ refresh: true, runProgram: true, expectNoChanges: true, diff: true }).then(
      () => undefined,
      (e: FailedRun) => e,
    );
    if (!gate) {
      throw fail(
        "3 drift gate",
        "the drift gate passed, but the product was changed behind Pulumi's back",
        "preview --refresh --run-program --expect-no-changes --diff",
      );
    }
    const drift = changedFields(gate.events);
    say(`   It fails (exit code 7) and names the drift: ${drift.join("; ")}`);
    if (!drift.some((d) => d.includes("description")))
      throw fail("3 drift gate", `drift not named: ${drift.join("; ")}`, "preview --refresh --run-program --diff");
    const gateRequests = requestSummary(sim);
    const restore = await engine.up({ refresh: true, runProgram: true }).catch((e: FailedRun) => {
      throw fail("3 up --refresh", e.message, "up --refresh --run-program");
    });
    const restored = wire(sim).filter((c) => c.operation === "products.update" && Object.keys(c.body as object).length > 0);
    for (const p of restored) say(`   pulumi up --refresh --run-program sent: ${p.method} ${p.path} ${JSON.stringify(p.body)}`);
    rows.push({
      step: "3a. drift gate (preview --refresh --run-program --expect-no-changes)",
      result: "failed as it should: description",
      requests: gateRequests,
    });
    rows.push({
      step: "3b. pulumi up --refresh --run-program",
      result: `${restore.result.summary.resourceChanges?.update ?? 0} restored`,
      requests: requestSummary(sim),
    });

    if (keep) return engine;

    say("\n── Step 4: pulumi destroy --run-program");
    const destroy = await engine.destroy({ runProgram: true }).catch((e: FailedRun) => {
      throw fail("4 destroy", e.message, "destroy --run-program");
    });
    for (const d of destroy.diagnostics) {
      const text = d.message.replace(/^(info|warning): \[runtime\] /, "").trim();
      if (text.startsWith("serviceapi:")) say(`   ${text}`);
    }
    rows.push({
      step: "4. pulumi destroy --run-program",
      result: `${destroy.result.summary.resourceChanges?.delete ?? 0} deleted; products archived, site renamed back, task warned`,
      requests: requestSummary(sim),
    });
    return engine;
  } finally {
    await client.close();
  }
}

function printSummary(seconds: number): void {
  const widths = [Math.max(...rows.map((r) => r.step.length), 4), Math.max(...rows.map((r) => r.result.length), 6)];
  say("\nSummary");
  say(`  ${"Step".padEnd(widths[0]!)}  ${"Result".padEnd(widths[1]!)}  API requests`);
  for (const r of rows) say(`  ${r.step.padEnd(widths[0]!)}  ${r.result.padEnd(widths[1]!)}  ${r.requests}`);
  say(`  Total time: ${seconds.toFixed(1)} s`);
}

async function main(): Promise<void> {
  const started = performance.now();
  say("pulumi-serviceapi demo: the quick start on the bundled simulator, with the real Pulumi CLI.");
  say("Getting the Pulumi CLI (scripts/install-pulumi.sh): a pulumi >= 3.216 on PATH, a cached build,");
  say("or a build from pinned Go modules — about 15 minutes the first time, seconds afterwards.");
  await pulumiCli();
  const sim = await startSimulator({ port: 0 });
  say(`Simulator listening at ${sim.url} (token ${sim.token}).`);
  let engine: EngineStack | undefined;
  try {
    engine = await run(sim);
    printSummary((performance.now() - started) / 1000);
  } catch (error) {
    if (error instanceof DemoFailure) {
      console.error(`\nThe demo stopped at step ${error.step}: ${error.message}`);
      console.error(`To reproduce: npm run demo -- --keep, then in another terminal:\n  ${error.reproduce}`);
    } else {
      console.error(`\nThe demo stopped: ${(error as Error).message}`);
    }
    process.exitCode = 1;
  }
  if (keep && engine && process.exitCode !== 1) {
    say("\n--keep: the stack and the simulator stay up (Ctrl-C stops the simulator). Try:");
    say(`  ${engine.commandLine("preview --refresh --run-program --diff")}`);
    say(`  curl -s ${sim.url}/_simulator/requests | head -c 2000`);
    say(`  ${engine.commandLine("destroy --run-program --yes")}`);
    process.on("SIGINT", () => void sim.close().then(() => process.exit(0)));
    return;
  }
  await engine?.dispose();
  await sim.close();
}

void main();
