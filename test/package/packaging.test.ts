/**
 * The published package and the simulator's, as `npm run pack` makes them: what each holds, that
 * both resolve for a TypeScript consumer, and that installing the package warns of nothing and runs
 * no script.
 *
 * They are built and packed from a copy of the repository's files in a folder of this file's own:
 * what is checked is what the sources build to now, whether or not `npm run build` ran first, and
 * a build running meanwhile (another test run's, a developer's) cannot change dist/ under the pack.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pkg from "../../package.json";
import { clientFor, simulator } from "../helpers";
import { npmAsUser, pack, userProject } from "./user-project";

const root = join(__dirname, "..", "..");
// Inside the repo so the consumer resolves zod, undici and @pulumi/pulumi from the repo's node_modules.
const work = mkdtempSync(join(root, ".pack-test-"));
// Outside the repo, so nothing resolves from the repo's node_modules or package.json.
const scratch = mkdtempSync(join(tmpdir(), "serviceapi-install-"));
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

/** The scripts npm may run when a package is installed (prepare: for a tarball, folder or git source). */
const LIFECYCLE_SCRIPTS = ["preinstall", "install", "postinstall", "prepare", "preprepare", "postprepare"];

/**
 * A copy of the repository's files (those git tracks or would, as the working tree has them) under
 * `work`, built with `npm run build`: its own dist/, simulator/dist and sdk/nodejs/bin.
 */
function builtCopy(): string {
  const stage = join(work, "repo");
  const listed = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: root, encoding: "utf8" });
  for (const file of listed.split("\0").filter((f) => f !== "" && existsSync(join(root, f)))) {
    mkdirSync(dirname(join(stage, file)), { recursive: true });
    cpSync(join(root, file), join(stage, file));
  }
  symlinkSync(join(root, "node_modules"), join(stage, "node_modules"));
  const build = spawnSync("npm", ["run", "build"], { cwd: stage, encoding: "utf8" });
  if (build.status !== 0) throw new Error(`npm run build failed in a copy of the repository:\n${build.stdout}${build.stderr}`);
  return stage;
}

