/**
 * The order `npm test` starts its files in: within each project, the longest first, by the seconds
 * each took in a CI run (`test/support/durations.json`, written by `npm run test:durations` from
 * that run's test-results/vitest.json). Three files run at a time on two CPUs: a long engine file
 * started last ran alone for its last two minutes while the CPUs had room (readme-install.test.ts,
 * 131 s, started 30 minutes into a 33-minute run). Vitest's own order, on a clean clone with no
 * results cache, is by file size, which says little about an engine file's time. A file the table
 * does not know (a new one) goes first: it may be long. The table only orders; a stale one costs
 * minutes, never a result.
 */
import { readFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

// An ES module (.mts), as vitest.config.mts that loads it: Vite loads a .ts config import as CommonJS.
// Read from the repository root, where vitest runs (as vitest.config.mts resolves its paths).
const SECONDS = JSON.parse(readFileSync(resolve("test/support/durations.json"), "utf8")) as Record<string, number>;

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    // Vitest's order first (projects one after another), then each project's files by their time.
    const inVitestOrder = await super.sort(files);
    const byProject = new Map<string, TestSpecification[]>();
    for (const spec of inVitestOrder) byProject.set(spec.project.name, [...(byProject.get(spec.project.name) ?? []), spec]);
    const seconds = (spec: TestSpecification) => SECONDS[relative(spec.project.config.root, spec.moduleId)] ?? Number.POSITIVE_INFINITY;
    return [...byProject.values()].flatMap((specs) => [...specs].sort((a, b) => seconds(b) - seconds(a)));
  }
}
