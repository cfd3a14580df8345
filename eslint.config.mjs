import js from "@eslint/js";
import tseslint from "typescript-eslint";

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
  // contract < client < provider < faces (dynamic, plugin) < program < the package entry — only
  // the client's index is imported from outside it (internal/ stays internal), the provider process
  // never loads the program-side SDK, and the simulator shares nothing of the package but the contract.
  ...boundary("provider/contract", "(^|/)(client|resources|dynamic|plugin|program|index)(/|$)", { noPulumi: true }),
  ...boundary("provider/client", "(^|/)(resources|dynamic|plugin|program)(/|$)", { noPulumi: true }),
  ...boundary("provider/resources", "(^|/)(dynamic|plugin|program)(/|$)|^\\.\\./index$|^\\.\\./client/", { pulumiTypesOnly: true }),
  ...boundary("provider/dynamic", "(^|/)(plugin|program)(/|$)|^\\.\\./index$|^\\.\\./client/"),
  ...boundary("provider/plugin", "(^|/)(dynamic|program)(/|$)|^\\.\\./index$|^\\.\\./client/", { pulumiProtoOnly: true }),
  ...boundary("provider/program", "(^|/)plugin(/|$)|^\\.\\./index$|^\\.\\./client/"),
  ...boundary("simulator", "^\\.\\./provider(/(?!contract/).*)?$", { noPulumi: true }),
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
    // The demo and the bench drive the real CLI with the tests' engine driver, and with nothing else of the tests.
    files: ["scripts/**", "bench/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "(^|/)test(/(?!support/engine$).*)?$",
              message: "scripts and the bench may use the engine driver (test/support/engine) and no other test code",
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
