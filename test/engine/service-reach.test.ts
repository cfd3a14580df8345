/**
 * Which service a command reached, and what it cost, under the real Pulumi CLI (issue 26, §2, §3,
 * §5, §6), through both faces: a command that uses the settings recorded at the last `pulumi up`
 * reads with them and says nothing of them before it reads (the engine does not tell a provider
 * which command runs); a token the service refuses costs one request, not one per resource, and the
 * advice names where the token came from; every provider process ends with one line counting what
 * it sent, by kind, so a refresh with its preview shows two; a service that does not answer is
 * named by its setting and where that came from.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "pulumi-serviceapi-simulator";
import { DEFAULT_IDS } from "../../simulator/seed";
import { ENGINE_TIMEOUT_MS, EngineStack, catalog, expectFailure, pulumiCli, type FailedRun, type Run } from "../../scripts/engine/driver";
import { engineSuite } from "./suite";

const project = DEFAULT_IDS.acmeDocs;
/**
 * Products in a stack whose counts a test checks: enough that a cost per resource shows (N reads,
 * not 1); each one costs every CLI run of the file (25 made it one of CI's largest).
 */
const N = 8;

/** What the provider said that starts with `prefix`, as the user reads it (the dynamic face's `info: [runtime] ` taken off). */
function said(run: Pick<Run<unknown>, "diagnostics">, prefix: string): string[] {
  return run.diagnostics
    .map((d) => d.message.replace(/^(info|warning): \[runtime\] /, "").trim())
    .filter((message) => message.startsWith(prefix));
}

/**
 * The lines of a failed command's output (what a terminal shows) containing `text`. The Automation
 * API's error message holds that output twice (as `stderr:`, then in `err?:`): the first copy is read.
 */
function outputLines(failed: FailedRun, text: string): string[] {
  const output = failed.message.split("\n err?: ")[0]!;
  return output.split("\n").filter((line) => line.includes(text));
}

