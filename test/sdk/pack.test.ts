/**
 * The Node.js SDK's tarball, as `npm run pack` makes it beside the package's (README, "SDKs"):
 * `scripts/pack-sdk.sh pack <dir>` with a relative dir writes it there, and it holds the compiled
 * SDK at its root — entry, types, the generated package.json with the plugin's name and version —
 * and no TypeScript sources or source maps.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO } from "../support/engine";
import { version } from "../../package.json";

describe("the Node.js SDK's tarball", () => {
  const dir = mkdtempSync(join(REPO, ".pack-test-sdk-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("pack <relative dir>: @pulumi-serviceapi/serviceapi, compiled, at the tarball's root", () => {
    // Packs what `npm run build` compiled (npm test builds first); rebuilding here would race other test files.
    execFileSync("bash", [join(REPO, "scripts", "pack-sdk.sh"), "pack", relative(REPO, dir)], { cwd: REPO, stdio: "ignore" });
    const tarball = `pulumi-serviceapi-serviceapi-${version}.tgz`;
    expect(readdirSync(dir)).toEqual([tarball]);
    const files = execFileSync("tar", ["-tzf", join(dir, tarball)], { encoding: "utf8" }).trim().split("\n").sort();
    for (const file of ["package/index.js", "package/index.d.ts", "package/package.json", "package/product.js", "package/README.md"])
      expect(files).toContain(file);
    expect(files.filter((f) => /\.(ts|map)$/.test(f) && !f.endsWith(".d.ts"))).toEqual([]);
    const manifest = JSON.parse(execFileSync("tar", ["-xzOf", join(dir, tarball), "package/package.json"], { encoding: "utf8" }));
    expect(manifest).toMatchObject({ name: "@pulumi-serviceapi/serviceapi", version, pulumi: { resource: true, name: "serviceapi", version } });
  });
});
