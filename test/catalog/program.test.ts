/**
 * The catalog stacks' program (provider/catalog/program.ts), compiled as the build compiles it and
 * installed as a user installs the package (under node_modules, with its package.json), run by a
 * Node.js process under Pulumi's mocks: the resources it declares (type, name, inputs, the provider
 * stub), the stub equal to what Pulumi's closure serializer makes of the installed provider module,
 * and what it leaves unloaded — the SDK's index (the Automation API), TypeScript, the serializer,
 * the provider's code. The engine test (test/engine/catalog.test.ts) runs it through the real CLI.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PRODUCTS_ENV } from "../../provider/catalog/program-input";
import { projectFiles } from "../../provider/catalog/workspace";
import { providerStub } from "../../provider/program/light-resource";
import { REPO } from "../../scripts/repo";
import { nodePath, transpile } from "./transpiled";

const scratch = mkdtempSync(join(tmpdir(), "catalog-program-"));
const PACKAGE = join(scratch, "node_modules", "pulumi-serviceapi");
const PROJECT_ID = "b60eff92-1f78-5f2b-bf1a-52ff785acb74";

/** Runs the program as the language host would (through the generated index.js), under mocks; then serializes the provider as the SDK does. */
const CHILD = `
const { setMocks } = require("@pulumi/pulumi/runtime/mocks");
const declared = [];
setMocks(
  { newResource: (args) => { declared.push({ type: args.type, name: args.name, inputs: args.inputs }); return { id: args.name + "-id", state: args.inputs }; },
    call: (args) => args.inputs },
  "serviceapi-catalog", "catalog-plans.all", true, "organization",
).then(async () => {
  const program = require(process.argv[2]);
  await program();
  while (declared.length < 2) await new Promise((resolve) => setImmediate(resolve));
  const loaded = Object.keys(require.cache);
  const provider = require("pulumi-serviceapi/dynamic/product");
  const { serializeFunction } = require("@pulumi/pulumi/runtime/closure/serializeClosure");
  const serialized = (await serializeFunction(() => provider)).text;
  process.stdout.write(JSON.stringify({ typeofProgram: typeof program, declared, loaded, serialized }));
});
`;

interface ChildResult {
  typeofProgram: string;
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
    projectFiles({ project: "serviceapi-catalog", config: {} }, join(PACKAGE, "dist", "provider", "catalog", "program.js")),
  ))
    writeFileSync(join(stack, file), text);
  const input = join(stack, "products.json");
  writeFileSync(
    input,
    JSON.stringify({
      stack: "catalog-plans.all",
      items: [
        { key: "pro", kind: "product", entry: { projectId: PROJECT_ID, title: "Pro plan", slug: "pro" } },
        { key: "basic", kind: "product", entry: { projectId: PROJECT_ID, title: "Basic plan", status: "archived", onDelete: "retain" } },
      ],
    }),
  );
  writeFileSync(join(scratch, "child.js"), CHILD);
  const out = execFileSync(process.execPath, [join(scratch, "child.js"), join(stack, "index.js")], {
    cwd: scratch,
    // The package where a user's install puts it, beside @pulumi/pulumi: the serializer names a module by what
    // `require.resolve` finds from the SDK's folder (its package's "exports" then give the short name). The SDK here is
    // the repository's, so the scratch install is on NODE_PATH too; a clean clone has no pulumi-serviceapi of its own.
    env: { ...process.env, NODE_PATH: [join(scratch, "node_modules"), nodePath].join(delimiter), [PRODUCTS_ENV]: input },
    encoding: "utf8",
  });
  result = JSON.parse(out) as ChildResult;
}, 60_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("the catalog stacks' program", () => {
  it("is a function Pulumi calls once it has loaded the module, and declares each product of its input", () => {
    expect(result.typeofProgram).toBe("function");
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

  it("loads neither the SDK's index (the Automation API), TypeScript, the closure serializer nor the provider's code", () => {
    const inPackage = (file: string) => result.loaded.some((path) => path.endsWith(file));
    expect(inPackage(join("dist", "provider", "catalog", "program.js"))).toBe(true);
    expect(inPackage(join("@pulumi", "pulumi", "resource.js"))).toBe(true);
    for (const file of [
      join("@pulumi", "pulumi", "index.js"),
      join("@pulumi", "pulumi", "automation", "index.js"),
      join("@pulumi", "pulumi", "runtime", "closure", "serializeClosure.js"),
      join("typescript", "lib", "typescript.js"),
      join("dist", "provider", "index.js"),
      join("dist", "provider", "dynamic", "product.js"),
      join("dist", "provider", "resources", "product", "lifecycle.js"),
    ])
      expect({ file, loaded: inPackage(file) }).toEqual({ file, loaded: false });
  });
});

describe("the files of a stack's project folder", () => {
  it("are Pulumi.yaml for plain JavaScript, and an index.js that hands Pulumi the package's program", () => {
    expect(
      projectFiles({ project: "serviceapi-catalog", config: {} }, "/repo/node_modules/pulumi-serviceapi/dist/provider/catalog/program.js"),
    ).toEqual({
      "Pulumi.yaml":
        "name: serviceapi-catalog\n" +
        "description: The products of a serviceapi-catalog stack. Generated by\n" +
        "  serviceapi-catalog on every run; edit the catalog instead.\n" +
        "runtime:\n" +
        "  name: nodejs\n" +
        "  options:\n" +
        "    typescript: false\n" +
        "main: index.js\n",
      "index.js": 'module.exports = require("/repo/node_modules/pulumi-serviceapi/dist/provider/catalog/program.js");\n',
    });
  });

  it("carry the --config settings in Pulumi.yaml, and the program of this package by default", () => {
    const files = projectFiles({ project: "plans", config: { "serviceapi:maxRetries": "5" } });
    expect(files["Pulumi.yaml"]).toBe(
      "name: plans\n" +
        "description: The products of a serviceapi-catalog stack. Generated by\n" +
        "  serviceapi-catalog on every run; edit the catalog instead.\n" +
        "runtime:\n" +
        "  name: nodejs\n" +
        "  options:\n" +
        "    typescript: false\n" +
        "main: index.js\n" +
        "config:\n" +
        '  serviceapi:maxRetries: "5"\n',
    );
    expect(files["index.js"]).toBe(`module.exports = require(${JSON.stringify(join(REPO, "provider", "catalog", "program.js"))});\n`);
  });
});