describe("the published package", () => {
  let tarball: string;
  let files: string[];
  let simulatorPackage: { tarball: string; files: string[] };
  beforeAll(() => {
    const stage = builtCopy();
    ({ tarball, files } = pack(work, "provider", stage));
    simulatorPackage = pack(work, "simulator", stage);
  }, 180_000);

  it("holds the provider, the plugin's launcher, the docs and the license only: no simulator, bench, examples, tests or source maps", () => {
    expect(files).toContain("dist/provider/index.js");
    expect(files).toContain("dist/provider/dynamic/product.js");
    expect(files).toContain("dist/provider/plugin/main.js");
    expect(files).toContain("plugin/pulumi-resource-serviceapi");
    for (const page of ["LICENSE", "docs/recovery.md", "docs/resources.md", "docs/service-api.md", "docs/api-assumptions.md"])
      expect(files).toContain(page);
    expect(readFileSync(join(root, "LICENSE"), "utf8")).toContain("Apache License\n                           Version 2.0, January 2004");
    expect(pkg.license).toBe("Apache-2.0");
    expect(pkg).toMatchObject({
      repository: { type: "git", url: "git+https://github.com/pulumi-serviceapi/pulumi-serviceapi.git" },
      homepage: "https://github.com/pulumi-serviceapi/pulumi-serviceapi#readme",
      bugs: { url: "https://github.com/pulumi-serviceapi/pulumi-serviceapi/issues" },
    });
    expect(files.filter((f) => /^dist\/(simulator|bench|examples|scripts|test)\//.test(f) || f.endsWith(".map"))).toEqual([]);
    // What the provider and the catalog tool (its YAML catalog files, import's CSV ids file) run with, the state-backend reader's
    // PostgreSQL driver (pg, and the libpq URL parsing it builds on), the catalog's live progress line on a terminal
    // (cli-progress), and nothing the simulator needs.
    expect(Object.keys(pkg.dependencies).sort()).toEqual([
      "@grpc/grpc-js",
      "@pulumi/pulumi",
      "ajv-formats",
      "cli-progress",
      "csv-parse",
      "fastest-levenshtein",
      "google-protobuf",
      "pg",
      "pg-connection-string",
      "rrule",
      "undici",
      "yaml",
      "zod",
    ]);
    expect(files).toContain("dist/provider/backend/index.js");
    // The catalog tool's bin (its entry, the command line it runs, the reaper's watcher it starts), and its
    // program, which every catalog stack runs.
    expect(pkg.bin).toEqual({ "serviceapi-catalog": "dist/provider/catalog/bin.js" });
    for (const file of ["bin.js", "cli.js", "reaper.js", "reaper-process.js", "stack-program.js"])
      expect(files).toContain(`dist/provider/catalog/${file}`);
  });

  it("the simulator is a package of its own, with its bin and nothing of the client", () => {
    expect(simulatorPackage.files).toContain("dist/simulator/cli.js");
    expect(simulatorPackage.files).toContain("dist/simulator/index.d.ts");
    expect(simulatorPackage.files.filter((f) => f.startsWith("dist/provider/")).every((f) => f.startsWith("dist/provider/contract/"))).toBe(
      true,
    );
    const manifest = JSON.parse(readFileSync(join(root, "simulator", "package.json"), "utf8"));
    expect(manifest).toMatchObject({ name: "pulumi-serviceapi-simulator", bin: { "serviceapi-simulator": "dist/simulator/cli.js" } });
  });

  for (const [resolution, module] of [
    ["node10", "commonjs"],
    ["node16", "node16"],
  ] as const) {
    it(`the package, its dynamic-provider subpaths (new and kept), its shared pacer and the simulator package resolve under moduleResolution ${resolution}`, () => {
      const consumer = join(work, `consumer-${resolution}`);
      for (const [name, file] of [
        ["pulumi-serviceapi", tarball],
        ["pulumi-serviceapi-simulator", simulatorPackage.tarball],
      ] as const) {
        mkdirSync(join(consumer, "node_modules", name), { recursive: true });
        execFileSync("tar", ["-xzf", file, "-C", join(consumer, "node_modules", name), "--strip-components=1"]);
      }
      writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true }));
      writeFileSync(
        join(consumer, "index.ts"),
        [
          'import { ServiceApiClient, Product, getProjectOutput, type ProductRecord } from "pulumi-serviceapi";',
          'import * as dynamicProduct from "pulumi-serviceapi/dynamic/product";',
          'import * as keptForOldStacks from "pulumi-serviceapi/lifecycle/product";',
          'import { startSharedPacer, type SharedPacer } from "pulumi-serviceapi/shared-pacer";',
          'import { startSimulator, type Simulator } from "pulumi-serviceapi-simulator";',
          "export const pacer: Promise<SharedPacer> = startSharedPacer();",
          "export const made: Promise<Simulator> = startSimulator({ port: 0 });",
          "export const status = (p: ProductRecord): string => p.status;",
          "export const title = (p: Product) => p.title;",
          "export const lookup = getProjectOutput;",
          "export const Client = ServiceApiClient;",
          "export const same: boolean = dynamicProduct.create === keptForOldStacks.create;",
        ].join("\n"),
      );
      writeFileSync(
        join(consumer, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            noEmit: true,
            module,
            moduleResolution: resolution,
            target: "ES2022",
            types: ["node"],
            skipLibCheck: true,
          },
          files: ["index.ts"],
        }),
      );
      const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
      const result = (() => {
        try {
          return execFileSync(process.execPath, [tsc, "-p", consumer], { encoding: "utf8" });
        } catch (err) {
          return String((err as { stdout?: string }).stdout);
        }
      })();
      expect(result).toBe("");
    }, 60_000);
  }

  it("installs into an empty project with no npm warning and runs no lifecycle script; its bin runs, and refuses Node 20 in one line", () => {
    const project = userProject(join(scratch, "project"));
    // Every lifecycle script npm starts goes through this shell, which notes it before running it.
    const scriptLog = join(scratch, "scripts.log");
    const recordingShell = join(scratch, "record-script.sh");
    writeFileSync(
      recordingShell,
      `#!/bin/sh\necho "$npm_package_name $npm_lifecycle_event" >> ${JSON.stringify(scriptLog)}\nexec /bin/sh "$@"\n`,
    );
    chmodSync(recordingShell, 0o755);

    const { status, output } = npmAsUser(project, ["install", tarball, "--script-shell", recordingShell, "--foreground-scripts"]);
    expect(status, output).toBe(0);

    expect(output.split("\n").filter((line) => /^npm warn/i.test(line))).toEqual([]);
    expect(existsSync(scriptLog) ? readFileSync(scriptLog, "utf8") : "").toBe("");
    const installed = JSON.parse(readFileSync(join(project, "node_modules", "pulumi-serviceapi", "package.json"), "utf8"));
    expect(installed.version).toBe(pkg.version);
    expect(Object.keys(installed.scripts ?? {}).filter((name) => LIFECYCLE_SCRIPTS.includes(name))).toEqual([]);

    // `npx serviceapi-catalog`: the link npm made, run by the `node` first on PATH (its `#!/usr/bin/env node`).
    const bin = join(project, "node_modules", ".bin", "serviceapi-catalog");
    const help = spawnSync(bin, ["--help"], { env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin` }, encoding: "utf8" });
    expect([help.status, help.stdout.split("\n")[0], help.stderr]).toEqual([0, "usage: serviceapi-catalog <command> [options]", ""]);
    // The machine's own node is Node 20 (here and on CI): the built bin parses and runs on it, to say so.
    const node20 = execFileSync("/usr/bin/node", ["--version"], { encoding: "utf8" }).trim();
    expect(node20).toMatch(/^v20\./);
    const old = spawnSync(bin, ["--help"], { env: { PATH: "/usr/bin:/bin" }, encoding: "utf8" });
    expect([old.status, old.stdout, old.stderr]).toEqual([
      2,
      "",
      `serviceapi-catalog: needs Node.js 22.19 or later; this is Node.js ${node20} (/usr/bin/node). Put a newer node first on PATH.\n`,
    ]);
  }, 300_000);

  it("sends the version from package.json in User-Agent", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim, { userAgent: undefined });
    await client.listProjects().firstPage();
    expect(sim.requests()[0]!.headers["user-agent"]).toBe(`pulumi-serviceapi/${pkg.version}`);
    expect(JSON.parse(readFileSync(join(root, "package.json"), "utf8")).dependencies["@pulumi/pulumi"]).toMatch(/^\^3\./);
  });
});
