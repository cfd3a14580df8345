import { resolve } from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  // Tests run the simulator's source, as they run the package's (vitest runs from the repository root).
  resolve: { alias: { "pulumi-serviceapi-simulator": resolve("simulator/index.ts") } },
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Every test starts its own simulator on an ephemeral loopback port, so files run in parallel.
    fileParallelism: true,
    // The JSON report lets .ci/run print a plain "N passed, N failed" line and refuse skipped tests.
    reporters: ["default", ["json", { outputFile: "test-results/vitest.json" }]],
  },
});
