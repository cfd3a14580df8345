import { defineConfig } from "vitest/config";

export default defineConfig({
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
