import { resolve } from "node:path";
import { defineConfig } from "vitest/config";
import { LongestFirst } from "./test/support/longest-first.mjs";

/**
 * The fast tier (`npm run test:unit`, projects `unit` and `unit-sdk`): in-process tests against the
 * simulator, needing no Pulumi CLI, Go, Python, PostgreSQL, root or network. `npm test` runs it with
 * the rest (project `full`: engine, SDK, package).
 */
const UNIT = ["contract", "client", "resources", "dynamic", "program", "plugin", "simulator", "catalog", "backend"].map(
  (dir) => `test/${dir}/**/*.test.ts`,
);

/**
 * Fast-tier files that set the Pulumi SDK's process-wide state (runtime mocks, a configured dynamic
 * provider, config read from the environment): each runs in a fresh module graph, as every file did.
 */
const UNIT_SDK = ["test/program/**/*.test.ts", "test/client/sparse-records.test.ts"];

export default defineConfig({
  // Tests run the simulator's source, as they run the package's (vitest runs from the repository root).
  resolve: { alias: { "pulumi-serviceapi-simulator": resolve("simulator/index.ts") } },
  test: {
    // Around the whole run, whichever projects it selects: the toolchain check and the leak check.
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 20_000,
    // A test's vi.stubEnv ends with the test, even one that forgets: files share workers (isolate: false).
    unstubEnvs: true,
    hookTimeout: 20_000,
    // Every test starts its own simulator on an ephemeral loopback port, so files run in parallel.
    fileParallelism: true,
    // The longest files first, by a CI run's times: no long file left to run alone at the end.
    sequence: { sequencer: LongestFirst },
    // The JSON report lets .ci/run print a plain "N passed, N failed" line and refuse skipped tests.
    // Given as `outputFile`, so a second run can write elsewhere: `npm run test:unit -- --outputFile.json=<file>`.
    reporters: ["default", "json"],
    outputFile: { json: "test-results/vitest.json" },
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: UNIT,
          exclude: UNIT_SDK,
          // Each worker runs many files and loads fastify, undici, zod and grpc once, not once per
          // file (that loading was most of this tier's time). A module such as test/helpers.ts is
          // then evaluated once per worker, so whatever a test starts — simulator, client, context,
          // server — is closed by that test (`onTestFinished`), never by a module-level hook.
          isolate: false,
        },
      },
      { extends: true, test: { name: "unit-sdk", include: UNIT_SDK } },
      {
        extends: true,
        test: { name: "full", include: ["test/**/*.test.ts"], exclude: UNIT },
      },
    ],
  },
});
