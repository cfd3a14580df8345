/**
 * Which Node.js the package runs under, tried by running the checks: npm's reading of package.json's
 * `engines` (semver, as `npm install --engine-strict` applies it), the package's own check (the first
 * module its entry points load) and the plugin's launcher accept and refuse the same versions; and a
 * too-old Node gets one line naming both versions from every entry point. The documentation a
 * message points at is in what npm packs.
 */
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { satisfies } from "semver";
import { afterAll, describe, expect, it, vi } from "vitest";
import { docsLink } from "../../provider/resources/docs-link";
import pkg from "../../package.json";
import { REPO } from "../../scripts/repo";
import { launch } from "../support/launcher";
import { pack } from "./user-project";

/**
 * Loads `module` afresh as if this process were Node.js `version` (`process.version` and
 * `process.versions.node` say so meanwhile); returns what loading it threw, if anything.
 */
async function loadUnder(version: string, module: string): Promise<(Error & { __pulumiRunError?: boolean }) | undefined> {
  const saved = {
    version: Object.getOwnPropertyDescriptor(process, "version")!,
    node: Object.getOwnPropertyDescriptor(process.versions, "node")!,
  };
  const consoleError = console.error;
  Object.defineProperty(process, "version", { ...saved.version, value: version });
  Object.defineProperty(process.versions, "node", { ...saved.node, value: version.replace(/^v/, "") });
  vi.resetModules();
  try {
    await import(module);
    return undefined;
  } catch (error) {
    return error as Error;
  } finally {
    Object.defineProperty(process, "version", saved.version);
    Object.defineProperty(process.versions, "node", saved.node);
    // The check installs its print filter on console.error (provider/dynamic/expected-prints.ts): not for the next test.
    console.error = consoleError;
    vi.resetModules();
  }
}

const CHECK = "../../provider/dynamic/node-version";

describe("the Node.js versions the package runs under", () => {
  // Either side of every boundary a version check can get wrong: major, minor, patch, and a minor
  // compared as text ("9" > "19").
  const versions = ["v22.19.0", "v22.18.1", "v22.19.1", "v22.20.0", "v22.9.0", "v23.0.0", "v21.99.0", "v20.20.2", "v24.21.0", "v30.1.2"];

  it.each(versions)("%s: npm's reading of engines, the package's check and the plugin's launcher agree", async (version) => {
    const npmAccepts = satisfies(version, pkg.engines.node);
    const packageAccepts = (await loadUnder(version, CHECK)) === undefined;
    const launcherAccepts = launch(version).status === 0;
    expect({ packageAccepts, launcherAccepts }).toEqual({ packageAccepts: npmAccepts, launcherAccepts: npmAccepts });
  });

  it("the boundary versions fall on both sides of engines (so the agreement above means something)", () => {
    expect(versions.filter((v) => satisfies(v, pkg.engines.node))).toEqual([
      "v22.19.0",
      "v22.19.1",
      "v22.20.0",
      "v23.0.0",
      "v24.21.0",
      "v30.1.2",
    ]);
  });

  it.each(["../../provider", "../../provider/dynamic/product", "../../provider/dynamic/site", "../../provider/dynamic/task"])(
    "loading %s under a too-old Node fails with one line naming both versions, marked for Pulumi to print without a stack",
    async (entry) => {
      const error = await loadUnder("v22.18.1", entry);
      const message =
        `pulumi-serviceapi needs Node.js 22.19 or later; this is Node.js v22.18.1 (${process.execPath}). ` +
        "Put a newer `node` first on PATH where pulumi runs.";
      expect(error).toBeInstanceOf(Error);
      expect(error!.message).toBe(message);
      expect(error!.stack).toBe(message);
      expect(error!.__pulumiRunError).toBe(true);
    },
  );
});

describe("links in messages", () => {
  const work = mkdtempSync(join(tmpdir(), "docs-link-"));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  /**
   * What npm packs of package.json and docs/ as they are here: packed from a copy of just those, so
   * a build rewriting dist/ meanwhile cannot disturb it (the whole package is packaging.test.ts's).
   */
  function packedDocs(): string[] {
    const stage = join(work, "stage");
    cpSync(join(REPO, "package.json"), join(stage, "package.json"));
    cpSync(join(REPO, "docs"), join(stage, "docs"), { recursive: true });
    return pack(work, "provider", stage).files;
  }

  it("name a page that npm packs, at the path the repository URL names", () => {
    const text = docsLink("recovery.md");
    expect(text).toBe(
      "docs/recovery.md (https://github.com/pulumi-serviceapi/pulumi-serviceapi/blob/main/docs/recovery.md; " +
        "also in node_modules/pulumi-serviceapi/docs/)",
    );
    const [, page, urlPath] = /^(\S+) \(https:\/\/github\.com\/[^/]+\/[^/]+\/blob\/main\/(\S+);/.exec(text)!;
    expect(urlPath).toBe(page);
    expect(packedDocs()).toContain(page);
  });
});
