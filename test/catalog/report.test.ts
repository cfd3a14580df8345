/**
 * The combined report a terminal or a pull request comment shows (`provider/catalog/report.ts`):
 * per stack, each changed field with its value before and after as `pulumi preview --diff` shows it
 * (a secret as `[secret]`, a long value shortened), archiving called out, what stops a stack with
 * the way out, totals. Exact text: this is what users and reviewers read.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import type { FieldChange, Operation, PlannedChange } from "../../provider/catalog/changes";
import { formatReport, REPORT_VERSION, runTotals, shown, totals, type RunReport } from "../../provider/catalog/report";
import { emptyReport, type RunCommand, type StackReport } from "../../provider/catalog/stack-run";
import { nextAfterDrift, runReport, type ToolOptions } from "../../provider/catalog/tool";

function stack(name: string, command: RunCommand, report: Partial<StackReport>): StackReport {
  return { ...emptyReport(name, command, {}, "f".repeat(64)), ...report };
}

/** One product's change. */
function change(op: Operation, key: string, fields: FieldChange[] = [], more: Partial<PlannedChange> = {}): PlannedChange {
  return { key, op, fields, reasons: [], ...more };
}

describe("formatReport", () => {
  it("a preview: every changed field old → new, a status change to archived called out, creates with their titles", () => {
    const run: RunReport = {
      command: "preview",
      stacks: 4,
      scope: "changed since origin/main: 2 added, 3 changed, 0 removed",
      results: [
        stack("catalog-plans.all", "preview", {
          size: { product: 12 },
          changes: [
            change("create", "new-b", [{ field: "title", from: undefined, to: "B" }]),
            change("create", "new-a", [
              { field: "title", from: undefined, to: "A" },
              { field: "status", from: undefined, to: "archived" },
            ]),
            change("update", "services-0500", [
              { field: "title", from: "Services", to: "Services (retired)" },
              { field: "description", from: "All of them", to: null },
              { field: "status", from: "active", to: "archived" },
            ]),
            change("update", "secretive", [{ field: "title", from: "[secret]", to: "[secret]" }]),
          ],
          requests: 3,
          seconds: 1.25,
        }),
        stack("catalog-add-ons.all", "preview", { size: { product: 20 }, requests: 1, seconds: 0.96 }),
      ],
      requests: 1,
    };
    expect(formatReport(run)).toBe(
      [
        "serviceapi-catalog preview: 2 of 4 stack(s) (changed since origin/main: 2 added, 3 changed, 0 removed)",
        "catalog-add-ons.all (20 products): no changes; 1 request(s), 1.0 s",
        "catalog-plans.all (12 products): 2 to create, 2 to update (1 to archive); 3 request(s), 1.3 s",
        "  + new-a",
        '      title: "A"',
        '      status: "archived"   ← created archived',
        "  + new-b",
        '      title: "B"',
        "  ~ secretive",
        "      title: [secret] → [secret]",
        "  ~ services-0500",
        '      title: "Services" → "Services (retired)"',
        '      description: "All of them" → null   (cleared)',
        '      status: "active" → "archived"   ← archives it',
        "Total: 2 to create, 0 to adopt, 2 to update (1 to archive), 0 to replace, 0 to remove; 5 request(s) sent (the project listing included); 0 stack(s) failed",
      ].join("\n"),
    );
    // --json's totals are the Total line's numbers, the tool's own listing included.
    const t = runTotals(run);
    expect([t.ops.create, t.ops.update, t.archives, t.requests, t.failed]).toEqual([2, 2, 1, 5, 0]);
  });

  it("an up: in the past tense — moves, adoptions, a state-only change, a replacement, a rename, and each removal with what it set", () => {
    const run: RunReport = {
      command: "up",
      stacks: 3,
      results: [
        stack("catalog-a.1", "up", {
          size: { product: 5 },
          changes: [
            change("create", "a", [{ field: "title", from: undefined, to: "A" }]),
            change("adopt", "found", [], { adoptId: "0b3f2a8e-5b7c-4f1e-9a6d-2c4e8f0a1b3d" }),
            change("state", "b", [{ field: "onDelete", from: "archive", to: "retain", stackOnly: true }]),
            change("replace", "c", [{ field: "projectId", from: "p-1", to: "p-2" }], { then: "archive" }),
            change("archive", "d", [{ field: "status", from: "active", to: "archived" }]),
            change("give-back", "e", [{ field: "title", from: "Ours", to: "Theirs" }], {
              reasons: [{ code: "keeps-status", status: "archived", found: "active" }],
            }),
            change("retain", "f"),
            change("rename", "g2", [], { renamedFrom: "g" }),
            change("move", "h", [], { fromStack: "catalog-a.all", toStack: "catalog-a.1" }),
          ],
          requests: 9,
          seconds: 2.5,
        }),
      ],
    };
    expect(formatReport(run)).toBe(
      [
        "serviceapi-catalog up: 1 of 3 stack(s)",
        "catalog-a.1 (5 products): 1 created, 1 adopted, 1 recorded in the stack only, 1 replaced, 1 archived, 1 given back, 1 released (kept as they are), 1 renamed, 1 moved; 9 request(s), 2.5 s",
        "  + a",
        '      title: "A"',
        "  = found (adopted 0b3f2a8e-5b7c-4f1e-9a6d-2c4e8f0a1b3d)",
        "  ~ b (the stack's own record changed; nothing was sent)",
        '      onDelete: "archive" → "retain"   (kept by the stack: nothing sent)',
        "  +- c (a new record replaced it; the old one archived: this stack created it)",
        '      projectId: "p-1" → "p-2"',
        "  - d (archived: this stack created it)",
        '      status: "active" → "archived"   ← archives it',
        "  - e (given back as it was found: taken over, not archived)",
        '      title: "Ours" → "Theirs"',
        '      status: stays "archived" (it was "active" when taken over): removing an entry never makes a product more live',
        "  - f (kept on the service as it is (onDelete: retain))",
        "  > g2 (renamed from g: the same record, nothing was sent)",
        "  > h moved from catalog-a.all to catalog-a.1 (their file's stack): pulumi state move, no request to the service",
        "Total: 1 created, 1 adopted, 0 updated, 1 replaced, 3 removed (1 archived, 1 given back, 1 released (kept as they are)), 1 recorded in the stack only, 1 renamed, 1 moved; 9 request(s) sent; 0 stack(s) failed",
      ].join("\n"),
    );
  });

  it("after a drift of a status, the fix says it brings a product back from archived, or archives one, before anyone runs it", () => {
    const drifted = stack("catalog-a.all", "drift", {
      changes: [
        change("drift", "retired", [{ field: "status", from: "archived", to: "active" }]),
        change("drift", "pulled", [{ field: "status", from: "active", to: "archived" }]),
        change("drift", "pulled-too", [{ field: "status", from: "draft", to: "archived" }]),
      ],
    });
    expect(nextAfterDrift([drifted], { write: false } as ToolOptions)?.[0]).toBe(
      "To set them back as the catalog declares: serviceapi-catalog up --refresh --stack catalog-a.all " +
        "(its status too: brings 2 archived on the service back from archived, archives 1 brought back on the service; preview --refresh shows it first)",
    );
  });

  it("a drift: recorded → live per field (a status changed on the service said so), and the commands that fix it", () => {
    const run: RunReport = {
      command: "drift",
      stacks: 2,
      results: [
        stack("catalog-b.all", "drift", { size: { product: 4 }, requests: 4, seconds: 0.4 }),
        stack("catalog-a.all", "drift", {
          size: { product: 3 },
          changes: [
            change("drift", "widget", [{ field: "title", from: "Widget", to: "Changed by hand" }]),
            change("drift", "retired", [{ field: "status", from: "archived", to: "active" }]),
          ],
          requests: 3,
          seconds: 0.5,
        }),
      ],
      next: ["To set them back as the catalog declares: serviceapi-catalog up --refresh --stack catalog-a.all"],
    };
    expect(formatReport(run)).toBe(
      [
        "serviceapi-catalog drift: 2 of 2 stack(s)",
        "catalog-a.all (3 products): 2 drifted; 3 request(s), 0.5 s",
        "  ~ retired",
        '      status: "archived" → "active"   ← brought back from archived on the service',
        "  ~ widget",
        '      title: "Widget" → "Changed by hand"',
        "catalog-b.all (4 products): no drift; 4 request(s), 0.4 s",
        "Total: 2 drifted; 7 request(s) sent; 0 stack(s) failed",
        "To set them back as the catalog declares: serviceapi-catalog up --refresh --stack catalog-a.all",
      ].join("\n"),
    );
  });

  it("a blocked stack: not run, each reason with its way out; a failed one names its log; both counted", () => {
    const run: RunReport = {
      command: "up",
      stacks: 3,
      results: [
        stack("catalog-a.all", "up", {
          status: "blocked",
          size: { product: 10 },
          blocked: [
            { code: "locked", stack: "catalog-a.all", by: { username: "root", hostname: "vm", pid: 2167, since: "2026-01-02T03:04:05Z" } },
          ],
        }),
        stack("catalog-b.all", "up", {
          status: "failed",
          size: { product: 3 },
          errors: ["p1: products.create failed: 503 service_unavailable"],
          log: "/w/.serviceapi-catalog/logs/up/catalog-b.all.log",
          requests: 4,
          seconds: 3,
        }),
        stack("catalog-c.all", "up", { status: "cancelled", size: { product: 1 }, seconds: 0.1 }),
      ],
    };
    expect(formatReport(run)).toBe(
      [
        "serviceapi-catalog up: 3 of 3 stack(s)",
        "catalog-a.all (10 products): not run; 0 request(s), 0.0 s — BLOCKED",
        "  ! LOCKED by root@vm (pid 2167) since 2026-01-02T03:04:05Z: a run on it was killed, or is still running. When no run is left (a killed or cancelled job), `serviceapi-catalog recover --stack catalog-a.all` clears it",
        "catalog-b.all (3 products): nothing done; 4 request(s), 3.0 s — FAILED (log: /w/.serviceapi-catalog/logs/up/catalog-b.all.log)",
        "  error: p1: products.create failed: 503 service_unavailable",
        "catalog-c.all (1 product): nothing done; 0 request(s), 0.1 s — CANCELLED",
        "Total: 0 created, 0 adopted, 0 updated, 0 replaced, 0 removed; 4 request(s) sent; 1 stack(s) failed, 1 cancelled, 1 blocked",
      ].join("\n"),
    );
  });

  it("a skipped stack (done before with the same products and settings): one line, not counted as run", () => {
    const run: RunReport = {
      command: "up",
      stacks: 2,
      results: [
        stack("catalog-a.all", "up", { status: "skipped", size: { product: 5 } }),
        stack("catalog-b.all", "up", {
          size: { product: 4 },
          changes: [change("update", "w", [{ field: "title", from: "a", to: "b" }])],
          requests: 2,
          seconds: 1,
        }),
      ],
    };
    expect(formatReport(run).split("\n")).toEqual([
      "serviceapi-catalog up: 1 of 2 stack(s)",
      "catalog-a.all: skipped, done in the run before with the same products and settings (--all runs it again)",
      "catalog-b.all (4 products): 1 updated; 2 request(s), 1.0 s",
      "  ~ w",
      '      title: "a" → "b"',
      "Total: 0 created, 0 adopted, 1 updated, 0 replaced, 0 removed; 2 request(s) sent; 0 stack(s) failed, 1 skipped",
    ]);
  });

  it("lost creates an up leaves out until they are adopted: counted in the total, though the run exits 0", () => {
    const run: RunReport = {
      command: "up",
      stacks: 1,
      results: [
        stack("catalog-bulk.all", "up", {
          size: { product: 25 },
          notes: [
            { code: "lost-create", key: "bulk-037", stack: "catalog-bulk.all", title: "Bulk 37" },
            { code: "lost-create", key: "bulk-038", stack: "catalog-bulk.all", title: "Bulk 38" },
          ],
          leftOut: 2,
          changes: [change("create", "bulk-040", [{ field: "title", from: undefined, to: "Bulk 40" }])],
          requests: 1,
          seconds: 1,
        }),
      ],
    };
    expect(formatReport(run).split("\n").slice(-1)).toEqual([
      "Total: 1 created, 0 adopted, 0 updated, 0 replaced, 0 removed, 2 left out until adopted (in flight, find and adopt: see above); 1 request(s) sent; 0 stack(s) failed",
    ]);
    expect(totals(run.results)).toMatchObject({ ops: { create: 1 }, leftOut: 2, failed: 0, blocked: 0 });
  });

  /** p01 … p25. */
  const keys = Array.from({ length: 25 }, (_, i) => `p${String(i + 1).padStart(2, "0")}`);
  /** The lines of a preview of one stack. */
  const previewLines = (report: Partial<StackReport>) =>
    formatReport({ command: "preview", stacks: 1, results: [stack("catalog-a.all", "preview", report)] }).split("\n");

  it("lists at most 20 products per stack and kind, and counts the rest (the totals count them all)", () => {
    const lines = previewLines({
      size: { product: 47 },
      changes: [...keys].reverse().map((key) => change("create", key)),
      requests: 1,
      seconds: 2,
    });
    expect(lines.slice(2, 23)).toEqual([...keys.slice(0, 20).map((key) => `  + ${key}`), "  + … and 5 more"]);
    expect(lines[23]).toBe("Total: 25 to create, 0 to adopt, 0 to update, 0 to replace, 0 to remove; 1 request(s) sent; 0 stack(s) failed");
  });

  it("of 25 adoptions, the one that changes its record is listed first, not among the ones left out", () => {
    const lines = previewLines({
      size: { product: 25 },
      changes: keys.map((key) =>
        change("adopt", key, key === "p24" ? [{ field: "status", from: "draft", to: "active" }] : [], { adoptId: key }),
      ),
    });
    expect(lines.slice(2, 5)).toEqual(["  = p24 (adopts p24)", '      status: "draft" → "active"', "  = p01 (adopts p01)"]);
    expect(lines.at(-2)).toBe("  = … and 5 more");
  });
});

