/**
 * A Node.js older than the package supports, for the tests of what a user with one first on PATH
 * sees — fetched from the npm registry (`node-<platform>-<arch>`, the binaries the `node` package
 * installs) into the cache outside the repo, so the test never depends on the machine's own Node.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export const OLD_NODE_VERSION = "20.19.6";

/** The `bin` folder of Node.js 20.19.6 (downloaded once, about 30 MB). */
export function oldNodeBin(): string {
  const cache = process.env.SERVICEAPI_PULUMI_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "pulumi-serviceapi");
  const dir = join(cache, `node-v${OLD_NODE_VERSION}`);
  const bin = join(dir, "bin");
  if (existsSync(join(bin, "node"))) return bin;
  mkdirSync(cache, { recursive: true });
  const scratch = mkdtempSync(join(cache, "node-download-"));
  try {
    const pkg = `node-${process.platform}-${process.arch}@${OLD_NODE_VERSION}`;
    const tarball = execFileSync("npm", ["pack", pkg, "--silent", "--pack-destination", scratch], {
      encoding: "utf8",
      cwd: scratch,
    }).trim();
    execFileSync("tar", ["-xzf", join(scratch, tarball), "-C", scratch]);
    rmSync(dir, { recursive: true, force: true });
    renameSync(join(scratch, "package"), dir);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const version = execFileSync(join(bin, "node"), ["--version"], { encoding: "utf8" }).trim();
  if (version !== `v${OLD_NODE_VERSION}`) throw new Error(`the downloaded Node.js says ${version}, not v${OLD_NODE_VERSION}`);
  return bin;
}