/** A Pulumi YAML program of `count` products (the plugin face), with a project lookup when `lookup`. */
function yamlCatalog(count: number, options: { lookup?: boolean } = {}): string {
  const lines = ["name: reach", "runtime: yaml"];
  if (options.lookup) {
    lines.push(
      "variables:",
      "  project:",
      "    fn::invoke:",
      "      function: serviceapi:index:getProject",
      "      arguments:",
      "        name: Acme Docs",
    );
  }
  lines.push("resources:");
  for (let i = 0; i < count; i++) {
    lines.push(
      `  P${i}:`,
      "    type: serviceapi:index:Product",
      "    properties:",
      `      projectId: ${options.lookup ? "${project.id}" : project}`,
      `      title: P ${i}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

const origin = (url: string) => new URL(url).origin;
const SUMMARY = "serviceapi: this provider process sent";
const summary = (reads: number, lookups: number, writes: number) => {
  const n = (k: number, what: string) => `${k} ${what}${k === 1 ? "" : "s"}`;
  return `${SUMMARY} ${n(reads + lookups + writes, "request")}: ${n(reads, "read")} (empty PATCH), ${n(lookups, "lookup")}, ${n(writes, "write")}`;
};
/** How many times `line` is a whole line of the CLI's output `text` (under Diagnostics; the dynamic face's `info: [runtime] ` taken off). */
const times = (text: string, line: string) => text.split("\n").filter((l) => l.trim().replace(/^info: \[runtime\] /, "") === line).length;
/** What a read or a delete on serviceapi:baseUrl or serviceapi:token says: it may be the recorded value or the current one. */
const EITHER =
  "as recorded at the last `pulumi up` for `pulumi refresh`, `pulumi destroy` and the refresh step of `--refresh` " +
  "(unless run with `--run-program`), else as the stack config sets it now.";

describe.each([
  ["dynamic provider", false],
  ["plugin", true],
])("what a command reached and what it cost (%s)", { timeout: ENGINE_TIMEOUT_MS * 2 }, (_face, plugin) => {
  const suite = engineSuite();
  let sim: Simulator;
  beforeAll(() => {
    sim = suite.sim();
  });

  /** A stack of `count` products, up (through the plugin, with a project lookup when `lookup`). */
  async function catalogStack(count: number, options: Parameters<typeof EngineStack.create>[1] = {}, lookup = false): Promise<EngineStack> {
    const engine = await suite.newStack(plugin ? { ...options, plugin: true, yaml: yamlCatalog(count, { lookup }) } : options);
    if (!plugin) await engine.setSpec(catalog(project, count, "P"));
    await engine.up();
    return engine;
  }

  it("a plain refresh reads with the recorded settings, and says nothing of them but what it sent", async () => {
    const engine = await catalogStack(2);
    await engine.stack.setConfig("serviceapi:baseUrl", { value: "http://127.0.0.1:9" });
    const refresh = await engine.refresh();
    expect(sim.requests("products.update")).toHaveLength(2);
    expect(said(refresh, "serviceapi:")).toEqual([summary(2, 0, 0)]);

    // A token in the environment that the recorded serviceapi:token overrides: never printed.
    const env = await engine.withEnv({ SERVICEAPI_TOKEN: "another_token_0003" }, () => engine.refresh());
    expect(said(env, "serviceapi:")).toEqual([summary(2, 0, 0)]);
    expect(env.text).not.toContain("another_token_0003");
  });

  it("a token the service refuses at refresh costs one request; the advice names SERVICEAPI_TOKEN, where it came from", async () => {
    const engine = await catalogStack(N, { token: null, env: { SERVICEAPI_TOKEN: sim.token } });
    engine.setEnv("SERVICEAPI_TOKEN", "wrong_token_0002");
    const failed = await expectFailure(engine.refresh());
    expect(sim.requests().map((r) => `${r.operation} ${r.status}`)).toEqual(["products.update 401"]);
    // The 401 and its advice are told by one resource, in the three places the CLI shows its error (the step,
    // its failure line, Diagnostics); every other resource's read fails at once, one short line each.
    const advice = "The service refused the token: it is SERVICEAPI_TOKEN in the environment `pulumi` runs in; set the right one there.";
    expect(outputLines(failed, "invalid public API token")).toHaveLength(3);
    expect(outputLines(failed, advice)).toHaveLength(3);
    const others = outputLines(failed, "error: ").filter(
      (l) => !l.includes("invalid public API token") && !/(update|refresh) failed\s*$/.test(l),
    );
    for (const line of others)
      expect(line).toMatch(
        /error: products\.update was not sent: the service refused this token \(401 unauthorized\) on an earlier request\s*$/,
      );
    expect(failed.text).not.toContain("keep the token only in SERVICEAPI_TOKEN");
    expect(failed.text).not.toContain("--run-program");
    expect(failed.text).not.toContain("wrong_token_0002");
    // No stack trace: a "not sent" error is a message for the user, as the 401 is.
    expect(failed.text).not.toContain("TokenRefusedError");
    const [line] = said(failed, SUMMARY);
    expect(line).toMatch(
      /^serviceapi: this provider process sent 1 request: 1 read \(empty PATCH\), 0 lookups, 0 writes(; \d+ not sent, as the service refused the token)?$/,
    );
  });

  it("each provider process ends with one line counting what it sent, by kind: a preview writes nothing", async () => {
    // Through the plugin, the program's lookup is a function of the provider: its listing is counted too.
    const lookups = plugin ? 1 : 0;
    const engine = await catalogStack(N, {}, plugin);
    const gate = await engine.preview({ refresh: true, runProgram: true, diff: true });
    expect(sim.requests().filter((r) => r.operation !== null)).toHaveLength(N + lookups);
    expect(said(gate, SUMMARY)).toEqual([summary(N, lookups, 0)]);
    const plain = await engine.preview();
    expect(said(plain, SUMMARY)).toEqual([summary(0, lookups, 0)]);
    if (plugin) engine.writeProgram(yamlCatalog(N, { lookup: true }).replace("title: P 3\n", "title: P 3 renamed\n"));
    else await engine.setSpec({ products: { ...catalog(project, N, "P").products, P3: { projectId: project, title: "P 3 renamed" } } });
    const up = await engine.up();
    expect(said(up, SUMMARY)).toEqual([summary(0, lookups, 1)]);
    expect(sim.requests().filter((r) => r.operation !== null)).toHaveLength(1 + lookups);
  });

  it("a refresh with its preview reads every product twice, in two provider processes, each saying its count; --skip-preview reads once", async () => {
    const engine = await catalogStack(N);
    sim.clearRequests();
    const twice = engine.spawnCli(["refresh", "--yes", "--non-interactive"]);
    expect(await twice.exited).toBe(0);
    expect(sim.requests("products.update")).toHaveLength(2 * N);
    expect(times(twice.output(), summary(N, 0, 0))).toBe(2);
    sim.clearRequests();
    const once = engine.spawnCli(["refresh", "--yes", "--skip-preview", "--non-interactive"]);
    expect(await once.exited).toBe(0);
    expect(sim.requests("products.update")).toHaveLength(N);
    expect(times(once.output(), summary(N, 0, 0))).toBe(1);
  });

  it("a service that does not answer is named by its setting and where that came from", async () => {
    const gone = await startSimulator({ port: 0 });
    const engine = await catalogStack(1, { config: { "serviceapi:baseUrl": gone.url, "serviceapi:maxRetries": "1" } });
    await gone.close();
    // Recorded at the last up: plain refresh uses it. A read cannot tell recorded from current: the advice names both.
    const moved = `If the service moved, run the command with \`--run-program\`, or \`pulumi up\` first; otherwise check that it runs there.`;
    const recorded = await expectFailure(engine.refresh());
    expect(outputLines(recorded, "ECONNREFUSED")[0]).toContain(
      `Nothing answered at ${origin(gone.url)}, serviceapi:baseUrl, ${EITHER} ${moved}`,
    );
    // The stack config as it is now: the preview reads with it.
    await engine.stack.setConfig("serviceapi:baseUrl", { value: "http://127.0.0.1:9" });
    const current = await expectFailure(engine.preview({ refresh: true, runProgram: true }));
    expect(outputLines(current, "ECONNREFUSED")[0]).toContain(
      `Nothing answered at http://127.0.0.1:9, serviceapi:baseUrl, ${EITHER} ${moved}`,
    );
    // The environment.
    await engine.stack.removeConfig("serviceapi:baseUrl");
    const env = await expectFailure(
      engine.withEnv({ SERVICEAPI_BASE_URL: "http://127.0.0.1:9" }, () => engine.preview({ refresh: true, runProgram: true })),
    );
    expect(outputLines(env, "ECONNREFUSED")[0]).toContain(
      "Nothing answered at http://127.0.0.1:9, SERVICEAPI_BASE_URL in the environment: check the URL, and that the service runs there.",
    );
  });
});

