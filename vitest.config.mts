import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Every test talks to its own simulator on an ephemeral loopback port, so files can run in parallel.
    fileParallelism: true,
  },
});
