/**
 * The plugin's launcher (`plugin/pulumi-resource-serviceapi`, the same file in the npm package and
 * in the plugin archive) runs the plugin only under a Node.js the package supports, and otherwise
 * says which version it needs and which it found. The `node` it sees here is a script printing a
 * version, so each boundary is checked without installing old Node releases.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO } from "../../scripts/repo";

const LAUNCHER = join(REPO, "plugin", "pulumi-resource-serviceapi");
const scratch = mkdtempSync(join(tmpdir(), "launcher-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs the launcher with a `node` on PATH that prints `version` (or with no `node` at all). */
function launch(version: string | null): { status: number | null; stderr: string; stdout: string } {
  const bin = mkdtempSync(join(scratch, "bin-"));
  if (version !== null) {
    // Prints its version for `--version`; when the launcher runs the plugin, says which file it was given.
    writeFileSync(join(bin, "node"), `#!/bin/sh\nif [ "$1" = --version ]; then echo ${version}; else echo "ran $1"; fi\n`);
    chmodSync(join(bin, "node"), 0o755);
  }
  // Without a `node` of its own, PATH holds nothing else: the machine's /usr/bin has a Node 20.
  const path = version === null ? bin : `${bin}:/usr/bin:/bin`;
  const run = spawnSync("/bin/sh", [LAUNCHER, "127.0.0.1:1"], { env: { PATH: path }, encoding: "utf8" });
  return { status: run.status, stderr: run.stderr, stdout: run.stdout };
}

describe("the plugin launcher", () => {
  it.each(["v22.19.0", "v22.20.1", "v23.0.0", "v24.21.0", "v30.1.2"])("runs the plugin's build under Node %s", (version) => {
    const run = launch(version);
    expect(run.status).toBe(0);
    expect(run.stdout.trim()).toMatch(/^ran .*\/plugin\/\.\.\/dist\/src\/plugin\/main\.js$/);
  });

  it.each(["v22.18.1", "v22.9.0", "v20.20.2", "v18.20.0", "v9.99.99"])("refuses Node %s, naming what it needs and what it found", (version) => {
    const run = launch(version);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(`pulumi-resource-serviceapi needs Node.js 22.19 or later as \`node\` on PATH (found: ${version})\n`);
  });

  it("refuses when `node` is not on PATH, or prints something that is not a version", () => {
    expect(launch(null).stderr).toBe("pulumi-resource-serviceapi needs Node.js 22.19 or later as `node` on PATH (found: none)\n");
    expect(launch("node-canary").stderr).toBe("pulumi-resource-serviceapi needs Node.js 22.19 or later as `node` on PATH (found: node-canary)\n");
  });
});
