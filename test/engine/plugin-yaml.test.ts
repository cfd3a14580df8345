/**
 * The serviceapi plugin under the Pulumi YAML runtime, with the real CLI: the YAML example's
 * catalog goes up; one field changed is one PATCH with one key; drift made behind Pulumi's back
 * fails `preview --refresh --expect-no-changes` naming the field; `pulumi import` takes an existing
 * product in and prints the YAML to paste; destroy archives what the stack created, gives the
 * imported product back as found, renames back, and says what it sent.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServiceApiClient } from "../../provider";
import { DEFAULT_IDS } from "../../simulator/seed";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { simulator } from "../helpers";
import { CATALOG_EXAMPLE_TITLES, productTitles, step } from "./suite";
import { ENGINE_TIMEOUT_MS, EngineStack, REPO, expectFailure, pulumiCli, wire } from "../../scripts/engine/driver";

const project = DEFAULT_IDS.acmeWeb;

describe("the plugin under Pulumi YAML", { timeout: ENGINE_TIMEOUT_MS }, () => {
  let sim: Simulator;
  let engine: EngineStack;
  let client: ServiceApiClient;

  beforeAll(async () => {
    await pulumiCli();
    sim = await simulator();
    client = new ServiceApiClient({ baseUrl: sim.url, token: sim.token });
    engine = await EngineStack.create(sim, { program: join(REPO, "examples", "catalog-pulumi-yaml"), plugin: true });
  }, 30 * 60_000);

  afterAll(async () => {
    await client?.close();
    await engine?.dispose();
  });

  it("the YAML example, in order: up, one field changed, drift gate, import, a bad import, destroy", async () => {
    const importing = (type: string, name: string, id: string) =>
      engine.spawnCli(["import", `serviceapi:index:${type}`, name, id, "--yes", "--non-interactive"]);
    await step("up creates the catalog and renames the default site, naming each product it created", async () => {
      const up = await engine.up();
      expect(up.result.summary.resourceChanges).toEqual({ create: 5 });
      expect(productTitles(sim)).toEqual(CATALOG_EXAMPLE_TITLES);
      const products = await engine.resources("Product", "plugin");
      expect(products).toHaveLength(3);
      const messages = up.diagnostics.map((d) => d.message).join("\n");
      for (const p of products) expect(messages).toContain(`serviceapi: created Product "${p.urn.split("::").pop()}" ${p.id}`);
      // The lookups are functions of the plugin: one projects.list, one sites.list page set.
      expect(wire(sim).filter((c) => c.operation === "projects.list")).toHaveLength(1);
      expect((await engine.outputs()).proPlanStatus!.value).toBe("active");
      // No __provider in state: the plugin is found by its name, not by serialized code.
      expect(engine.stateFileText()).not.toContain("__provider");
    });

    await step("one field changed is one PATCH with one key", async () => {
      const yaml = join(engine.dir, "Pulumi.yaml");
      writeFileSync(yaml, readFileSync(yaml, "utf8").replace("title: Pro plan\n", "title: Pro plan 2027\n"));
      const preview = await engine.preview({ diff: true });
      expect(preview.result.changeSummary).toMatchObject({ update: 1 });
      expect(wire(sim).filter((c) => c.operation === "products.update")).toEqual([]);
      const up = await engine.up();
      expect(up.result.summary.resourceChanges).toMatchObject({ update: 1 });
      const [pro] = (await engine.resources("Product", "plugin")).filter((r) => r.urn.endsWith("::pro-plan"));
      expect(wire(sim).filter((c) => c.operation === "products.update")).toEqual([
        { operation: "products.update", method: "PATCH", path: `/api/v1/public/products/${pro!.id}`, body: { title: "Pro plan 2027" } },
      ]);
    });

    await step("drift made behind Pulumi's back fails the drift gate naming the field", async () => {
      const [pro] = (await engine.resources("Product", "plugin")).filter((r) => r.urn.endsWith("::pro-plan"));
      await client.updateProduct(pro!.id, { description: "Edited in the admin UI" });
      const gate = await expectFailure(engine.preview({ refresh: true, expectNoChanges: true, diff: true }));
      expect(gate.message).toContain("error: no changes were expected for preview but changes were proposed");
      expect(gate.text).toMatch(/~ description\s*: "Edited in the admin UI" => "Everything in Starter, plus priority support\."/);
      const restore = await engine.up({ refresh: true });
      expect(restore.result.summary.resourceChanges).toMatchObject({ update: 1 });
      expect((await client.updateProduct(pro!.id, {})).description).toBe("Everything in Starter, plus priority support.");
    });

    await step("pulumi import takes an existing product in by <projectId>/<productId> and prints the YAML to paste", async () => {
      const legacy = await client.createProduct({
        projectId: project,
        title: "Imported plan",
        slug: "imported",
        description: "From before Pulumi",
      });
      sim.clearRequests();
      const imported = importing("Product", "imported-plan", `${project}/${legacy.id}`);
      expect(await imported.exited).toBe(0);
      expect(imported.output()).toMatch(/imported-plan:\n\s+type: serviceapi:Product\n\s+properties:\n(\s+\w+: .+\n)+/);
      for (const line of [
        `projectId: ${project}`,
        "slug: imported",
        "status: draft",
        "title: Imported plan",
        "description: From before Pulumi",
      ]) {
        expect(imported.output()).toContain(line);
      }
      // Read with an empty PATCH (once for the preview, once for the import); nothing written, nothing created.
      expect(wire(sim).map((c) => [c.operation, c.body])).toEqual([
        ["products.update", {}],
        ["products.update", {}],
      ]);
      const [state] = (await engine.resources("Product", "plugin")).filter((r) => r.urn.endsWith("::imported-plan"));
      expect(state!.id).toBe(legacy.id);
    });

    await step("a malformed import id or an unknown product is a clear error, and nothing is imported", async () => {
      const malformed = importing("Product", "bad", "not-a-pair");
      expect(await malformed.exited).not.toBe(0);
      expect(malformed.output()).toContain(
        "Product import ids are <projectId>/<productId> (or <productId> alone, with projectId declared in the program), because the API's product record does not say which project it is in",
      );
      const unknown = importing("Product", "gone", `${project}/0b3f2a8e-5b7c-4f1e-9a6d-2c4e8f0a1b3d`);
      expect(await unknown.exited).not.toBe(0);
      expect(unknown.output()).toContain(
        "Product 0b3f2a8e-5b7c-4f1e-9a6d-2c4e8f0a1b3d: no product with this id is visible to this token, so it cannot be imported.",
      );
      const task = importing("Task", "t", "0b3f2a8e-5b7c-4f1e-9a6d-2c4e8f0a1b3d");
      expect(await task.exited).not.toBe(0);
      expect(task.output()).toContain("cannot be imported: the API cannot read tasks");
      expect((await engine.resources("Product", "plugin")).map((r) => r.urn.split("::").pop()).sort()).toEqual([
        "imported-plan",
        "legacy-plan",
        "pro-plan",
        "starter-plan",
      ]);
    });

    await step(
      "destroy archives the products it created (retain sends nothing), gives the imported one back, renames the site back",
      async () => {
        // `pulumi import` protects what it imports; unprotect it as its output says.
        expect(
          await engine.spawnCli([
            "state",
            "unprotect",
            (await engine.resources("Product", "plugin")).find((r) => r.urn.endsWith("::imported-plan"))!.urn,
            "--yes",
          ]).exited,
        ).toBe(0);
        const run = await engine.destroy();
        expect(run.result.summary.resourceChanges).toMatchObject({ delete: 6 });
        const calls = wire(sim);
        // The imported product was not created by this stack, and the stack changed none of its fields: nothing is sent for it.
        expect(calls.filter((c) => c.operation === "products.update").map((c) => c.body)).toEqual([
          { status: "archived" },
          { status: "archived" },
        ]);
        expect(calls.filter((c) => c.operation === "sites.update")).toHaveLength(1);
        const messages = run.diagnostics.map((d) => d.message).join("\n");
        expect(messages).toMatch(/Product "pro-plan" \(id [0-9a-f-]{36}\): sent PATCH \{status: "archived"\}/);
        expect(messages).toMatch(/Product "legacy-plan" \(id [0-9a-f-]{36}\): nothing sent \(onDelete: retain\)/);
        expect(messages).toMatch(
          /Product "imported-plan" \(id [0-9a-f-]{36}\): nothing sent; this stack took it over and changed none of its fields, so it stays as it was found\./,
        );
        expect(messages).toMatch(/Site "home" \(id [0-9a-f-]{36}\): sent PATCH \{name\} with its original name/);
        expect(productTitles(sim, (p) => p.status !== "archived")).toEqual(["Imported plan"]);
      },
    );
  });
});
