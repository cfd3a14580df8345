/**
 * Bad input is refused at `pulumi preview`, naming the field and the problem, with 0 API requests:
 * unknown input keys (typos from JavaScript or a YAML spread), strings Pulumi would alter on the
 * way (lone surrogates), control characters, URIs that are not RFC 3986, schedules that would never
 * run, and a required field given as null (one error, not two).
 */
import { beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_IDS } from "../../simulator/seed";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { engineSuite } from "./suite";
import { ENGINE_TIMEOUT_MS, clockAt, expectFailure, wire, type EngineStack, type ProgramSpec } from "../../scripts/engine/driver";
import { daysAhead } from "../support/time";

const project = DEFAULT_IDS.acmeDocs;

describe("bad input is refused at preview", { timeout: ENGINE_TIMEOUT_MS }, () => {
  const suite = engineSuite();
  let sim: Simulator;
  beforeEach(() => {
    sim = suite.sim();
  });

  /** The problems the engine reported for one resource, and the requests the preview sent. */
  async function refused(engine: EngineStack, spec: ProgramSpec): Promise<string[]> {
    await engine.setSpec(spec);
    const failed = await expectFailure(engine.preview());
    expect(wire(sim)).toEqual([]);
    const problems = failed.diagnostics
      .filter((d) => d.severity === "error" && d.message.includes(" has a problem: "))
      .map((d) => d.message.split(" has a problem: ")[1]!.trim());
    // Each failure is printed once: with an empty property, the engine never prints the value.
    expect(failed.text).not.toMatch(/property \w+ value/);
    return [...new Set(problems)];
  }

  it("unknown input keys are refused naming the key and the closest input", async () => {
    const engine = await suite.newStack();
    const product = {
      projectId: project,
      title: "Typo",
      descripton: "Spelled wrong",
      type: "physical",
    } as unknown as ProgramSpec["products"] & object;
    expect(await refused(engine, { products: { typo: product as never } })).toEqual([
      "descripton is not an input of Product; did you mean description?",
      "type is an output of Product, set by the service; it cannot be set",
    ]);
    const site = sim.seed.sites.find((s) => s.projectId === project)!;
    expect(await refused(engine, { sites: { s: { projectId: project, siteId: site.id, nmae: "Typo" } as never } })).toEqual([
      "nmae is not an input of Site; did you mean name?",
      "name is required",
    ]);
    expect(await refused(engine, { products: { p: { projectId: project, title: "T", colour: "blue" } as never } })).toEqual([
      "colour is not an input of Product (its inputs are projectId, title, description, slug, status, externalCheckoutUrl, onDelete, adoptId)",
    ]);
  });

  it("strings Pulumi would alter (lone surrogates) and control characters are refused by field and position", async () => {
    const engine = await suite.newStack();
    const description = `${"Good text. ".repeat(10)}\uDC00 and \uD800 again`;
    expect(await refused(engine, { products: { u: { projectId: project, title: "Ends badly \uD800", description } } })).toEqual([
      "title must be well-formed Unicode text: it has a lone UTF-16 surrogate at character 12, which Pulumi would replace or refuse before the value reaches the service",
      "description must be well-formed Unicode text: it has a lone UTF-16 surrogate at character 111, which Pulumi would replace or refuse before the value reaches the service",
    ]);
    expect(await refused(engine, { products: { c: { projectId: project, title: "Red \u001b[31malert" } } })).toEqual([
      "title must not contain control characters (U+001B at character 5); only tab, line feed and carriage return are allowed",
    ]);
    expect(
      await refused(engine, {
        tasks: { t: { projectId: project, title: "T", prompt: "Nul \u0000 here", scheduledAt: daysAhead(365, 0) } },
      }),
    ).toEqual(["prompt must not contain control characters (U+0000 at character 5); only tab, line feed and carriage return are allowed"]);
  });

  it("names that would show differently on a storefront (bidi overrides, invisible characters, C1 controls) are refused by code point", async () => {
    const engine = await suite.newStack();
    const advice = "a storefront shows the text differently than the diff does";
    const rtl = `${advice}; right-to-left text may use U+200E, U+200F and U+061C`;
    expect(await refused(engine, { products: { t: { projectId: project, title: "Pro \u202Enalp", slug: "pro\u200Bplan" } } })).toEqual([
      `title must not contain direction-overriding characters (U+202E RIGHT-TO-LEFT OVERRIDE at character 5): ${rtl}`,
      `slug must not contain invisible characters (U+200B ZERO WIDTH SPACE at character 4): ${advice}`,
    ]);
    const site = sim.seed.sites.find((s) => s.projectId === project)!;
    expect(await refused(engine, { sites: { s: { projectId: project, siteId: site.id, name: "Home\u2066" } } })).toEqual([
      `name must not contain direction-overriding characters (U+2066 LEFT-TO-RIGHT ISOLATE at character 5): ${rtl}`,
    ]);
    expect(
      await refused(engine, {
        tasks: { t: { projectId: project, title: "Report \u009B2J", prompt: "P", scheduledAt: daysAhead(365, 0) } },
      }),
    ).toEqual(["title must not contain control characters (U+009B at character 8); only tab, line feed and carriage return are allowed"]);
    // Right-to-left text with its marks, and emoji sequences, pass.
    await engine.setSpec({
      products: { rtl: { projectId: project, title: "\u05D7\u05E0\u05D5\u05EA \u200FPro\u200F 👨\u200D👩\u200D👧" } },
    });
    expect((await engine.preview()).result.changeSummary).toEqual({ create: 2 });
    expect(wire(sim)).toEqual([]);
  });

  it("externalCheckoutUrl must be an RFC 3986 URI, and title: null is one error", async () => {
    const engine = await suite.newStack();
    expect(
      await refused(engine, { products: { u: { projectId: project, title: "T", externalCheckoutUrl: "https://shop.example.com/a b" } } }),
    ).toEqual([
      "externalCheckoutUrl must be an absolute URI (RFC 3986: a scheme such as https:, ASCII only, no spaces, % only in %XX escapes)",
    ]);
    expect(await refused(engine, { products: { n: { projectId: project, title: null as unknown as string } } })).toEqual([
      "title is required",
    ]);
  });

  it("a schedule that would never run is refused at preview, with the service's own rule", async () => {
    const engine = await suite.newStack();
    const task = { projectId: project, title: "T", prompt: "P" };
    expect(
      await refused(engine, { tasks: { ended: { ...task, scheduledAt: "2020-01-01T09:00:00Z", rrule: "FREQ=DAILY;COUNT=3" } } }),
    ).toEqual(["rrule has no occurrence at or after the current time (COUNT or UNTIL ends the series in the past, or no date matches)"]);
    expect(await refused(engine, { tasks: { past: { ...task, scheduledAt: "2020-01-01T09:00:00Z" } } })).toEqual([
      "scheduledAt is in the past, so a one-off task would never run; choose a future time, or add an rrule",
    ]);
  });

  it("a task whose one-off time has passed since it was created does not fail later previews", async () => {
    const engine = await suite.newStack();
    const hour = 3_600_000;
    // Half an hour ago: in the future for an up run with the engine's clock an hour back, past for the preview after it.
    const scheduledAt = new Date(Date.now() - hour / 2).toISOString();
    await engine.setSpec({ tasks: { soon: { projectId: project, title: "Soon", prompt: "P", scheduledAt } } });
    const up = await engine.withEnv(clockAt(new Date(Date.now() - hour)), () => engine.up());
    expect(up.result.summary.resourceChanges).toEqual({ create: 2 });
    expect(sim.tasks().map((t) => t.scheduledAt)).toContain(scheduledAt);
    sim.clearRequests();
    expect((await engine.preview()).result.changeSummary).toEqual({ same: 2 });
    expect(wire(sim)).toEqual([]);
  });

  it("a base URL or token the client would refuse fails preview naming the setting, before any request", async () => {
    const engine = await suite.newStack({ config: { "serviceapi:baseUrl": "127.0.0.1:18950" } });
    await engine.setSpec({ products: { p: { projectId: project, title: "Plain" } } });
    const failed = await expectFailure(engine.preview());
    expect(failed.text).toContain('serviceapi:baseUrl must be an absolute URL such as https://api.example.com (got "127.0.0.1:18950")');
    expect(sim.requests()).toEqual([]);
  });
});
