/**
 * The plugin's launcher (`plugin/pulumi-resource-serviceapi`, the same file in the npm package and
 * in the plugin archive) runs the plugin only under a Node.js the package supports, and otherwise
 * says which version it needs and which it found. The `node` it sees here is a script printing a
 * version, and nothing else is on PATH, so each boundary is checked without installing old Node
 * releases and whatever Node.js the machine has.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO } from "../../scripts/repo";

const LAUNCHER = join(REPO, "plugin", "pulumi-resource-serviceapi");
const scratch = mkdtempSync(join(tmpdir(), "launcher-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Where this machine keeps the two tools the launcher uses besides `node`. */
const tools = Object.fromEntries(
  ["dirname", "sh"].map((tool) => [tool, execFileSync("sh", ["-c", `command -v ${tool}`], { encoding: "utf8" }).trim()]),
);

/**
 * Runs the launcher with nothing on PATH but `dirname`, `sh` and — unless `version` is null — a
 * `node` that prints `version`: whatever Node.js this machine has is never seen.
 */
function launch(version: string | null): { status: number | null; stderr: string; stdout: string } {
  const bin = mkdtempSync(join(scratch, "bin-"));
  for (const [tool, path] of Object.entries(tools)) symlinkSync(path, join(bin, tool));
  if (version !== null) {
    // Prints its version for `--version`; when the launcher runs the plugin, says which file it was given.
    writeFileSync(join(bin, "node"), `#!/bin/sh\nif [ "$1" = --version ]; then echo ${version}; else echo "ran $1"; fi\n`);
    chmodSync(join(bin, "node"), 0o755);
  }
  const run = spawnSync(tools.sh!, [LAUNCHER, "127.0.0.1:1"], { env: { PATH: bin }, encoding: "utf8" });
  return { status: run.status, stderr: run.stderr, stdout: run.stdout };
}

describe("the plugin launcher", () => {
  it.each(["v22.19.0", "v22.20.1", "v23.0.0", "v24.21.0", "v30.1.2"])("runs the plugin's build under Node %s", (version) => {
    const run = launch(version);
    expect(run.status).toBe(0);
    expect(run.stdout.trim()).toMatch(/^ran .*\/plugin\/\.\.\/dist\/provider\/plugin\/main\.js$/);
  });

  it.each(["v22.18.1", "v22.9.0", "v20.20.2", "v18.20.0", "v9.99.99"])(
    "refuses Node %s, naming what it needs and what it found",
    (version) => {
      const run = launch(version);
      expect(run.status).toBe(1);
      expect(run.stdout).toBe("");
      expect(run.stderr).toBe(`pulumi-resource-serviceapi needs Node.js 22.19 or later as \`node\` on PATH (found: ${version})\n`);
    },
  );

  it("refuses when `node` is not on PATH, or prints something that is not a version", () => {
    expect(launch(null).stderr).toBe("pulumi-resource-serviceapi needs Node.js 22.19 or later as `node` on PATH (found: none)\n");
    expect(launch("node-canary").stderr).toBe(
      "pulumi-resource-serviceapi needs Node.js 22.19 or later as `node` on PATH (found: node-canary)\n",
    );
  });
});
