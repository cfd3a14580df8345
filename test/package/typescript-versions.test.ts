/**
 * Users' programs meet whichever TypeScript their project has: 5.x; 6.x, which
 * `npm install typescript` picks next to @pulumi/pulumi today (Pulumi's peer range stops before 7);
 * or 7.x, the latest on the registry, which users type-check with (Pulumi cannot run it: it has no
 * JavaScript compiler API for ts-node). Every example, with its own tsconfig.json, and the README's
 * program, with the README's tsconfig.json, compile under all three, against the packed package
 * that `npm test` installs into node_modules.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = join(__dirname, "..", "..");
// Inside the repo, so a program resolves pulumi-serviceapi, @pulumi/pulumi and @types/node from the repo's node_modules.
const work = mkdtempSync(join(root, ".ts-versions-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Each compiler is a devDependency: `typescript` itself, and npm aliases for the other major versions. */
const COMPILERS = [
  { dependency: "typescript", major: 5 },
  { dependency: "typescript-6", major: 6 },
  { dependency: "typescript-7", major: 7 },
] as const;

const examples = readdirSync(join(root, "examples"), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(root, "examples", entry.name, "tsconfig.json")))
  .map((entry) => entry.name);

function readmeSection(): string {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const start = readme.indexOf("## Use it in a Pulumi program");
  return readme.slice(start, readme.indexOf("\n## ", start + 1));
}

function codeBlock(section: string, language: string): string {
  const block = new RegExp("```" + language + "\\n([\\s\\S]*?)```").exec(section);
  if (!block) throw new Error(`the README's "Use it in a Pulumi program" has no ${language} block`);
  return block[1]!;
}

/** tsc's diagnostics for a project folder: "" when it compiles cleanly. */
function compile(dependency: string, project: string): string {
  const tsc = join(root, "node_modules", dependency, "bin", "tsc");
  try {
    return execFileSync(process.execPath, [tsc, "-p", project, "--noEmit"], { encoding: "utf8" });
  } catch (err) {
    return String((err as { stdout?: string }).stdout);
  }
}

it("there are examples to compile", () => {
  expect(examples).toEqual(expect.arrayContaining(["catalog-from-yaml", "quickstart"]));
});

it("the README's tsconfig.json is the quick start's", () => {
  const readmeConfig = JSON.parse(codeBlock(readmeSection(), "json"));
  expect(readmeConfig).toEqual(JSON.parse(readFileSync(join(root, "examples", "quickstart", "tsconfig.json"), "utf8")));
});

describe.each(COMPILERS)("TypeScript $major ($dependency)", ({ dependency, major }) => {
  it(`is TypeScript ${major}`, () => {
    const version = JSON.parse(readFileSync(join(root, "node_modules", dependency, "package.json"), "utf8")).version as string;
    expect(version.split(".")[0]).toBe(String(major));
  });

  it.each(examples)(
    "compiles examples/%s with its tsconfig.json",
    (example) => {
      expect(compile(dependency, join(root, "examples", example))).toBe("");
    },
    60_000,
  );

  it("compiles the README's program with the README's tsconfig.json", () => {
    const section = readmeSection();
    const program = codeBlock(section, "ts");
    expect(program).toContain("new Product(");
    const consumer = mkdtempSync(join(work, `readme-${major}-`));
    writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true }));
    writeFileSync(join(consumer, "index.ts"), program);
    writeFileSync(join(consumer, "tsconfig.json"), codeBlock(section, "json"));
    expect(compile(dependency, consumer)).toBe("");
  }, 60_000);
});

it("a type error in the program is reported by every compiler (the check is not vacuous)", () => {
  const consumer = mkdtempSync(join(work, "broken-"));
  copyFileSync(join(root, "examples", "quickstart", "tsconfig.json"), join(consumer, "tsconfig.json"));
  writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true }));
  writeFileSync(
    join(consumer, "index.ts"),
    'import { Product } from "pulumi-serviceapi";\nnew Product("p", { projectId: "x", title: 42 });\n',
  );
  for (const { dependency } of COMPILERS) expect(compile(dependency, consumer)).toMatch(/index\.ts\(2,\d+\): error TS2322/);
}, 60_000);
