/**
 * `serviceapi-catalog report` combines the --json reports of a CI matrix's jobs; at 10,000 products
 * a report is hundreds of kilobytes, written to a pipe. The installed bin, as a child process whose
 * stdout is a pipe: the whole text arrives (an exit right after the write once cut it short).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it, onTestFinished } from "vitest";
import type { RunReport } from "../../provider/catalog/report";
import { emptyReport } from "../../provider/catalog/stack-run";
import { WORK } from "../../scripts/engine/driver";
import { BIN } from "./catalog-support";

describe("serviceapi-catalog report", () => {
  it("combines two jobs' reports of 2,000 stacks each into one text, all of it through a pipe", async () => {
    const dir = mkdtempSync(join(WORK, "catalog-report-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const job = (half: number): RunReport => ({
      version: 2,
      command: "preview",
      stacks: 4000,
      requests: 1,
      results: Array.from({ length: 2000 }, (_, i) => {
        const n = half * 2000 + i;
        const report = emptyReport(`catalog-a.${n.toString(2).padStart(12, "0")}`, "preview", { product: 3 }, "f");
        report.changes = [{ key: `product-${n}`, op: "create", fields: [], reasons: [] }];
        report.requests = 2;
        return report;
      }),
    });
    const files = [0, 1].map((half) => {
      const file = join(dir, `report-${half}.json`);
      writeFileSync(file, JSON.stringify(job(half)));
      return file;
    });
    const { stdout } = await promisify(execFile)(process.execPath, [BIN, "report", ...files], { maxBuffer: 64 * 1024 * 1024 });
    const lines = stdout.trimEnd().split("\n");
    expect(lines[0]).toBe("serviceapi-catalog preview: 4000 of 4000 stack(s)");
    expect(lines.filter((l) => l.startsWith("  + product-"))).toHaveLength(4000);
    expect(lines.at(-1)).toBe(
      "Total: 4000 to create, 0 to adopt, 0 to update, 0 to replace, 0 to remove; 8002 request(s) sent (the project listing included); 0 stack(s) failed",
    );
    expect(stdout.length).toBeGreaterThan(256 * 1024);
  });
});
