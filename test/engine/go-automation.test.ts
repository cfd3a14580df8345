/**
 * Go programs on the generated Go SDK (sdk/go) run under the real CLI, through Pulumi's Go
 * Automation API: an inline program runs inside the Go process, which serves it to the CLI, so no
 * Go language host (not served to these machines) is involved. Two Go programs, each built with
 * `-mod=readonly` against its committed go.mod/go.sum (Pulumi's Go SDK v3.248.0, the SDK through a
 * `replace` to sdk/):
 *
 * - test/go: the quick start's catalog through the plugin, one ordered scenario — up, a one-field
 *   change (one PATCH of that key), the drift gate (exit 7 naming the field), import of a product
 *   made elsewhere (the `import` resource option; `pulumi import` needs the Go language host), a
 *   second account through serviceapi.NewProvider with its own token, destroy;
 *   the tokens in no output, stack export or state file. Its assertions are in Go; this file starts
 *   the simulators, runs the test binary, reads back what it printed and checks the services.
 * - examples/catalog-go: the example's own `main` driving its stack (`go run . up`), as a user
 *   without a Go language host runs it.
 */
import { execFileSync, spawn } from "node:child_process";
import { appendFileSync, copyFileSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { DEFAULT_IDS } from "../../simulator/seed";
import { simulator } from "../helpers";
import { PLUGIN_FROM_NODE_MODULES, REPO, pulumiCli, wire } from "../../scripts/engine/driver";
import { killTree } from "../../scripts/engine/processes";
import { productTitles, scratchFolder } from "./suite";

const SCENARIO_TIMEOUT_MS = 8 * 60_000;
const scratch = scratchFolder("serviceapi-go-engine-");

/** `go <args>` in `dir` with go.mod and go.sum as committed (never rewritten), CGO off as in test/sdk/go.test.ts. */
function go(args: string[], dir: string): void {
  execFileSync("go", args, {
    cwd: dir,
    // No VCS stamp: the binaries are thrown away, and a checkout's git state cannot fail the build.
    env: { ...process.env, CGO_ENABLED: "0", GOFLAGS: "-mod=readonly -buildvcs=false" },
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 15 * 60_000,
  });
}

/** Runs a built program to its end; on `timeoutMs` it and every process below it (the CLI, the plugin) are killed. */
function run(
  file: string,
  args: string[],
  options: { cwd: string; env: Record<string, string | undefined>; timeoutMs: number },
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    const timer = setTimeout(() => killTree(child.pid!), options.timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe("Go programs under the real CLI through the Go Automation API", { timeout: SCENARIO_TIMEOUT_MS + 60_000 }, () => {
  let acme: Simulator;
  let globex: Simulator;
  let pulumiBin: string;
  const binaries = join(scratch, "bin");
  const seconds = (since: number) => ((Date.now() - since) / 1000).toFixed(1);

  beforeAll(async () => {
    pulumiBin = (await pulumiCli()).bin;
    acme = await simulator({ token: "acme_token_0001" });
    globex = await simulator({ token: "globex_token_0002" });
    // Built outside the tests' time: the first build on a machine compiles Pulumi's Go SDK (minutes).
    const began = Date.now();
    go(["vet", "./..."], join(REPO, "test", "go"));
    go(["test", "-c", "-o", join(binaries, "catalog.test"), "."], join(REPO, "test", "go"));
    go(["build", "-o", join(binaries, "catalog-go"), "."], join(REPO, "examples", "catalog-go"));
    console.log(`go-automation: go vet and build of test/go and examples/catalog-go: ${seconds(began)} s`);
  }, 30 * 60_000);

  /** What every Go program here runs with: the CLI first on PATH, Node 24 for the plugin's launcher. */
  const path = () => `${pulumiBin}:${join(REPO, "node_modules", ".bin")}:${process.env.PATH ?? ""}`;

  it("test/go: up, one-field change, drift gate, import, a second account, destroy — secrets in no output or state", async () => {
    // The Go test's own temporary folders (t.TempDir, the Automation API's event logs) go here, to show they are removed.
    const tmp = join(scratch, "go-tmp");
    mkdirSync(tmp);
    const began = Date.now();
    const result = await run(
      join(binaries, "catalog.test"),
      ["-test.v", "-test.count=1", `-test.timeout=${SCENARIO_TIMEOUT_MS / 60_000 - 1}m`],
      {
        cwd: join(REPO, "test", "go"),
        env: {
          ...process.env,
          PATH: path(),
          TMPDIR: tmp,
          SERVICEAPI_GO_TEST_ACME_URL: acme.url,
          SERVICEAPI_GO_TEST_ACME_TOKEN: acme.token,
          SERVICEAPI_GO_TEST_GLOBEX_URL: globex.url,
          SERVICEAPI_GO_TEST_GLOBEX_TOKEN: globex.token,
          SERVICEAPI_GO_TEST_PROJECT_ID: DEFAULT_IDS.acmeWeb,
          SERVICEAPI_GO_TEST_PLUGIN_DIR: join(REPO, "node_modules", "pulumi-serviceapi", "plugin"),
          SERVICEAPI_GO_TEST_PULUMI_BIN: pulumiBin,
        },
        timeoutMs: SCENARIO_TIMEOUT_MS,
      },
    );
    const reported = result.output.split("\n").filter((line) => line.startsWith("go-automation: "));
    console.log([...reported, `go-automation: test binary ran ${seconds(began)} s`].join("\n"));
    expect(result.output, result.output).toMatch(/^--- PASS: TestCatalog /m);
    expect(result.code).toBe(0);
    expect(result.output.match(/^ {4}--- PASS: TestCatalog\//gm)).toHaveLength(8);

    // What the Go test printed: the one PATCH of the one-field change, exactly, and the field the gate named.
    const proId = acme.products().find((p) => p.title === "Pro plan (2027)")!.id;
    expect(reported).toContain(`go-automation: one-field change: PATCH /api/v1/public/products/${proId} {"title":"Pro plan (2027)"}`);
    expect(reported).toContain("go-automation: drift gate: exit 7, field description");

    // The services as the scenario left them: everything it made archived, each on its own service; the
    // product made in the UI and imported given back as found (the stack changed none of its fields).
    const archived = (p: { status: string }) => p.status === "archived";
    expect(productTitles(acme, (p) => p.projectId === DEFAULT_IDS.acmeWeb)).toEqual([
      "Enterprise plan",
      "Legacy basic plan",
      "Made in the UI",
      "Pro plan (2027)",
    ]);
    expect(productTitles(acme, (p) => !archived(p))).toEqual(["Made in the UI"]);
    expect(globex.products().map((p) => [p.title, p.status])).toEqual([["Globex plan", "archived"]]);
    // Destroy's one rename gave the site back a name other than the program's.
    const renames = wire(acme).filter((r) => r.operation === "sites.update");
    expect(renames).toHaveLength(1);
    expect((renames[0]!.body as { name: string }).name).not.toBe("Acme — Home");
    expect(readdirSync(tmp)).toEqual([]);
  });

  it("examples/catalog-go drives its own stack: `catalog-go up`, the drift gate's exit 7, `catalog-go destroy`", async () => {
    const sim = await simulator({ token: "example_token_0003" });
    const dir = join(scratch, "example");
    mkdirSync(join(dir, "state"), { recursive: true });
    // The example's project file, with the plugin from the installed npm package (README: install the plugin).
    copyFileSync(join(REPO, "examples", "catalog-go", "Pulumi.yaml"), join(dir, "Pulumi.yaml"));
    appendFileSync(join(dir, "Pulumi.yaml"), PLUGIN_FROM_NODE_MODULES);
    const env = {
      ...process.env,
      PATH: path(),
      PULUMI_BACKEND_URL: `file://${join(dir, "state")}`,
      PULUMI_CONFIG_PASSPHRASE: "go-example",
      PULUMI_HOME: join(dir, "pulumi-home"),
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      // The provider's settings from the environment: nothing about the service in the stack's files.
      SERVICEAPI_TOKEN: sim.token,
      SERVICEAPI_BASE_URL: sim.url,
      SERVICEAPI_PUBLIC_BASE_URL: "",
    };
    const example = (...args: string[]) => run(join(binaries, "catalog-go"), args, { cwd: dir, env, timeoutMs: 120_000 });
    const began = Date.now();

    const up = await example("up");
    expect(up.code, up.output).toBe(0);
    expect(up.output).toMatch(/Updating \(dev\)/);
    expect(productTitles(sim, (p) => p.projectId === DEFAULT_IDS.acmeWeb)).toEqual(["Legacy basic plan", "Pro plan"]);
    expect(wire(sim).find((r) => r.operation === "sites.update")?.body).toEqual({ name: "Acme — Home" });

    const pro = sim.products().find((p) => p.title === "Pro plan")!;
    await fetch(`${sim.url}/api/v1/public/products/${pro.id}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${sim.token}`, "service-api-version": "2026-07-11", "content-type": "application/json" },
      body: JSON.stringify({ slug: "pro-2027" }),
    });
    const gate = await example("-refresh", "-diff", "-expect-no-changes", "preview");
    expect(gate.code, gate.output).toBe(7);
    expect(gate.output).toMatch(/~ slug\s*: "pro-2027" => "pro"/);
    expect(gate.output).toContain("catalog-go: preview failed (pulumi exited 7)");

    const destroy = await example("destroy");
    expect(destroy.code, destroy.output).toBe(0);
    expect(sim.products().map((p) => p.status)).toEqual(["archived", "archived"]);
    expect(up.output + gate.output + destroy.output).not.toContain(sim.token);
    console.log(`go-automation: examples/catalog-go up, gate, destroy: ${seconds(began)} s`);
  });
});