describe("shown: a value as the report prints it", () => {
  it("JSON text; long ones shortened with their length; the engine's [secret] and unknowns in words", () => {
    expect(shown("Pro plan")).toBe('"Pro plan"');
    expect(shown(null)).toBe("null");
    expect(shown("[secret]")).toBe("[secret]");
    expect(shown("04da6b54-80e4-46f7-96ec-b56ff0331ba9")).toBe("(known after up)");
    expect(shown("x".repeat(61))).toBe(`"${"x".repeat(59)}…" (61 characters)`);
    expect(shown("x".repeat(60))).toBe(`"${"x".repeat(60)}"`);
  });

  it("a policy's verdicts: a denial under the field it names, a warning beside it, each counted in the Total line and in --json's totals", () => {
    const run: RunReport = {
      command: "preview",
      stacks: 1,
      results: [
        stack("catalog-a.all", "preview", {
          size: { product: 2 },
          changes: [
            change(
              "create",
              "alpha",
              [
                { field: "title", to: "Alpha" },
                { field: "externalCheckoutUrl", to: "javascript:x" },
              ],
              {
                reasons: [
                  {
                    code: "policy",
                    level: "deny",
                    policy: "https_checkout_urls",
                    message: '"javascript:x" is not an https:// URL',
                    field: "externalCheckoutUrl",
                  },
                  { code: "policy", level: "warn", policy: "titles", message: "short title" },
                ],
              },
            ),
          ],
        }),
      ],
      notes: [{ code: "policy", level: "deny", policy: "archive_limit", message: "25 products archived" }],
    };
    expect(formatReport(run).split("\n")).toEqual([
      "serviceapi-catalog preview: 1 of 1 stack(s)",
      "  ! DENIED by policy archive_limit: 25 products archived",
      "catalog-a.all (2 products): 1 to create; 0 request(s), 0.0 s",
      "  + alpha",
      '      title: "Alpha"',
      '      externalCheckoutUrl: "javascript:x"',
      '      externalCheckoutUrl: DENIED by policy https_checkout_urls: "javascript:x" is not an https:// URL',
      "      warning from policy titles: short title",
      "Total: 1 to create, 0 to adopt, 0 to update, 0 to replace, 0 to remove; 2 DENIED by policy (nothing written: an up refuses the whole change); 1 policy warning(s); 0 request(s) sent; 0 stack(s) failed",
    ]);
    expect([runTotals(run).denied, runTotals(run).warned]).toEqual([2, 1]);
  });

  it("report: a stack given in two files is refused, not counted twice", () => {
    const dir = mkdtempSync(join(tmpdir(), "report-twice-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, "report-0.json");
    const run: RunReport = { version: REPORT_VERSION, command: "preview", stacks: 1, results: [stack("catalog-a.all", "preview", {})] };
    writeFileSync(file, JSON.stringify(run));
    expect(() => runReport([file, file], { out: () => {}, err: () => {} })).toThrow(
      `report: catalog-a.all is in ${file} and in ${file}: give each job's report once`,
    );
    // A job that wrote nothing (or an artifact not downloaded), and a file that is not a report: each said as what it is.
    writeFileSync(join(dir, "other.json"), "{}");
    const io = { out: () => {}, err: () => {} };
    expect(() => runReport([join(dir, "missing.json")], io)).toThrow(
      `report: ${join(dir, "missing.json")} does not exist (a job that wrote no report, or an artifact not downloaded)`,
    );
    expect(() => runReport([join(dir, "other.json")], io)).toThrow(
      `report: ${join(dir, "other.json")} is not a report serviceapi-catalog wrote with --json`,
    );
  });
});
