/**
 * Every example runs under the real Pulumi CLI against the simulator: the quick start (from its
 * folder and from the repo root's Pulumi.yaml) and the YAML catalog, including a bad catalog that
 * must fail at preview naming the file, the entry and the field.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { engineSuite } from "./suite";
import { nextWeeklyAt } from "../support/time";
import { ENGINE_TIMEOUT_MS, REPO, expectFailure, wire } from "../../scripts/engine/driver";

describe("examples under the Pulumi CLI", { timeout: ENGINE_TIMEOUT_MS }, () => {
  const suite = engineSuite();
  const newStack = suite.newStack;
  let sim: Simulator;
  beforeEach(() => {
    sim = suite.sim();
  });

  it("examples/quickstart: up creates the catalog, a second preview changes nothing, destroy cleans up", async () => {
    const engine = await newStack({ program: join(REPO, "examples", "quickstart") });
    const up = await engine.up();
    expect(up.result.summary.resourceChanges).toEqual({ create: 6 });
    const out = await engine.outputs();
    expect(out.productStatuses!.value).toEqual({ pro: "active", legacy: "archived", enterprise: "draft" });
    expect(out.siteSubdomain!.value).toBe("acme-web-001");
    expect(out.siteOriginalName!.value).toBe("Acme Web 001");
    // The series starts on a past Monday: its next run is the first Monday 09:00 UTC after the task was created.
    const [task] = await engine.resources("Task");
    expect(out.reportNextRunAt!.value).toBe(nextWeeklyAt(new Date(task!.outputs.createdAt as string), 1, 9).toISOString());

    const preview = await engine.preview();
    expect(preview.result.changeSummary).toEqual({ same: 6 });
    // Only the data-source lookups: the project by name, and the default site (250 sites, 3 pages).
    expect(wire(sim).map((c) => c.operation)).toEqual(["projects.list", "sites.list", "sites.list", "sites.list"]);

    const destroy = await engine.destroy();
    expect(destroy.result.summary.resourceChanges).toEqual({ delete: 6 });
  });

  it("the repo root's Pulumi.yaml runs the quick start", async () => {
    const engine = await newStack({ program: REPO, inPlace: true });
    const preview = await engine.preview();
    expect(preview.result.changeSummary).toEqual({ create: 6 });
  });

  it("examples/catalog-from-yaml: products from the file, and a bad file fails preview naming file, entry and field", async () => {
    const program = join(REPO, "examples", "catalog-from-yaml");
    const engine = await newStack({ program });
    const up = await engine.up();
    expect(up.result.summary.resourceChanges).toEqual({ create: 4 });
    expect(Object.keys((await engine.outputs()).products!.value as object).sort()).toEqual(["pro", "starter", "team"]);

    writeFileSync(
      join(engine.dir, "bad.yaml"),
      [
        "project: Acme Web",
        "products:",
        "  - key: pro",
        "    title: Pro plan",
        "  - key: cheap",
        "    title: ''",
        "    status: on-sale",
        "  - key: odd",
        "    title: Odd",
        "    colour: blue",
      ].join("\n"),
    );
    await engine.stack.setConfig("serviceapi-catalog-from-yaml:catalogFile", { value: "bad.yaml" });
    const failed = await expectFailure(engine.preview());
    expect(failed.text).toContain("bad.yaml has 3 problem(s):");
    expect(failed.text).toContain("products[1] (cheap): title must be 1 to 1024 characters long (got 0)");
    expect(failed.text).toContain('products[1] (cheap): status must be one of "active", "archived", "draft"');
    expect(failed.text).toContain("products[2] (odd): colour is not an input of Product (its inputs are ");
    expect(wire(sim).filter((c) => c.operation !== "projects.list")).toEqual([]);
  });
});
