/**
 * The quick start as a user sets it up, outside this repo: the packed package and @pulumi/pulumi,
 * then `npm install --save-dev typescript @types/node` as the README says — which gives TypeScript 6
 * today (@pulumi/pulumi's peer range stops before 7). Pulumi's runtime compiles the program with
 * that TypeScript and its own bundled ts-node, type-checking as it does for users.
 */
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { npmAsUser, pack, userProject } from "../package/user-project";
import { engineSuite, scratchFolder } from "./suite";
import { ENGINE_TIMEOUT_MS, REPO } from "../../scripts/engine/driver";

const scratch = scratchFolder("serviceapi-user-");

function installedVersion(project: string, name: string): string {
  return JSON.parse(readFileSync(join(project, "node_modules", name, "package.json"), "utf8")).version;
}

describe("the quick start in a user's own project", { timeout: ENGINE_TIMEOUT_MS }, () => {
  const suite = engineSuite();

  it("npm gives it TypeScript 6, and pulumi preview type-checks and plans the whole catalog with it", async () => {
    const { tarball } = pack(scratch);
    const project = userProject(join(scratch, "quickstart"));
    for (const file of ["index.ts", "tsconfig.json", "Pulumi.yaml"]) {
      copyFileSync(join(REPO, "examples", "quickstart", file), join(project, file));
    }
    // The SDK the repo's CLI is tested with; everything else as npm resolves it for a user today.
    const sdk = installedVersion(REPO, "@pulumi/pulumi");
    for (const args of [
      ["install", tarball, `@pulumi/pulumi@${sdk}`],
      ["install", "--save-dev", "typescript", "@types/node"],
    ]) {
      const { status, output } = npmAsUser(project, args);
      expect(status, output).toBe(0);
    }
    expect(installedVersion(project, "typescript")).toMatch(/^6\./);
    expect(existsSync(join(project, "node_modules", "ts-node"))).toBe(false);

    const engine = await suite.newStack({ program: project, inPlace: true, env: { PULUMI_NODEJS_TRANSPILE_ONLY: "false" } });
    const preview = await engine.preview();
    expect(preview.result.changeSummary).toEqual({ create: 6 });
  });
});
