/**
 * Failures read as one clean line under the real Pulumi CLI: a data source that fails (no token,
 * no match, an API error) while its result feeds several resources — or one resource, unexported,
 * in plain TypeScript and JavaScript — an API error inside the provider at refresh, a Node.js too
 * old first on PATH, and a service that cannot be reached at refresh or destroy. Each is one error event with the message the docs promise, with no stack
 * trace, no "unhandled exception", no `error serializing property` chain and no ANSI escapes.
 */
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_IDS } from "../../simulator/seed";
import { startSimulator, type Simulator } from "pulumi-serviceapi-simulator";
import { engineSuite } from "./suite";
import { OLD_NODE_VERSION, oldNodeBin } from "./old-node";
import { ENGINE_TIMEOUT_MS, expectFailure, pulumiCli, type FailedRun, type ProgramSpec } from "../../scripts/engine/driver";

/** Three products whose projectId comes from the failing lookup, as a user wires them. */
function lookupFeedingThree(projectName: string): ProgramSpec {
  const products = Object.fromEntries(["a", "b", "c"].map((k) => [k, { projectId: "$project", title: `Product ${k}` }]));
  return { products, lookups: { projectName } };
}

function expectOneCleanError(failed: FailedRun, message: string | RegExp): void {
  const errors = failed.diagnostics.filter((d) => d.severity === "error" && !/^(preview|update) failed\s*$/.test(d.message.trim()));
  expect(errors).toHaveLength(1);
  expect(errors[0]!.message).toMatch(message);
  const text = failed.text;
  expect(text).not.toContain("unhandled exception");
  expect(text).not.toContain("error serializing property");
  expect(text).not.toMatch(/\n\s+at .+:\d+:\d+\)?/);
  // No ANSI escape sequence, raw or JSON-escaped.
  expect(text).not.toContain("\u001b[");
  expect(text).not.toContain("\\u001b[");
}

