import js from "@eslint/js";
import tseslint from "typescript-eslint";

/** A file of the state-backend reader other than its index (`../backend/postgres`), from a folder one or more levels below provider/. */
const BACKEND_DEEP = "^(\\.\\./)+backend/(?!index$)";

/** Why nothing under provider/ imports provider/catalog/ (the rules below, proven by test/package/boundaries.test.ts). */
const CATALOG =
  "nothing imports the catalog tool (provider/catalog/): it sits on top of the package and loads the Automation API; see docs/architecture.md";

export default tseslint.config(
  { ignores: ["dist/", "**/dist/", "dist-plugin/", "node_modules/", ".engine-work/", ".pack-test-*/", "sdk/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-console": ["error", { allow: ["error", "warn"] }],
    },
  },
  {
    files: ["simulator/cli.ts", "examples/**", "bench/**", "test/**", "scripts/**"],
    rules: { "no-console": "off" },
  },
  {
    // Plain JavaScript Pulumi programs, as users write them (CommonJS, Node's globals).
    files: ["**/*.js"],
    languageOptions: {
      sourceType: "commonjs",
      globals: { require: "readonly", console: "readonly", module: "writable", process: "readonly" },
    },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  // The architecture, enforced (docs/architecture.md): layers import downward only —
  // contract < client < resources < faces (dynamic, plugin) < program < the package entry < the catalog tool — only
  // the client's index is imported from outside it (internal/ stays internal), the provider process
  // never loads the program-side SDK, and the simulator shares nothing of the package but the contract.
  // The state-backend reader (provider/backend) is a layer of its own below the resources: it imports no other
  // layer, contract and client do not import it, and the layers above reach it through its index only (BACKEND_DEEP).
  // Each rule is proven to fire, and its allowed neighbour to pass, by test/package/boundaries.test.ts.
  ...boundary("provider/contract", "(^|/)(client|resources|dynamic|plugin|program|index|backend)(/|$)", { noPulumi: true }),
  // `../index` from a client file is the package entry; from client/internal/ it is the client's own index,
  // which its machinery must not import either (the index is built on it).
  ...boundary("provider/client", "(^|/)(resources|dynamic|plugin|program|backend)(/|$)|^(\\.\\./){1,2}index$", { noPulumi: true }),
  // The reader imports nothing of the package but its own files (`./…`); `../index` is the package entry
  // (the catalog tool is left to boundary()'s own CATALOG pattern, so an import draws one report).
  ...boundary("provider/backend", "^\\.\\./(?!catalog(/|$))", { noPulumi: true }),
  // `(../)+`: a lifecycle split into a folder (resources/product/) reaches the client and the entry from one level deeper.
  ...boundary("provider/resources", `(^|/)(dynamic|plugin|program)(/|$)|^(\\.\\./)+index$|^(\\.\\./)+client/|${BACKEND_DEEP}`, {
    pulumiTypesOnly: true,
  }),
  ...boundary("provider/dynamic", `(^|/)(plugin|program)(/|$)|^(\\.\\./)+index$|^(\\.\\./)+client/|${BACKEND_DEEP}`),
  ...boundary("provider/plugin", `(^|/)(dynamic|program)(/|$)|^(\\.\\./)+index$|^(\\.\\./)+client/|${BACKEND_DEEP}`, {
    pulumiProtoOnly: true,
  }),
  ...boundary("provider/program", `(^|/)plugin(/|$)|^(\\.\\./)+index$|^(\\.\\./)+client/|${BACKEND_DEEP}`),
  // The catalog tool (`serviceapi-catalog`) is the top of the layering: a command over the package entry, the
  // client (its index, and the shared pacer's face, `shared-pacer`), the resources and the state-backend reader;
  // never a face directly, nor the client's or the reader's internals — but the program layer's LightResource, which its stacks'
  // program declares (the entry would load the provider, the client and the Automation API into each of those processes).
  // Nothing imports it (below, and boundary()'s CATALOG pattern): the package must not load the Automation API into users' programs.
  ...boundary(
    "provider/catalog",
    `(^|/)(dynamic|plugin)(/|$)|(^|/)program(/(?!light-resource$)|$)|^(\\.\\./)+client/(?!shared-pacer$)|${BACKEND_DEEP}`,
  ),
  {
    // A file beside the package entry is no layer of its own: a face may import it, so it imports
    // nothing above the faces — else the face imports upward through it, which the rules above miss.
    files: ["provider/*.ts"],
    ignores: ["provider/index.ts"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^\\./(dynamic|plugin|program|index)(/|$)|^\\./client/|^\\./backend/(?!index$)",
              message:
                "only the package entry (provider/index.ts) sits above the faces: a file beside it imports contract, client and resources only",
            },
            { regex: "^\\./catalog(/|$)", message: CATALOG },
          ],
        },
      ],
    },
  },
  {
    // The package entry may import every layer but the catalog tool, which imports it.
    files: ["provider/index.ts"],
    rules: { "@typescript-eslint/no-restricted-imports": ["error", { patterns: [{ regex: "^\\./catalog(/|$)", message: CATALOG }] }] },
  },
  // The simulator is a package of its own: it reaches the contract by path, and nothing else of this package.
  ...boundary("simulator", "^(\\.\\./)+provider(/(?!contract/).*)?$|^pulumi-serviceapi(/|$)", { noPulumi: true }),
  {
    // Product code (the package, the simulator, the examples, the plugin launcher's folder) never imports test code.
    files: ["provider/**", "simulator/**", "examples/**", "plugin/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["**/test/**", "**/test"], message: "product code must not import test code" }] },
      ],
    },
  },
  {
    // Tests run the simulator's source, as they run the package's: `../simulator` (the folder) resolves
    // through its package.json to simulator/dist, a build that is stale as soon as the contract changes.
    files: ["test/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^(\\.\\./)+simulator(/dist(/.*)?)?$",
              message: "tests import the simulator as pulumi-serviceapi-simulator (its source): the folder resolves to its build",
            },
          ],
        },
      ],
    },
  },
  {
    // The demo, the bench and the engine driver they share with the tests (scripts/engine/) import no test code:
    // a test refactor cannot break the README's main command.
    files: ["scripts/**", "bench/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "(^|/)test(/.*)?$",
              message: "scripts and the bench import no test code (the engine driver lives in scripts/engine/)",
            },
          ],
        },
      ],
    },
  },
);

