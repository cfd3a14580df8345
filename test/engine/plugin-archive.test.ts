/**
 * The plugin as a YAML-only repository gets it: the archive `npm run build-plugin` makes, installed
 * with `pulumi plugin install resource serviceapi <version> --file <archive>` into an empty
 * PULUMI_HOME, on a machine whose PATH has the CLI, `node` and the system tools — no npm project, no
 * `plugins:` entry, no plugin on PATH. The YAML example goes up, previews clean, and is destroyed.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { version } from "../../package.json";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { buildPluginArchive, pluginArchiveName } from "../../scripts/build-plugin";
import { ENGINE_TIMEOUT_MS, EngineStack, REPO, WORK, pulumiCli, wire } from "../../scripts/engine/driver";
import { simulator } from "../helpers";
import { CATALOG_EXAMPLE_TITLES, productTitles, step } from "./suite";

describe("the plugin archive, installed with pulumi plugin install --file", { timeout: ENGINE_TIMEOUT_MS }, () => {
  let sim: Simulator;
  let engine: EngineStack;
  let archive: string;
  let rebuilt: string;
  let cliBin: string;
  let nodeOnly: string;
  let scratch: string;

  beforeAll(async () => {
    cliBin = (await pulumiCli()).bin;
    sim = await simulator();
    mkdirSync(WORK, { recursive: true });
    scratch = mkdtempSync(join(WORK, "archive-"));
    archive = await buildPluginArchive(scratch);
    rebuilt = await buildPluginArchive(join(scratch, "again"));
    // A folder holding only `node` (this run's Node 24): what the machine needs besides the CLI. And
    // a broken plugin launcher on PATH: Pulumi prefers a plugin on PATH to an installed one unless
    // PULUMI_IGNORE_AMBIENT_PLUGINS is set (as docs/plugin.md says), so runs fail if that stops working.
    nodeOnly = join(scratch, "node-bin");
    mkdirSync(nodeOnly);
    symlinkSync(process.execPath, join(nodeOnly, "node"));
    writeFileSync(join(nodeOnly, "pulumi-resource-serviceapi"), "#!/bin/sh\necho 'the plugin from PATH ran' >&2\nexit 1\n");
    chmodSync(join(nodeOnly, "pulumi-resource-serviceapi"), 0o755);
    engine = await EngineStack.create(sim, {
      program: join(REPO, "examples", "catalog-pulumi-yaml"),
      env: { PATH: `${cliBin}:${nodeOnly}:/usr/bin:/bin`, PULUMI_IGNORE_AMBIENT_PLUGINS: "true" },
    });
  }, 30 * 60_000);

  /** A `pulumi` command that takes no stack, with the stack's environment; throws on a non-zero exit. */
  function pulumi(args: string[]): string {
    return execFileSync(join(cliBin, "pulumi"), args, { cwd: engine.dir, env: { ...process.env, ...engine.env }, encoding: "utf8" });
  }

  afterAll(async () => {
    await engine?.dispose();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it("installs into an empty PULUMI_HOME, runs the YAML example (never from $PATH), and names the Node.js it needs", async () => {
    await step("installs into an empty PULUMI_HOME as resource-serviceapi at the package's version", () => {
      expect(archive.endsWith(pluginArchiveName(version))).toBe(true);
      // A second build gives the same bytes (sorted entries, fixed owner and mtime, gzip without a date).
      expect(readFileSync(archive).equals(readFileSync(rebuilt))).toBe(true);
      const home = engine.env.PULUMI_HOME!;
      expect(existsSync(join(home, "plugins"))).toBe(false);
      pulumi(["plugin", "install", "resource", "serviceapi", version, "--file", archive]);
      expect(readdirSync(join(home, "plugins")).filter((d) => !d.endsWith(".lock"))).toEqual([`resource-serviceapi-v${version}`]);
      expect(readdirSync(join(home, "plugins", `resource-serviceapi-v${version}`)).sort()).toEqual([
        "pulumi-resource-serviceapi",
        "serviceapi-plugin.js",
        "serviceapi-plugin.js.LEGAL.txt",
      ]);
      expect(pulumi(["plugin", "ls"])).toMatch(new RegExp(`serviceapi\\s+resource\\s+${version.replaceAll(".", "\\.")}`));
    });

    await step("runs the YAML example: up, a preview with nothing to do, destroy; never from $PATH", async () => {
      const up = await engine.up();
      expect(up.result.summary.resourceChanges).toEqual({ create: 5 });
      expect(productTitles(sim)).toEqual(CATALOG_EXAMPLE_TITLES);
      expect((await engine.outputs()).proPlanStatus!.value).toBe("active");

      sim.clearRequests();
      const preview = await engine.preview();
      expect(preview.result.changeSummary).toEqual({ same: 5 });
      expect(wire(sim).filter((c) => c.method !== "GET")).toEqual([]);

      const destroy = await engine.destroy();
      expect(destroy.result.summary.resourceChanges).toEqual({ delete: 5 });
      expect(productTitles(sim, (p) => p.status !== "archived")).toEqual([]);

      for (const run of [up, preview, destroy]) {
        expect(run.text).not.toContain("from $PATH");
        expect(run.text).not.toContain("pulumi-resource-serviceapi from");
        expect(run.text).not.toContain("the plugin from PATH ran");
      }
    });

    await step("with a Node.js older than 22.19 as `node`, preview fails saying which version it needs and found", async () => {
      // A `node` that reports 22.18.1 first on PATH, whatever the machine's own is.
      const oldNode = join(scratch, "old-node");
      mkdirSync(oldNode);
      writeFileSync(join(oldNode, "node"), "#!/bin/sh\necho v22.18.1\n");
      chmodSync(join(oldNode, "node"), 0o755);
      await engine.withEnv({ PATH: `${cliBin}:${oldNode}:/usr/bin:/bin` }, async () => {
        const preview = engine.spawnCli(["preview", "--non-interactive"]);
        expect(await preview.exited).not.toBe(0);
        expect(preview.output()).toContain("pulumi-resource-serviceapi needs Node.js 22.19 or later as `node` on PATH (found: v22.18.1)");
      });
    });
  });
});
