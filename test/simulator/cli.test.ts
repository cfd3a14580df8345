/**
 * `serviceapi-simulator`'s bin on an older Node.js: compiled from the source under test as the build
 * compiles it (../catalog/transpiled.ts) and run as a process. A Node.js older than it needs gets one
 * line naming both versions and exit code 2, before anything loads `node:sqlite` (which Node 20 does
 * not have); on the toolchain's Node the same bin loads the simulator after its check. Its minimum is
 * the package's. Starting, restarting and refusing arguments are persistence.test.ts's.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIN_NODE as PACKAGE_MIN_NODE } from "../../provider/node-minimum";
import { processesWithEnv } from "../../scripts/engine/processes";
import { REPO } from "../../scripts/repo";
import { MIN_NODE, nodeSupported } from "../../simulator/node-version";
import { nodePath, transpile } from "../catalog/transpiled";

const scratch = mkdtempSync(join(tmpdir(), "simulator-bin-"));
const BIN = join(scratch, "simulator", "cli.js");
/** Each run's processes carry `SIMULATOR_BIN_TEST=<id>`, to find any left behind. */
const MARK = "SIMULATOR_BIN_TEST";
/** The machine's own node, Node.js 20 here and on CI: what a user may still have first on PATH. */
const NODE_20 = "/usr/bin/node";

beforeAll(() => {
  // The simulator and the contract it shares, as its package's build compiles them (simulator/tsconfig.json).
  transpile(["simulator/*.ts", "provider/contract/*.ts"], scratch);
}, 60_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The bin run by `node`, as a user's shell runs it: its output, exit code, and whether any process of it is left. */
function runBin(node: string, args: string[]) {
  const id = randomUUID();
  const run = spawnSync(node, [BIN, ...args], {
    env: { ...process.env, NODE_PATH: nodePath, [MARK]: id },
    encoding: "utf8",
    timeout: 30_000,
  });
  return { status: run.status, signal: run.signal, stdout: run.stdout, stderr: run.stderr, left: processesWithEnv(MARK, id) };
}

describe("serviceapi-simulator, the bin", () => {
  it("under Node.js 20 (the machine's /usr/bin/node): one line naming both versions and what to do, exit 2, no process left", () => {
    const version = execFileSync(NODE_20, ["--version"], { encoding: "utf8" }).trim();
    expect(version).toMatch(/^v20\./);
    // What the check stands in front of: on Node 20, loading the storage fails with a stack trace.
    const sqlite = spawnSync(NODE_20, ["-e", 'require("node:sqlite")'], { encoding: "utf8" });
    expect([sqlite.status, /\[ERR_UNKNOWN_BUILTIN_MODULE\]/.test(sqlite.stderr)]).toEqual([1, true]);

    // Arguments that would start a server: nothing starts.
    expect(runBin(NODE_20, ["--port", "0"])).toEqual({
      status: 2,
      signal: null,
      stdout: "",
      stderr: `serviceapi-simulator: needs Node.js 22.19 or later; this is Node.js ${version} (${NODE_20}). Put a newer node first on PATH.\n`,
      left: [],
    });
  });

  it("under the toolchain's Node.js the same bin loads the simulator after its check: --help prints the usage, exit 0", () => {
    expect(nodeSupported(process.versions.node)).toBe(true);
    expect(runBin(process.execPath, ["--help"])).toEqual({
      status: 0,
      signal: null,
      stdout: `Usage: serviceapi-simulator [--port 8787] [--host 127.0.0.1] [--seed FILE] [--data FILE] [--token TOKEN]

  --port   port to listen on (0 picks a free one)          default 8787
  --host   address to bind                                   default 127.0.0.1
  --seed   JSON file with workspaces, projects, sites, tokens (default: built-in seed)
  --data   SQLite file that keeps state across restarts     (default: in memory)
  --token  extra bearer token with access to every workspace, beside the seed's
           (at least 8 printable ASCII characters: the client refuses shorter ones)
`,
      stderr: "",
      left: [],
    });
  });

  it("needs the Node.js the package needs, as the simulator's package.json says", () => {
    // The simulator cannot import the package's minimum (it shares only the contract): its own constant is kept equal here.
    expect(MIN_NODE).toBe(PACKAGE_MIN_NODE);
    const manifest = JSON.parse(readFileSync(join(REPO, "simulator", "package.json"), "utf8")) as { engines: { node: string } };
    expect(manifest.engines.node).toBe(`>=${MIN_NODE}.0`);
  });

  it.each([
    ["22.19.0", true],
    ["22.19.1", true],
    ["22.20.0", true],
    ["23.0.0", true],
    ["24.21.0", true],
    ["30.1.2", true],
    ["v22.19.0", true],
    ["22.18.1", false],
    ["22.9.0", false],
    ["21.99.0", false],
    ["20.20.2", false],
  ])("takes Node.js %s as new enough: %s", (version, supported) => {
    expect(nodeSupported(version)).toBe(supported);
  });
});
