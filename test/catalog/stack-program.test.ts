/**
 * The catalog stacks' program (provider/catalog/stack-program.ts), compiled as the build compiles it and
 * installed as a user installs the package (under node_modules, with its package.json), run by a
 * Node.js process under Pulumi's mocks: the resources it declares (type, name, inputs, the provider
 * stub), the stub equal to what Pulumi's closure serializer makes of the installed provider module
 * (which the program itself never loads), and the line a stack's project folder gives someone who
 * runs `pulumi` there by hand. The engine tests (test/engine/catalog*.test.ts) run it through the
 * real CLI, inside the tool's process.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectFiles } from "../../provider/catalog/workspace";
import { providerStub } from "../../provider/program/light-resource";
import { REPO } from "../../scripts/repo";
import { nodePath, transpile } from "./transpiled";

const scratch = mkdtempSync(join(tmpdir(), "catalog-program-"));
const PACKAGE = join(scratch, "node_modules", "pulumi-serviceapi");
const PROJECT_ID = "b60eff92-1f78-5f2b-bf1a-52ff785acb74";

/**
 * Declares the items as the tool does (\`declareItems\`, under mocks); runs the project folder's index.js as a language
 * host would; then serializes the provider as the SDK does.
 */
const CHILD = `
const { setMocks } = require("@pulumi/pulumi/runtime/mocks");
const declared = [];
setMocks(
  { newResource: (args) => { declared.push({ type: args.type, name: args.name, inputs: args.inputs }); return { id: args.name + "-id", state: args.inputs }; },
    call: (args) => args.inputs },
  "serviceapi-catalog", "catalog-plans.all", true, "organization",
).then(async () => {
  const { declareItems } = require(process.argv[2]);
  declareItems(JSON.parse(process.argv[4]));
  while (declared.length < 2) await new Promise((resolve) => setImmediate(resolve));
  const loaded = Object.keys(require.cache);
  const byHand = require(process.argv[3]);
  let refusal;
  try { byHand(); } catch (error) { refusal = { name: error.constructor.name, message: error.message }; }
  const provider = require("pulumi-serviceapi/dynamic/product");
  const { serializeFunction } = require("@pulumi/pulumi/runtime/closure/serializeClosure");
  const serialized = (await serializeFunction(() => provider)).text;
  process.stdout.write(JSON.stringify({ typeofByHand: typeof byHand, refusal, declared, loaded, serialized }));
});
`;

interface ChildResult {
  typeofByHand: string;
  refusal: { name: string; message: string };
  declared: { type: string; name: string; inputs: Record<string, unknown> }[];
  loaded: string[];
  serialized: string;
}

let result: ChildResult;

