/**
 * The Node.js SDK's tarball, as `npm run pack` makes it beside the package's (docs/sdks.md, "TypeScript"):
 * `scripts/pack-sdk.sh build` compiles the generated SDK, and `pack <dir>` with a relative dir
 * writes the tarball there, holding the compiled SDK at its root — entry, types, the generated
 * package.json with the plugin's name and version — and no TypeScript sources or source maps.
 *
 * Both run on a copy of the script and the SDK's sources in a folder of this test's own: what is
 * checked is what the sources build to now, whether or not `npm run build` ran first, and a build
 * running meanwhile (which empties sdk/nodejs/bin) cannot change it.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO } from "../../scripts/engine/driver";
import { version } from "../../package.json";

describe("the Node.js SDK's tarball", () => {
  // Inside the repo, as sdk/nodejs is: the script's compiler and @pulumi/pulumi resolve from node_modules beside it.
  const stage = mkdtempSync(join(REPO, ".pack-test-sdk-"));
  afterAll(() => rmSync(stage, { recursive: true, force: true }));

  it("build, then pack <relative dir>: @pulumi-serviceapi/serviceapi, compiled, at the tarball's root", () => {
    cpSync(join(REPO, "scripts", "pack-sdk.sh"), join(stage, "scripts", "pack-sdk.sh"));
    cpSync(join(REPO, "sdk", "nodejs"), join(stage, "sdk", "nodejs"), {
      recursive: true,
      filter: (path) => !/[\\/](bin|node_modules)$/.test(path),
    });
    symlinkSync(join(REPO, "node_modules"), join(stage, "node_modules"));
    const script = join(stage, "scripts", "pack-sdk.sh");
    execFileSync("bash", [script, "build"], { cwd: stage, stdio: ["ignore", "ignore", "pipe"] });
    mkdirSync(join(stage, "out"));
    execFileSync("bash", [script, "pack", "out"], { cwd: stage, stdio: ["ignore", "ignore", "pipe"] });

    const tarball = join(stage, "out", `pulumi-serviceapi-serviceapi-${version}.tgz`);
    expect(readdirSync(join(stage, "out"))).toEqual([`pulumi-serviceapi-serviceapi-${version}.tgz`]);
    const files = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).trim().split("\n").sort();
    for (const file of ["package/index.js", "package/index.d.ts", "package/package.json", "package/product.js", "package/README.md"])
      expect(files).toContain(file);
    expect(files.filter((f) => /\.(ts|map)$/.test(f) && !f.endsWith(".d.ts"))).toEqual([]);
    const manifest = JSON.parse(execFileSync("tar", ["-xzOf", tarball, "package/package.json"], { encoding: "utf8" }));
    expect(manifest).toMatchObject({ name: "@pulumi-serviceapi/serviceapi", version, pulumi: { resource: true, name: "serviceapi", version } });
  });
});