/**
 * Files under `folder` may not import a specifier matching `forbidden` — nor, with the options, any
 * of `@pulumi/*`, or anything of it but types, or anything of it but the wire protocol's generated code.
 */
function boundary(folder, forbidden, { noPulumi = false, pulumiTypesOnly = false, pulumiProtoOnly = false } = {}) {
  const patterns = [{ regex: forbidden, message: "imports go downward only, and to a layer's public face: see docs/architecture.md" }];
  // Every layer under provider/ but the catalog tool itself.
  if (folder.startsWith("provider/") && folder !== "provider/catalog")
    patterns.push({ regex: "^(\\.\\./)+catalog(/|$)", message: CATALOG });
  if (noPulumi) patterns.push({ regex: "^@pulumi/", message: "this layer knows nothing of Pulumi" });
  if (pulumiProtoOnly) {
    patterns.push({
      regex: "^@pulumi/pulumi(/(?!proto/).*)?$",
      message: "the plugin speaks the wire protocol (@pulumi/pulumi/proto/*); the program-side SDK stays out of its bundle",
    });
  }
  if (pulumiTypesOnly) {
    patterns.push({
      regex: "^@pulumi/",
      allowTypeImports: true,
      message: "the provider process loads no Pulumi SDK code from here: types only (each face brings its own)",
    });
  }
  return [{ files: [`${folder}/**/*.ts`], rules: { "@typescript-eslint/no-restricted-imports": ["error", { patterns }] } }];
}