describe("a token refused at refresh, recorded at the last up", { timeout: ENGINE_TIMEOUT_MS }, () => {
  let dir: string;
  let service: Simulator | undefined;
  let engine: EngineStack | undefined;
  beforeAll(async () => {
    await pulumiCli();
    dir = mkdtempSync(join(tmpdir(), "serviceapi-reach-"));
  }, 30 * 60_000);
  afterAll(async () => {
    await engine?.dispose();
    await service?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("costs one request, and the advice names serviceapi:token, recorded or current, and what to run", async () => {
    // The stack goes up with a token the service then revokes: the same service (one data file) restarted without it.
    const dataFile = join(dir, "service.db");
    const before = await startSimulator({ port: 0, dataFile, token: "revoked_soon_0001" });
    engine = await EngineStack.create(before, { token: "revoked_soon_0001" });
    await engine.setSpec(catalog(project, N, "P"));
    await engine.up();
    await before.close();
    service = await startSimulator({ port: before.port, dataFile });
    const failed: FailedRun = await expectFailure(engine.refresh());
    expect(service.requests().map((r) => `${r.operation} ${r.status}`)).toEqual(["products.update 401"]);
    expect(outputLines(failed, "invalid public API token")).toHaveLength(3);
    expect(failed.text).toContain(
      `The service refused the token: it is serviceapi:token, ${EITHER} If it was rotated since that \`pulumi up\`, run the command with ` +
        "`--run-program`, or `pulumi up` first; otherwise set the right one with `pulumi config set --secret serviceapi:token <token>`.",
    );
    expect(failed.text).not.toContain("revoked_soon_0001");
  });
});
