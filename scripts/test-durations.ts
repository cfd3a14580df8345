/**
 * `npm run test:durations [report]`: writes test/support/durations.json — each file of a full run's
 * JSON report (default test-results/vitest.json, e.g. a CI run's) with the whole seconds it took —
 * for the order `npm test` starts files in (test/support/longest-first.mts).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "./repo";

interface Report {
  testResults: { name: string; startTime: number; endTime: number }[];
}

const report = JSON.parse(readFileSync(process.argv[2] ?? join(REPO, "test-results", "vitest.json"), "utf8")) as Report;
const seconds = Object.fromEntries(
  report.testResults
    // By the path under the repository's test/ folder: a CI run's report names files in its own clone.
    .map((file) => [file.name.slice(file.name.lastIndexOf("/test/") + 1), Math.round((file.endTime - file.startTime) / 1000)] as const)
    .sort(([a], [b]) => (a < b ? -1 : 1)),
);
writeFileSync(join(REPO, "test", "support", "durations.json"), `${JSON.stringify(seconds, null, 2)}\n`);
console.log(`test/support/durations.json: ${Object.keys(seconds).length} files`);
