import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import pkg from "../package.json";
import { clientFor, simulator } from "./helpers";

const root = join(__dirname, "..");
// Inside the repo so the consumer resolves zod, undici and @pulumi/pulumi from the repo's node_modules.
const work = mkdtempSync(join(root, ".pack-test-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function pack(): { tarball: string; files: string[] } {
  const out = execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", work], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  const [info] = JSON.parse(out) as { filename: string; files: { path: string }[] }[];
  return { tarball: join(work, info!.filename), files: info!.files.map((f) => f.path) };
}

describe("the published package", () => {
  const { tarball, files } = pack();

  it("holds the provider and the simulator only: no bench, examples, tests or source maps", () => {
    expect(files).toContain("dist/provider/index.js");
    expect(files).toContain("dist/simulator/cli.js");
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

  it("sends the version from package.json in User-Agent", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim, { userAgent: undefined });
    await client.listProjects().firstPage();
    expect(sim.requests()[0]!.headers["user-agent"]).toBe(`pulumi-serviceapi/${pkg.version}`);
    expect(JSON.parse(readFileSync(join(root, "package.json"), "utf8")).dependencies["@pulumi/pulumi"]).toMatch(/^\^3\./);
  });
});
