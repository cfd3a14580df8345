/**
 * The life of one stack under the real Pulumi CLI, as a user lives it: up, a no-change preview, a
 * one-field change, drift made behind Pulumi's back, a task replacement, and destroy. Each step
 * checks what went over the wire (the simulator's request log) and what the engine reported.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServiceApiClient } from "../../provider";
import { DEFAULT_IDS } from "../../simulator/seed";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { simulator } from "../helpers";
import { step } from "./suite";
import { nextWeeklyAt } from "../support/time";
import { ENGINE_TIMEOUT_MS, EngineStack, expectFailure, steps, wire, type ProgramSpec } from "../../scripts/engine/driver";

const project = DEFAULT_IDS.acmeWeb;

describe("a stack's life under the Pulumi CLI", { timeout: ENGINE_TIMEOUT_MS }, () => {
  let sim: Simulator;
  let engine: EngineStack;
  let client: ServiceApiClient;
  let spec: ProgramSpec;
  const ids: Record<string, string> = {};
  let siteIds: string[];
  let originalNames: string[];

  beforeAll(async () => {
    sim = await simulator();
    client = new ServiceApiClient({ baseUrl: sim.url, token: sim.token });
    const sites = sim.seed.sites.filter((s) => s.projectId === project).slice(0, 3);
    siteIds = sites.map((s) => s.id);
    originalNames = sites.map((s) => s.name);
    engine = await EngineStack.create(sim);
    spec = {
      products: {
        pro: { projectId: project, title: "Pro plan", status: "active", slug: "pro", externalCheckoutUrl: "https://shop.example.com/pro" },
        starter: { projectId: project, title: "Starter", description: "Entry plan" },
      },
      sites: {
        home: { projectId: project, siteId: siteIds[0]!, name: "Home" },
        blog: { projectId: project, siteId: siteIds[1]!, name: "Blog" },
        shop: { projectId: project, siteId: siteIds[2]!, name: originalNames[2]! },
      },
      tasks: {
        weekly: {
          projectId: project,
          title: "Weekly report",
          prompt: "Summarize last week's orders",
          // A series that started in the past: its next run is derived from when the task is created.
          scheduledAt: "2026-01-05T09:00:00Z",
          rrule: "FREQ=WEEKLY;BYDAY=MO",
        },
      },
    };
    await engine.setSpec(spec);
  }, 30 * 60_000);

  afterAll(async () => {
    await client?.close();
    await engine?.dispose();
  });

  it("a stack's life, in order: up, no-change preview, one-field change, a cleared field, drift and its repair, a task replaced, destroy", async () => {
    await step("up creates each record once, with the smallest requests", async () => {
      const run = await engine.up();
      // What a user reads of a run never holds the token: checked after each run that could show it.
      expect(run.text).not.toContain(sim.token);
      expect(run.result.summary.resourceChanges).toEqual({ create: 7 });
      const calls = wire(sim);
      const creates = calls.filter((c) => c.operation === "products.create").map((c) => c.body);
      expect(creates).toEqual(
        expect.arrayContaining([
          { title: "Pro plan", projectId: project, slug: "pro", externalCheckoutUrl: "https://shop.example.com/pro" },
          { title: "Starter", projectId: project, description: "Entry plan" },
        ]),
      );
      expect(creates).toHaveLength(2);
      // The create body cannot carry status: one PATCH sets it, only for the product that declares one.
      expect(calls.filter((c) => c.operation === "products.update").map((c) => c.body)).toEqual([{ status: "active" }]);
      // Three sites of one project: one shared listing (250 sites → 3 pages), two renames, none for "shop".
      expect(calls.filter((c) => c.operation === "sites.list")).toHaveLength(3);
      expect(calls.filter((c) => c.operation === "sites.update").map((c) => c.body)).toEqual(
        expect.arrayContaining([{ name: "Home" }, { name: "Blog" }]),
      );
      expect(calls.filter((c) => c.operation === "sites.update")).toHaveLength(2);
      expect(calls.filter((c) => c.operation === "tasks.create").map((c) => c.body)).toEqual([spec.tasks!.weekly]);
      expect(sim.counts()).toEqual({ products: 2, tasks: 1 });

      const outputs = await engine.outputs();
      const products = outputs.products!.value as Record<string, { id: string; status: string; type: string }>;
      ids.pro = products.pro!.id;
      ids.starter = products.starter!.id;
      expect(products.pro).toMatchObject({ status: "active", type: "digital" });
      expect(products.starter).toMatchObject({ status: "draft", type: "digital" });
      const sites = outputs.sites!.value as Record<string, { originalName: string; subdomain: string }>;
      expect(sites.home!.originalName).toBe(originalNames[0]);
      const weekly = (outputs.tasks!.value as Record<string, { id: string; nextRunAt: string; createdAt: string }>).weekly!;
      ids.task = weekly.id;
      // The next Monday 09:00 UTC at or after the moment the service created the task (its own clock).
      expect(weekly.nextRunAt).toBe(nextWeeklyAt(new Date(weekly.createdAt), 1, 9).toISOString());
    });

    await step("state holds a one-line provider stub per resource and never the token", async () => {
      for (const type of ["Product", "Site", "Task"] as const) {
        for (const r of await engine.resources(type)) {
          const stub = r.outputs.__provider as string;
          expect(stub).toContain(`const provider = require("pulumi-serviceapi/dynamic/${type.toLowerCase()}");`);
          expect(stub.length).toBeLessThan(300);
          expect(r.inputs.__provider).toBe(stub);
        }
      }
      // The state file on disk, and `pulumi stack export` as a user runs it.
      expect(engine.stateFileText()).not.toContain(sim.token);
      expect(await engine.exportText()).not.toContain(sim.token);
    });

    await step("a preview with no changes sends no API request", async () => {
      const run = await engine.preview({ diff: true });
      expect(run.text).not.toContain(sim.token);
      expect(run.result.changeSummary).toEqual({ same: 7 });
      expect(wire(sim)).toEqual([]);
    });

    await step("a one-field change is one PATCH with one key; preview sends nothing", async () => {
      spec.products!.pro!.title = "Pro plan 2026";
      await engine.setSpec(spec);
      const preview = await engine.preview({ diff: true });
      expect(preview.result.changeSummary).toEqual({ same: 6, update: 1 });
      expect(steps(preview.events)).toContain("update pro");
      expect(wire(sim)).toEqual([]);

      const up = await engine.up();
      expect(up.text).not.toContain(sim.token);
      expect(up.result.summary.resourceChanges).toEqual({ same: 6, update: 1 });
      expect(wire(sim)).toEqual([
        { operation: "products.update", method: "PATCH", path: `/api/v1/public/products/${ids.pro}`, body: { title: "Pro plan 2026" } },
      ]);
    });

    await step("removing a nullable field from the program clears it with null", async () => {
      delete spec.products!.starter!.description;
      await engine.setSpec(spec);
      await engine.up();
      expect(wire(sim).map((c) => c.body)).toEqual([{ description: null }]);
      // Writing the same thing as null is no change at all.
      spec.products!.starter!.description = null;
      await engine.setSpec(spec);
      const preview = await engine.preview();
      expect(preview.result.changeSummary).toEqual({ same: 7 });
    });

    await step("drift made behind Pulumi's back is named by preview --refresh --diff and fails --expect-no-changes", async () => {
      await client.updateProduct(ids.pro!, { title: "Pro plan (edited in UI)" });
      await client.updateSite(siteIds[0]!, { name: "Home (edited)" });

      const preview = await engine.preview({ refresh: true, diff: true });
      expect(preview.text).not.toContain(sim.token);
      expect(preview.result.changeSummary).toMatchObject({ update: 2 });
      // The update that restores each field, from the engine's structured events.
      const updates = preview.events.flatMap((e) => (e.resourcePreEvent?.metadata.op === "update" ? [e.resourcePreEvent.metadata] : []));
      const pro = updates.find((m) => m.urn.endsWith("::pro"))!;
      expect(pro.old?.inputs.title).toBe("Pro plan (edited in UI)");
      expect(pro.new?.inputs.title).toBe("Pro plan 2026");
      const home = updates.find((m) => m.urn.endsWith("::home"))!;
      expect(home.old?.inputs.name).toBe("Home (edited)");
      expect(home.new?.inputs.name).toBe("Home");
      // And in the text a reviewer reads.
      expect(preview.result.stdout).toMatch(/~ title\s+: "Pro plan \(edited in UI\)" => "Pro plan 2026"/);
      expect(preview.result.stdout).toMatch(/~ name\s+: "Home \(edited\)" => "Home"/);
      // Reading: one empty PATCH per product, one listing for the three sites (3 pages), nothing else.
      const reads = wire(sim);
      expect(reads.filter((c) => c.operation === "products.update").map((c) => c.body)).toEqual([{}, {}]);
      expect(reads.filter((c) => c.operation === "sites.list")).toHaveLength(3);
      expect(reads).toHaveLength(5);

      const gate = await expectFailure(engine.preview({ refresh: true, expectNoChanges: true }));
      expect(gate.message).toContain("error: no changes were expected for preview but changes were proposed");
      expect(gate.message).toContain("exit code 7");
    });

    await step("refresh then up restores what drifted", async () => {
      const refresh = await engine.refresh();
      expect(refresh.result.summary.resourceChanges).toMatchObject({ update: 2 });
      const up = await engine.up();
      expect(wire(sim).map((c) => c.body)).toEqual(expect.arrayContaining([{ title: "Pro plan 2026" }, { name: "Home" }]));
      expect(wire(sim)).toHaveLength(2);
      expect(up.result.summary.resourceChanges).toEqual({ same: 5, update: 2 });
      const clean = await engine.preview({ refresh: true, expectNoChanges: true });
      expect(clean.result.changeSummary).toEqual({ same: 7 });
    });

    await step("changing a task replaces it and says, at preview and at up, which task keeps running", async () => {
      spec.tasks!.weekly!.rrule = "FREQ=WEEKLY;BYDAY=TU";
      await engine.setSpec(spec);
      const preview = await engine.preview();
      expect(preview.result.changeSummary).toMatchObject({ replace: 1 });
      const keepsRunning = `task ${ids.task} keeps running on the service`;
      expect(preview.diagnostics.map((d) => d.message).join("\n")).toContain(keepsRunning);
      expect(wire(sim)).toEqual([]);

      const up = await engine.up();
      expect(up.text).not.toContain(sim.token);
      expect(up.result.summary.resourceChanges).toMatchObject({ replace: 1 });
      expect(up.diagnostics.map((d) => d.message).join("\n")).toContain(keepsRunning);
      expect(wire(sim).map((c) => c.operation)).toEqual(["tasks.create"]);
      expect(sim.counts().tasks).toBe(2);
    });

    await step("destroy archives products, gives sites their names back and warns about the task", async () => {
      const newTask = ((await engine.outputs()).tasks!.value as Record<string, { id: string }>).weekly!.id;
      const run = await engine.destroy();
      expect(run.text).not.toContain(sim.token);
      expect(run.result.summary.resourceChanges).toEqual({ delete: 7 });
      const calls = wire(sim);
      expect(calls.filter((c) => c.operation === "products.update").map((c) => [c.path, c.body])).toEqual(
        expect.arrayContaining([
          [`/api/v1/public/products/${ids.pro}`, { status: "archived" }],
          [`/api/v1/public/products/${ids.starter}`, { status: "archived" }],
        ]),
      );
      expect(calls.filter((c) => c.operation === "sites.update").map((c) => c.body)).toEqual(
        expect.arrayContaining([{ name: originalNames[0] }, { name: originalNames[1] }]),
      );
      // Two archives, one listing (3 pages, to judge the live names), two renames; "shop" kept its name.
      expect(calls.filter((c) => c.operation === "sites.list")).toHaveLength(3);
      expect(calls).toHaveLength(7);
      const messages = run.diagnostics.map((d) => d.message).join("\n");
      expect(messages).toContain(`Task "weekly" (id ${newTask}) was removed from the stack only; nothing sent.`);
      expect(messages).toContain(`Product "pro" (id ${ids.pro}): sent PATCH {status: "archived"}; it is archived on the service`);
      expect(messages).toContain(`Site "shop" (id ${siteIds[2]}): nothing sent; the service already shows its original name.`);
      expect((await client.updateProduct(ids.pro!, {})).status).toBe("archived");
      const names = (await client.listSites({ projectId: project }).toArray()).filter((s) => siteIds.includes(s.id!)).map((s) => s.name);
      expect(names).toEqual(originalNames);
    });
  });
});
