import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import pkg from "../package.json";
import { clientFor, simulator } from "./helpers";
import { npmAsUser, pack, userProject } from "./user-project";

const root = join(__dirname, "..");
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

describe("the published package", () => {
  const { tarball, files } = pack(work);

  it("holds the provider, the simulator, the docs and the license only: no bench, examples, tests or source maps", () => {
    expect(files).toContain("dist/provider/index.js");
    expect(files).toContain("dist/simulator/cli.js");
    for (const page of ["LICENSE", "docs/recovery.md", "docs/resources.md", "docs/service-api.md", "docs/api-assumptions.md"]) expect(files).toContain(page);
    expect(readFileSync(join(root, "LICENSE"), "utf8")).toContain("Apache License\n                           Version 2.0, January 2004");
    expect(pkg.license).toBe("Apache-2.0");
    expect(pkg).toMatchObject({
      repository: { type: "git", url: "git+https://github.com/pulumi-serviceapi/pulumi-serviceapi.git" },
      homepage: "https://github.com/pulumi-serviceapi/pulumi-serviceapi#readme",
      bugs: { url: "https://github.com/pulumi-serviceapi/pulumi-serviceapi/issues" },
    });
    expect(files.filter((f) => /^dist\/(bench|examples|test)\//.test(f) || f.endsWith(".map"))).toEqual([]);
  });

  for (const [resolution, module] of [["node10", "commonjs"], ["node16", "node16"]] as const) {
    it(`pulumi-serviceapi/simulator resolves under moduleResolution ${resolution}`, () => {
      const consumer = join(work, `consumer-${resolution}`);
      mkdirSync(join(consumer, "node_modules", "pulumi-serviceapi"), { recursive: true });
      execFileSync("tar", ["-xzf", tarball, "-C", join(consumer, "node_modules", "pulumi-serviceapi"), "--strip-components=1"]);
      writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true }));
      writeFileSync(join(consumer, "index.ts"), [
        'import { ServiceApiClient, Product, getProjectOutput, type ProductRecord } from "pulumi-serviceapi";',
        'import { startSimulator, type Simulator } from "pulumi-serviceapi/simulator";',
        "export const made: Promise<Simulator> = startSimulator({ port: 0 });",
        "export const status = (p: ProductRecord): string => p.status;",
        "export const title = (p: Product) => p.title;",
        "export const lookup = getProjectOutput;",
        "export const Client = ServiceApiClient;",
      ].join("\n"));
      writeFileSync(join(consumer, "tsconfig.json"), JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, module, moduleResolution: resolution, target: "ES2022", types: ["node"], skipLibCheck: true },
        files: ["index.ts"],
      }));
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

  it("installs into an empty project with no npm warning and runs no lifecycle script", () => {
    const project = userProject(join(scratch, "project"));
    // Every lifecycle script npm starts goes through this shell, which notes it before running it.
    const scriptLog = join(scratch, "scripts.log");
    const recordingShell = join(scratch, "record-script.sh");
    writeFileSync(recordingShell, `#!/bin/sh\necho "$npm_package_name $npm_lifecycle_event" >> ${JSON.stringify(scriptLog)}\nexec /bin/sh "$@"\n`);
    chmodSync(recordingShell, 0o755);

    const { status, output } = npmAsUser(project, ["install", tarball, "--script-shell", recordingShell, "--foreground-scripts"]);
    expect(status, output).toBe(0);

    expect(output.split("\n").filter((line) => /^npm warn/i.test(line))).toEqual([]);
    expect(existsSync(scriptLog) ? readFileSync(scriptLog, "utf8") : "").toBe("");
    const installed = JSON.parse(readFileSync(join(project, "node_modules", "pulumi-serviceapi", "package.json"), "utf8"));
    expect(installed.version).toBe(pkg.version);
    expect(Object.keys(installed.scripts ?? {}).filter((name) => LIFECYCLE_SCRIPTS.includes(name))).toEqual([]);
  }, 300_000);

  it("sends the version from package.json in User-Agent", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim, { userAgent: undefined });
    await client.listProjects().firstPage();
    expect(sim.requests()[0]!.headers["user-agent"]).toBe(`pulumi-serviceapi/${pkg.version}`);
    expect(JSON.parse(readFileSync(join(root, "package.json"), "utf8")).dependencies["@pulumi/pulumi"]).toMatch(/^\^3\./);
  });
});
