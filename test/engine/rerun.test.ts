/**
 * "Re-run failed job" after a create whose answer was lost (the connection reset after the service
 * processed it): the first `up` records the resource as an unconfirmed create, so the re-run —
 * with no change to the program — refuses, naming the resource and the two ways out, instead of
 * creating a second record. Then each way out works: `adoptId` takes the record over (nothing
 * created), `pulumi up --replace <urn>` creates it anew (a deliberate second record). Products and
 * tasks, through the dynamic resources and the plugin.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_IDS } from "../../simulator/seed";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { engineSuite } from "./suite";
import { ENGINE_TIMEOUT_MS, expectFailure, wire, type EngineStack } from "../../scripts/engine/driver";
import { daysAhead } from "../support/time";

const project = DEFAULT_IDS.acmeDocs;
const WAYS_OUT =
  /set `adoptId: \\?"<its id>\\?"` on this Product, then run `pulumi up`: it is taken over, nothing is created\. If it does not exist, create it anew: /;

describe("a re-run after an ambiguous create does not duplicate", { timeout: ENGINE_TIMEOUT_MS }, () => {
  const suite = engineSuite();
  let sim: Simulator;
  beforeEach(() => {
    sim = suite.sim();
  });

  /** Up with the create's response lost; returns the one record the service made. */
  async function lostCreate(engine: EngineStack, title: string): Promise<string> {
    sim.addFault({ operation: "products.create", kind: "reset", when: "after" });
    const first = await expectFailure(engine.up());
    expect(first.text).toContain("products.create failed: connection error");
    expect(first.text).toMatch(
      /The stack records Product \\?"pro\\?" as an unconfirmed create, so no later `pulumi preview` or `pulumi up` creates it again by itself/,
    );
    const made = sim.products().filter((p) => p.title === title);
    expect(made).toHaveLength(1);
    const [placeholder] = await engine.resources("Product");
    expect(placeholder!.id).toMatch(/^unconfirmed-create-[0-9a-f]{8}$/);
    return made[0]!.id;
  }

  it("dynamic: the re-run refuses at preview and at up; adoptId then takes the product over: 1 product", async () => {
    const engine = await suite.newStack();
    await engine.setSpec({ products: { pro: { projectId: project, title: "Rerun pro" } } });
    const id = await lostCreate(engine, "Rerun pro");

    // The pipeline's re-run: same program, same stack.
    const preview = await expectFailure(engine.preview());
    expect(preview.text).toMatch(
      /Product \\?"pro\\?": an earlier `pulumi up` sent products\.create at \d{4}-\d\d-\d\dT[\d:.]+Z and never got the answer, so it may exist on the service; it is not created again by itself\./,
    );
    expect(preview.text).toMatch(WAYS_OUT);
    expect(preview.text).toContain("`pulumi up --replace <its URN>` (`pulumi stack --show-urns` lists it)");
    const rerun = await expectFailure(engine.up());
    expect(rerun.text).toContain("it is not created again by itself");
    expect(wire(sim)).toEqual([]);
    expect(sim.products().filter((p) => p.title === "Rerun pro")).toHaveLength(1);
    // Refresh keeps the placeholder (nothing to read) and says nothing is wrong with it.
    await engine.refresh();
    expect(wire(sim)).toEqual([]);

    // Way out 1: the product exists; adopt it.
    await engine.setSpec({ products: { pro: { projectId: project, title: "Rerun pro", adoptId: id } } });
    const up = await engine.up();
    expect(up.result.summary.resourceChanges).toMatchObject({ replace: 1 });
    expect(wire(sim)).toEqual([{ operation: "products.update", method: "PATCH", path: `/api/v1/public/products/${id}`, body: {} }]);
    expect(up.text).toMatch(/its create was never confirmed, so there is no product id to send anything to; removed from the stack/);
    expect(sim.products().filter((p) => p.title === "Rerun pro")).toHaveLength(1);
    expect((await engine.resources("Product")).map((r) => r.id)).toEqual([id]);
    expect((await engine.preview()).result.changeSummary).toEqual({ same: 2 });
  });

  it("dynamic: the other way out, pulumi up --replace <urn>, creates the product anew", async () => {
    const engine = await suite.newStack();
    await engine.setSpec({ products: { pro: { projectId: project, title: "Rerun anew" } } });
    await lostCreate(engine, "Rerun anew");
    const [placeholder] = await engine.resources("Product");
    const up = await engine.up({ replace: [placeholder!.urn] });
    expect(up.result.summary.resourceChanges).toMatchObject({ replace: 1 });
    expect(wire(sim).map((c) => c.operation)).toEqual(["products.create"]);
    expect(sim.products().filter((p) => p.title === "Rerun anew")).toHaveLength(2);
    expect((await engine.preview()).result.changeSummary).toEqual({ same: 2 });
  });

  it("dynamic: a task whose create answer was lost: the re-run refuses; adoptId records it with no request", async () => {
    const engine = await suite.newStack();
    const task = { projectId: project, title: "Rerun task", prompt: "P", scheduledAt: daysAhead(365) };
    await engine.setSpec({ tasks: { weekly: task } });
    sim.addFault({ operation: "tasks.create", kind: "error", status: 500, when: "after" });
    const first = await expectFailure(engine.up());
    expect(first.text).toMatch(/The stack records Task \\?"weekly\\?" as an unconfirmed create/);
    const made = sim.tasks().filter((t) => t.title === "Rerun task");
    expect(made).toHaveLength(1);
    const rerun = await expectFailure(engine.up());
    expect(rerun.text).toMatch(/Task \\?"weekly\\?": an earlier `pulumi up` sent tasks\.create at .+ and never got the answer/);
    expect(rerun.text).toContain("find it in the service's UI (the API cannot list tasks)");
    expect(sim.tasks().filter((t) => t.title === "Rerun task")).toHaveLength(1);

    await engine.setSpec({ tasks: { weekly: { ...task, adoptId: made[0]!.id } } });
    const up = await engine.up();
    expect(wire(sim)).toEqual([]);
    expect(up.text).toMatch(
      new RegExp(`adopted Task \\\\?"weekly\\\\?" \\(id ${made[0]!.id}\\): recorded as the program declares it; nothing sent`),
    );
    expect(sim.tasks().filter((t) => t.title === "Rerun task")).toHaveLength(1);
    // Removing adoptId afterwards changes nothing on the service.
    await engine.setSpec({ tasks: { weekly: task } });
    await engine.up();
    expect(wire(sim)).toEqual([]);
    expect((await engine.preview()).result.changeSummary).toEqual({ same: 2 });
  });

  it("plugin: the re-run refuses naming the resource's URN, and adoptId takes the product over", async () => {
    const yaml = (adopt?: string) =>
      [
        "name: rerun-yaml",
        "runtime: yaml",
        "resources:",
        "  pro:",
        "    type: serviceapi:index:Product",
        "    properties:",
        `      projectId: ${project}`,
        "      title: Rerun plugin",
        ...(adopt ? [`      adoptId: ${adopt}`] : []),
        "",
      ].join("\n");
    const engine = await suite.newStack({ yaml: yaml(), plugin: true });
    sim.addFault({ operation: "products.create", kind: "reset", when: "after" });
    await expectFailure(engine.up());
    const made = sim.products().filter((p) => p.title === "Rerun plugin");
    expect(made).toHaveLength(1);
    const rerun = await expectFailure(engine.up());
    expect(rerun.text).toContain("`pulumi up --replace 'urn:pulumi:test::rerun-yaml::serviceapi:index:Product::pro'`");
    expect(sim.products().filter((p) => p.title === "Rerun plugin")).toHaveLength(1);
    engine.writeProgram(yaml(made[0]!.id));
    await engine.up();
    expect(sim.products().filter((p) => p.title === "Rerun plugin")).toHaveLength(1);
    expect((await engine.resources("Product", "plugin")).map((r) => r.id)).toEqual([made[0]!.id]);
  });
});
