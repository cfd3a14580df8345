/**
 * A catalog with more than one bad product: one `pulumi preview` names all of them. The engine stops
 * at the first resource whose check fails (provider/program/input-problems.ts says why), so the
 * program's resource classes list every bad one in a warning first. A catalog of five products, two
 * with a checkout URL that is not a URI. Through the plugin the program runs none of our code: one
 * per run, as docs/troubleshooting.md says.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_IDS } from "../../simulator/seed";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { engineSuite } from "./suite";
import { ENGINE_TIMEOUT_MS, expectFailure, wire, type ProgramSpec } from "../../scripts/engine/driver";

const project = DEFAULT_IDS.acmeDocs;
const BAD = new Set([1, 3]);

function catalogWithTwoBadUrls(): ProgramSpec {
  return {
    products: Object.fromEntries(
      Array.from({ length: 5 }, (_, i) => [
        `plan${i}`,
        {
          projectId: project,
          title: `Plan ${i}`,
          externalCheckoutUrl: BAD.has(i) ? `shop/plan-${i}` : `https://shop.example.com/plan-${i}`,
        },
      ]),
    ),
  };
}

describe("a catalog with two bad products", { timeout: ENGINE_TIMEOUT_MS }, () => {
  const suite = engineSuite();
  let sim: Simulator;
  beforeEach(() => {
    sim = suite.sim();
  });

  it("dynamic: one preview names both bad products, and writes nothing", async () => {
    const engine = await suite.newStack();
    await engine.setSpec(catalogWithTwoBadUrls());
    const failed = await expectFailure(engine.preview());
    expect(wire(sim)).toEqual([]);
    const problem =
      "externalCheckoutUrl must be an absolute URI (RFC 3986: a scheme such as https:, ASCII only, no spaces, % only in %XX escapes)";
    // The engine stops at the first bad product it checks, and names that one.
    const engineErrors = failed.diagnostics.filter((d) => d.severity === "error" && d.message.includes(" has a problem: "));
    console.log(engineErrors.map((d) => d.message.trim()).join("\n"));
    expect(engineErrors).toHaveLength(1);
    // The program names all of them in one warning, before that.
    const all = failed.diagnostics.filter((d) => d.severity === "warning" && d.message.includes("have input problems"));
    console.log(all.map((d) => d.message.trim()).join("\n"));
    expect(all).toHaveLength(1);
    expect(all[0]!.message).toContain(
      "serviceapi: 2 resources of this program have input problems; `pulumi preview` fails at the first of them the engine checks, " +
        `so here are all of them (no value is shown):\n  Product "plan1": ${problem}\n  Product "plan3": ${problem}`,
    );
    for (const i of BAD) expect(all[0]!.message).not.toContain(`shop/plan-${i}`);
  });

  it("dynamic: one bad product is named once, by the engine, as before", async () => {
    const engine = await suite.newStack();
    const spec = catalogWithTwoBadUrls();
    spec.products!.plan3!.externalCheckoutUrl = "https://shop.example.com/plan-3";
    await engine.setSpec(spec);
    const failed = await expectFailure(engine.preview());
    expect(failed.diagnostics.filter((d) => d.message.includes("have input problems"))).toEqual([]);
    expect(failed.diagnostics.filter((d) => d.severity === "error" && d.message.includes(" has a problem: "))).toHaveLength(1);
  });
});
