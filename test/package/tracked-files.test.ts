/**
 * No packed tarball is in git: those `npm run pack` writes (the package's and the SDK's at the root,
 * `npm run pack -w pulumi-serviceapi-simulator`'s in simulator/) are ignored where they are written,
 * so a pack is never a change to commit, and nothing can rely on a stale tarball instead of building one.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(__dirname, "..", "..");

/** The file `npm pack` names a package's tarball: `<name>-<version>.tgz`, a scope's `@` dropped and its `/` a hyphen. */
function tarballOf(manifest: string): string {
  const { name, version } = JSON.parse(readFileSync(join(root, manifest), "utf8")) as { name: string; version: string };
  return `${name.replace(/^@/, "").replace("/", "-")}-${version}.tgz`;
}

describe("packed tarballs", () => {
  it("are none of git's files", () => {
    expect(execFileSync("git", ["ls-files", "--", "*.tgz"], { cwd: root, encoding: "utf8" })).toBe("");
  });

  it("are ignored where `npm run pack` writes them, and only there", () => {
    const written = [tarballOf("package.json"), tarballOf("sdk/nodejs/package.json"), `simulator/${tarballOf("simulator/package.json")}`];
    // By the rules alone (--no-index), whether or not such files exist; a tarball elsewhere (a test's fixture) may be tracked.
    const ignored = execFileSync("git", ["check-ignore", "--no-index", "--stdin"], {
      cwd: root,
      input: [...written, "test/fixtures/archive.tgz", "provider/archive.tgz"].join("\n"),
      encoding: "utf8",
    });
    expect(ignored.split("\n").filter((line) => line !== "")).toEqual(written);
  });
});
