/**
 * The data sources in a real program under the Pulumi CLI: the Output forms resolve during
 * preview and up, follow every cursor, and a lookup that matches nothing fails the run clearly.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_IDS } from "../../simulator/seed";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { simulator } from "../helpers";
import { step } from "./suite";
import { ENGINE_TIMEOUT_MS, EngineStack, expectFailure, wire } from "../../scripts/engine/driver";

describe("data sources under the Pulumi CLI", { timeout: ENGINE_TIMEOUT_MS }, () => {
  let sim: Simulator;
  let engine: EngineStack;

  beforeAll(async () => {
    sim = await simulator();
    engine = await EngineStack.create(sim);
  }, 30 * 60_000);

  afterAll(() => engine?.dispose());

  it("lookups as stack outputs, then a lookup with no match", async () => {
    await step("getProjectOutput, getProjectsOutput, getSitesOutput and getSiteOutput become stack outputs", async () => {
      await engine.setSpec({
        lookups: {
          projectName: "Acme Docs",
          workspaceId: DEFAULT_IDS.acmeWorkspace,
          sitesOf: DEFAULT_IDS.acmeWeb,
          siteSubdomain: "acme-web-002",
        },
      });
      await engine.up();
      const found = (await engine.outputs()).found!.value as Record<string, unknown>;
      expect(found.project).toEqual({ id: DEFAULT_IDS.acmeDocs, name: "Acme Docs", workspaceId: DEFAULT_IDS.acmeWorkspace });
      expect(found.projectCount).toBe(2);
      expect(found.siteCount).toBe(250);
      expect(found.site).toMatchObject({ name: "Acme Web 002", subdomain: "acme-web-002", isDefault: false });
      // The program runs once for up (preview is skipped by the Automation API): 2 project listings, 2 × 3 site pages.
      const calls = wire(sim);
      expect(calls.filter((c) => c.operation === "projects.list")).toHaveLength(2);
      expect(calls.filter((c) => c.operation === "sites.list")).toHaveLength(6);
      expect(calls).toHaveLength(8);
    });

    await step("a lookup with no match fails the run naming what was looked for", async () => {
      await engine.setSpec({ lookups: { projectName: "Acme Nope" } });
      const failed = await expectFailure(engine.preview());
      expect(failed.text).toContain(
        'getProjectOutput: no project is named "Acme Nope" (4 projects listed); the closest: "Acme Docs". ' +
          "Check the name (it is matched exactly, case included), or pass id.",
      );
      // No id of any project the token can see in the error (the text may land in a pull-request
      // comment); the event log holds the earlier step's outputs, which carry one.
      const errors = failed.diagnostics.filter((d) => d.severity === "error").map((d) => d.message);
      expect(errors.join("\n")).toContain("no project is named");
      for (const id of [DEFAULT_IDS.acmeWeb, DEFAULT_IDS.acmeDocs, DEFAULT_IDS.globexShop, DEFAULT_IDS.globexUnnamed]) {
        expect(errors.join("\n")).not.toContain(id);
      }
      expect(failed.text).not.toContain(sim.token);
    });
  });
});