beforeAll(() => {
  transpile(["provider/**/*.ts"], join(PACKAGE, "dist"));
  cpSync(join(REPO, "package.json"), join(PACKAGE, "package.json"));
  const stack = join(scratch, "stack");
  mkdirSync(stack);
  for (const [file, text] of Object.entries(
    projectFiles({ project: "serviceapi-catalog", config: {} }, join(PACKAGE, "dist", "provider", "catalog", "stack-program.js")),
  ))
    writeFileSync(join(stack, file), text);
  const items = [
    { key: "pro", kind: "product", entry: { projectId: PROJECT_ID, title: "Pro plan", slug: "pro" } },
    { key: "basic", kind: "product", entry: { projectId: PROJECT_ID, title: "Basic plan", status: "archived", onDelete: "retain" } },
  ];
  writeFileSync(join(scratch, "child.js"), CHILD);
  const program = join(PACKAGE, "dist", "provider", "catalog", "stack-program.js");
  const out = execFileSync(process.execPath, [join(scratch, "child.js"), program, join(stack, "index.js"), JSON.stringify(items)], {
    cwd: scratch,
    // The package where a user's install puts it, beside @pulumi/pulumi: the serializer names a module by what
    // `require.resolve` finds from the SDK's folder (its package's "exports" then give the short name). The SDK here is
    // the repository's, so the scratch install is on NODE_PATH too; a clean clone has no pulumi-serviceapi of its own.
    env: { ...process.env, NODE_PATH: [join(scratch, "node_modules"), nodePath].join(delimiter) },
    encoding: "utf8",
  });
  result = JSON.parse(out) as ChildResult;
}, 60_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("the catalog stacks' program", () => {
  it("declares each record it is given, by its catalog key", () => {
    expect(result.declared.map(({ type, name }) => ({ type, name }))).toEqual([
      { type: "pulumi-nodejs:dynamic/serviceapi:Product", name: "pro" },
      { type: "pulumi-nodejs:dynamic/serviceapi:Product", name: "basic" },
    ]);
    expect(result.declared[1]!.inputs).toEqual({
      __provider: providerStub("pulumi-serviceapi/dynamic/product"),
      __logicalName: "basic",
      __stack: "organization/serviceapi-catalog/catalog-plans.all",
      __secretInputs: [],
      projectId: PROJECT_ID,
      title: "Basic plan",
      status: "archived",
      onDelete: "retain",
    });
  });

  it("records the provider stub Pulumi's closure serializer makes of the installed provider module", () => {
    expect(result.serialized).toBe(providerStub("pulumi-serviceapi/dynamic/product"));
    expect(providerStub("pulumi-serviceapi/dynamic/product")).toContain('const provider = require("pulumi-serviceapi/dynamic/product");\n');
  });

  it("declares them without Pulumi's closure serializer (nor TypeScript, which it loads) or the provider's code", () => {
    const inPackage = (file: string) => result.loaded.some((path) => path.endsWith(file));
    expect(inPackage(join("dist", "provider", "catalog", "stack-program.js"))).toBe(true);
    expect(inPackage(join("@pulumi", "pulumi", "resource.js"))).toBe(true);
    for (const file of [
      join("@pulumi", "pulumi", "runtime", "closure", "serializeClosure.js"),
      join("typescript", "lib", "typescript.js"),
      join("dist", "provider", "dynamic", "product.js"),
      join("dist", "provider", "resources", "product", "lifecycle.js"),
    ])
      expect({ file, loaded: inPackage(file) }).toEqual({ file, loaded: false });
  });

  it("run by hand with `pulumi` in a stack's folder, it refuses in one line naming the command to run", () => {
    expect(result.typeofByHand).toBe("function");
    expect(result.refusal).toEqual({
      name: "RunError",
      message: "this stack's program is run by serviceapi-catalog: run `serviceapi-catalog preview`, not `pulumi` here",
    });
  });
});

/** The generated Pulumi.yaml of project `name`, then `more` lines (its config). */
const pulumiYaml = (name: string, more = "") =>
  `name: ${name}\n` +
  "description: The products of a serviceapi-catalog stack. Generated by\n" +
  "  serviceapi-catalog on every run; edit the catalog instead.\n" +
  "runtime:\n" +
  "  name: nodejs\n" +
  "  options:\n" +
  "    typescript: false\n" +
  "main: index.js\n" +
  more;

describe("the files of a stack's project folder", () => {
  it("are Pulumi.yaml for plain JavaScript, and an index.js for `pulumi` run there by hand (it says to run the tool)", () => {
    expect(
      projectFiles(
        { project: "serviceapi-catalog", config: {} },
        "/repo/node_modules/pulumi-serviceapi/dist/provider/catalog/stack-program.js",
      ),
    ).toEqual({
      "Pulumi.yaml": pulumiYaml("serviceapi-catalog"),
      "index.js":
        'module.exports = require("/repo/node_modules/pulumi-serviceapi/dist/provider/catalog/stack-program.js").outsideTheTool;\n',
    });
  });

  it("carry the --config settings in Pulumi.yaml, and the program of this package by default", () => {
    const files = projectFiles({ project: "plans", config: { "serviceapi:maxRetries": "5" } });
    expect(files["Pulumi.yaml"]).toBe(pulumiYaml("plans", "config:\n" + '  serviceapi:maxRetries: "5"\n'));
    expect(files["index.js"]).toBe(
      `module.exports = require(${JSON.stringify(join(REPO, "provider", "catalog", "stack-program.js"))}).outsideTheTool;\n`,
    );
  });
});