describe("failures read as one clean line", { timeout: ENGINE_TIMEOUT_MS }, () => {
  // Most of these errors are the program's (data sources run there): the program runs as a process, as a user's does.
  const suite = engineSuite({ programProcess: true });
  let sim: Simulator;
  beforeEach(() => {
    sim = suite.sim();
  });

  it("a data-source lookup with no match, feeding three resources", async () => {
    const engine = await suite.newStack();
    await engine.setSpec(lookupFeedingThree("Acme Nope"));
    const failed = await expectFailure(engine.preview());
    expectOneCleanError(
      failed,
      // The one close name, no id (the message may land in a pull-request comment).
      /^getProjectOutput: no project is named "Acme Nope" \(4 projects listed\); the closest: "Acme Docs"\. Check the name \(it is matched exactly, case included\), or pass id\.\s*$/,
    );
  });

  it("a secret lookup argument is never quoted", async () => {
    const engine = await suite.newStack();
    await engine.setSpec({
      ...lookupFeedingThree("Project Codename Falcon"),
      lookups: { projectName: "Project Codename Falcon", secretName: true },
    });
    const failed = await expectFailure(engine.preview());
    expectOneCleanError(
      failed,
      /^getProjectOutput: no project is named \(the secret value given\) \(4 projects listed\)\. Check the name \(it is matched exactly, case included\), or pass id\.\s*$/,
    );
    expect(failed.text).not.toContain("Falcon");
  });

  it("a data source with no token, and with a token the service refuses", async () => {
    const noToken = await suite.newStack({ token: null });
    await noToken.setSpec(lookupFeedingThree("Acme Docs"));
    expectOneCleanError(
      await expectFailure(noToken.preview()),
      /^getProjectOutput: serviceapi: no API token\. Set it with `pulumi config set --secret serviceapi:token <token>` or the SERVICEAPI_TOKEN environment variable\.\s*$/,
    );
    await noToken.dispose();

    const refused = await suite.newStack({ token: "not_a_known_token" });
    await refused.setSpec(lookupFeedingThree("Acme Docs"));
    const failed = await expectFailure(refused.preview());
    expectOneCleanError(
      failed,
      /^getProjectOutput: projects\.list failed: 401 unauthorized: invalid public API token \(docs: http:\/\/127\.0\.0\.1:\d+\/_simulator\/errors\/unauthorized\) \[request id [0-9a-f-]{36}\]\s*$/,
    );
    expect(failed.text).not.toContain("not_a_known_token");
  });

  it("an API error inside the provider (refresh) is the API's message, without a JavaScript stack", async () => {
    const engine = await suite.newStack();
    await engine.setSpec({ products: { p: { projectId: DEFAULT_IDS.acmeDocs, title: "Refresh me" } } });
    await engine.up();
    sim.addFault({ operation: "products.update", kind: "error", status: 500, times: 4 });
    const failed = await expectFailure(engine.refresh());
    expectOneCleanError(
      failed,
      /products\.update failed: 500 internal_error: simulated 500 \(fault \d+\) \(docs: .+\) \[request id [0-9a-f-]{36}\] Gave up after 4 attempts\./,
    );
  });

  it("the `import` resource option is refused saying what works instead, with no request", async () => {
    const engine = await suite.newStack();
    await engine.setSpec({
      products: { legacy: { projectId: DEFAULT_IDS.acmeDocs, title: "Legacy" } },
      imports: { legacy: DEFAULT_IDS.acmeDocs },
    });
    sim.clearRequests();
    const failed = await expectFailure(engine.preview());
    expectOneCleanError(
      failed,
      /^Product "legacy": the `import` resource option does not work with Pulumi dynamic providers; to take over an existing product, set `adoptId: "<id>"` instead\.\s*$/,
    );
    expect(sim.requests()).toEqual([]);
  });

  it.each([
    ["TypeScript", "lookup-plain-ts"],
    ["JavaScript", "lookup-plain-js"],
  ])("a lookup with no match feeding one resource, not exported (%s): one line, no stack", async (_language, folder) => {
    const engine = await suite.newStack({ program: join(__dirname, folder) });
    const failed = await expectFailure(engine.preview());
    expectOneCleanError(
      failed,
      /^getProjectOutput: no project is named "No Such Project" \(4 projects listed, none with a close name\)\. Check the name \(it is matched exactly, case included\), or pass id\.\s*$/,
    );
    expect(failed.visible).not.toContain("DataSourceError");
  });

  it(`Node.js ${OLD_NODE_VERSION} first on PATH: one line naming the Node found and the one needed, in the program and at refresh`, async () => {
    const old = oldNodeBin();
    const { bin } = await pulumiCli();
    const engine = await suite.newStack();
    await engine.setSpec({ products: { p: { projectId: DEFAULT_IDS.acmeDocs, title: "Old node" } } });
    await engine.up();
    const modern = engine.env.PATH!;
    engine.setEnv("PATH", `${old}:${bin}:${modern}`);
    const needs = new RegExp(
      `^(Preview failed: )?pulumi-serviceapi needs Node\\.js 22\\.19 or later; this is Node\\.js v${OLD_NODE_VERSION.replace(/\./g, "\\.")} ` +
        `\\(${old.replace(/[/.]/g, "\\$&")}/node\\)\\. Put a newer \`node\` first on PATH where pulumi runs\\.\\s*$`,
    );
    expectOneCleanError(await expectFailure(engine.preview()), needs);
    // refresh runs no program: the state's `require("pulumi-serviceapi/dynamic/product")` meets the same check.
    const refresh = await expectFailure(engine.refresh());
    expect(
      refresh.diagnostics
        .filter((d) => d.severity === "error")
        .map((d) => d.message)
        .join("\n"),
    ).toMatch(new RegExp(needs.source.slice(1, -6)));
    expect(refresh.text).not.toContain("Cannot read properties of undefined");
    expect(refresh.text).not.toMatch(/\n\s+at .+:\d+:\d+\)?/);
    engine.setEnv("PATH", modern);
    await engine.destroy();
  });

  it("a service that cannot be reached at refresh or destroy says the recorded base URL may be the cause", async () => {
    // The stack went up against a service that has moved since (the stack config now names another).
    const moved = await startSimulator({ port: 0 });
    const engine = await suite.newStack({ config: { "serviceapi:baseUrl": moved.url, "serviceapi:maxRetries": "1" } });
    await engine.setSpec({ products: { p: { projectId: DEFAULT_IDS.acmeDocs, title: "Moved" } } });
    await engine.up();
    await moved.close();
    await engine.stack.setConfig("serviceapi:baseUrl", { value: sim.url });
    // The advice names the setting, that a refresh or a destroy uses its value recorded at the last up, and what to run instead.
    const advice =
      `Nothing answered at ${new URL(moved.url).origin}, serviceapi:baseUrl, as recorded at the last \`pulumi up\` for \`pulumi refresh\`, ` +
      "`pulumi destroy` and the refresh step of `--refresh` (unless run with `--run-program`), else as the stack config sets it now. " +
      "If the service moved, run the command with `--run-program`, or `pulumi up` first; otherwise check that it runs there.";
    for (const failed of [await expectFailure(engine.refresh()), await expectFailure(engine.destroy())]) {
      expectOneCleanError(failed, /products\.update failed: connection error: .*ECONNREFUSED.* \(2 attempts\)/);
      expect(failed.diagnostics.find((d) => d.severity === "error" && d.message.includes("ECONNREFUSED"))!.message).toContain(advice);
    }
    // As the advice says: with the current config, destroy reaches the service (where the product is unknown: 404, fine).
    await engine.destroy({ runProgram: true });
  });

  it("getSite by name feeding a Site that renames it: the next run says to look it up by subdomain", async () => {
    const engine = await suite.newStack();
    const project = DEFAULT_IDS.acmeDocs;
    const site = sim.seed.sites.find((s) => s.projectId === project)!;
    await engine.setSpec({
      lookups: { sitesOf: project, siteName: site.name },
      sites: { docs: { projectId: project, siteId: "$siteByName", name: "Docs, renamed by Pulumi" } },
    });
    await engine.up();
    const failed = await expectFailure(engine.preview());
    expectOneCleanError(
      failed,
      new RegExp(
        `^getSiteOutput: no site is named "${site.name}" in project ${project} \\(3 sites listed\\); the closest: "Acme Docs 002", "Acme Docs 003"\\. ` +
          "Look the site up by subdomain instead: a name changes when a Site resource renames the site, a subdomain does not\\.\\s*$",
      ),
    );
    await engine.destroy();
  });
});
