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
  ...boundary("src/contract", "(^|/)(client|provider|dynamic|plugin|program|index)(/|$)", { noPulumi: true }),
  ...boundary("src/client", "(^|/)(provider|dynamic|plugin|program)(/|$)", { noPulumi: true }),
  ...boundary("src/provider", "(^|/)(dynamic|plugin|program)(/|$)|^\\.\\./index$|^\\.\\./client/", { pulumiTypesOnly: true }),
  ...boundary("src/dynamic", "(^|/)(plugin|program)(/|$)|^\\.\\./index$|^\\.\\./client/"),
  ...boundary("src/plugin", "(^|/)(dynamic|program)(/|$)|^\\.\\./index$|^\\.\\./client/", { pulumiProtoOnly: true }),
  ...boundary("src/program", "(^|/)plugin(/|$)|^\\.\\./index$|^\\.\\./client/"),
  ...boundary("simulator", "^\\.\\./src(/(?!contract/).*)?$", { noPulumi: true }),
  {
    // Product code (the package, the simulator, the demo, the bench, the examples) never imports test code.
    files: ["provider/**", "simulator/**", "scripts/**", "bench/**", "examples/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["**/test/**", "**/test"], message: "product code must not import test code" }] },
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
