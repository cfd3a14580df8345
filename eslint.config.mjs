import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", ".engine-work/", ".pack-test-*/"] },
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
    languageOptions: { sourceType: "commonjs", globals: { require: "readonly", console: "readonly", module: "writable", process: "readonly" } },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  {
    // Product code (the package, the simulator, the demo, the bench, the examples) never imports test code.
    files: ["provider/**", "simulator/**", "scripts/**", "bench/**", "examples/**"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ group: ["**/test/**", "**/test"], message: "product code must not import test code" }] }],
    },
  },
);
