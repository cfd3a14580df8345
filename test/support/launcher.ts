/**
 * Runs the plugin's launcher (`plugin/pulumi-resource-serviceapi`) as Pulumi would, under a `node`
 * that is a script printing a chosen version: each version boundary is tried without installing old
 * Node.js releases, and whatever Node.js the machine has is never seen.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO } from "../../scripts/repo";

export const LAUNCHER = join(REPO, "plugin", "pulumi-resource-serviceapi");

/** Where this machine keeps the two tools the launcher uses besides `node`. */
const tools = Object.fromEntries(
  ["dirname", "sh"].map((tool) => [tool, execFileSync("sh", ["-c", `command -v ${tool}`], { encoding: "utf8" }).trim()]),
);

/**
 * Runs the launcher with nothing on PATH but `dirname`, `sh` and — unless `version` is null — a
 * `node` that prints `version` for `--version` and, when the launcher runs the plugin, which file it
 * was given (`ran <file>`).
 */
export function launch(version: string | null): { status: number | null; stderr: string; stdout: string } {
  const bin = mkdtempSync(join(tmpdir(), "launcher-bin-"));
  try {
    for (const [tool, path] of Object.entries(tools)) symlinkSync(path, join(bin, tool));
    if (version !== null) {
      writeFileSync(join(bin, "node"), `#!/bin/sh\nif [ "$1" = --version ]; then echo ${version}; else echo "ran $1"; fi\n`);
      chmodSync(join(bin, "node"), 0o755);
    }
    const run = spawnSync(tools.sh!, [LAUNCHER, "127.0.0.1:1"], { env: { PATH: bin }, encoding: "utf8" });
    return { status: run.status, stderr: run.stderr, stdout: run.stdout };
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
}
