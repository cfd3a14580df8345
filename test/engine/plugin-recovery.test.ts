/**
 * A SIGKILLed `pulumi up` through the plugin, recovered with Pulumi's own tools (docs/recovery.md,
 * "With the plugin"): the killed run's output names every product it made; those the state lost
 * are taken back with `pulumi import` (Pulumi CLI v3.248.0's `refresh --import-pending-creates`
 * drops pending creates without reading them, which this test also pins); the next `up` ends with
 * every product exactly once.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_IDS } from "../../simulator/seed";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { createdInOutput, engineSuite, killedUp, yamlProducts } from "./suite";
import { ENGINE_TIMEOUT_MS, wire, type Deployment } from "../../scripts/engine/driver";

const project = DEFAULT_IDS.acmeDocs;

/** A Pulumi YAML catalog of `count` products. */

describe("a killed pulumi up through the plugin, recovered with pulumi import", { timeout: ENGINE_TIMEOUT_MS * 2 }, () => {
  const suite = engineSuite();
  let sim: Simulator;
  beforeEach(() => {
    sim = suite.sim();
  });

  it("every product made is named in the output; the recovery imports them by id and ends with 0 duplicates", async () => {
    const engine = await suite.newStack({ yaml: yamlProducts(project, 20, "Kill plugin"), plugin: true });
    const output = await killedUp(engine, sim, 8);

    const named = createdInOutput(output);
    const made = sim.products().filter((p) => p.title.startsWith("Kill plugin "));
    expect(made).toHaveLength(8);
    expect(new Set(named.values())).toEqual(new Set(made.map((p) => p.id)));

    // The window a kill can land in: the service made the products and the log names them, but the
    // state still has their creates pending. Put the state file in that shape, as the file backend
    // would have left it (`pulumi stack import` drops pending operations).
    const checkpoint = JSON.parse(engine.stateFileText()) as { checkpoint: { latest: Deployment } };
    const latest = checkpoint.checkpoint.latest;
    const recorded = (latest.resources ?? []).filter((r) => r.type === "serviceapi:index:Product");
    latest.resources = (latest.resources ?? []).filter((r) => r.type !== "serviceapi:index:Product");
    latest.pending_operations = [
      ...(latest.pending_operations ?? []),
      ...recorded.map((resource) => ({ resource: { ...resource, id: "", outputs: {} }, type: "creating" })),
    ];
    engine.writeStateFile(JSON.stringify(checkpoint));
    expect(await engine.spawnCli(["cancel", "--yes"]).exited).toBe(0);

    // Pulumi's own `refresh --import-pending-creates <urn> <id>` (CLI v3.248.0) turns the pending
    // creates into imports and then drops them without reading any: docs/recovery.md says so, and
    // this keeps that sentence true (if a later CLI reads them, this fails and the doc changes).
    const pending = (await engine.deployment()).pending_operations ?? [];
    expect(pending.length).toBeGreaterThanOrEqual(8);
    const args = pending.flatMap((op) => {
      const id = named.get(op.resource.urn.split("::").pop()!);
      // The flag takes one value at a time: URN, then ID.
      return id === undefined ? [] : ["--import-pending-creates", op.resource.urn, "--import-pending-creates", id];
    });
    expect(args).toHaveLength(8 * 4);
    sim.clearRequests();
    expect(await engine.spawnCli(["refresh", "--yes", "--non-interactive", ...args]).exited).toBe(0);
    expect(sim.requests()).toEqual([]);
    expect(await engine.resources("Product", "plugin")).toEqual([]);

    // What works, with Pulumi's own tools (docs/recovery.md, "With the plugin"): clear what is
    // still pending, then `pulumi import` every product the log names and the stack lacks.
    expect(await engine.spawnCli(["refresh", "--clear-pending-creates", "--yes", "--non-interactive"]).exited).toBe(0);
    const importFile = join(engine.dir, "recover.json");
    writeFileSync(
      importFile,
      JSON.stringify({
        resources: [...named].map(([name, id]) => ({ type: "serviceapi:index:Product", name, id: `${project}/${id}` })),
      }),
    );
    sim.clearRequests();
    const imported = engine.spawnCli([
      "import",
      "--file",
      importFile,
      "--protect=false",
      "--generate-code=false",
      "--yes",
      "--non-interactive",
    ]);
    expect(await imported.exited).toBe(0);
    expect(imported.output()).toContain("8 imported");
    // Read with empty PATCHes (once for the preview, once for the import), nothing else.
    expect(wire(sim).map((c) => [c.operation, c.body])).toEqual(Array(16).fill(["products.update", {}]));

    const up = await engine.up();
    expect(up.result.summary.resourceChanges).toMatchObject({ create: 12 });
    const all = sim.products().filter((p) => p.title.startsWith("Kill plugin "));
    expect(all).toHaveLength(20);
    expect(new Set(all.map((p) => p.title)).size).toBe(20);
  });
});
