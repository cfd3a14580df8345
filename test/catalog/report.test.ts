/**
 * The combined report a terminal or a pull request comment shows (`provider/catalog/report.ts`):
 * per stack, each changed field with its value before and after as `pulumi preview --diff` shows it
 * (a secret as `[secret]`, a long value shortened), archiving called out, what stops a stack with
 * the way out, totals. Exact text: this is what users and reviewers read.
 */
import { describe, expect, it } from "vitest";
import { formatReport, shown, totals, type RunReport } from "../../provider/catalog/report";
import { emptyReport, type RunCommand, type StackReport } from "../../provider/catalog/stack-run";

function stack(name: string, command: RunCommand, report: Partial<StackReport>): StackReport {
  return { ...emptyReport(name, command, 0, "f".repeat(64)), ...report };
}

describe("formatReport", () => {
  it("a preview: every changed field old → new, a status change to archived called out, creates with their titles", () => {
    const run: RunReport = {
      command: "preview",
      stacks: 4,
      scope: "changed since origin/main: 2 added, 3 changed, 0 removed",
      splits: [],
      results: [
        stack("catalog-plans.all", "preview", {
          products: 12,
          creates: [
            { key: "new-b", fields: [{ field: "title", from: undefined, to: "B" }] },
            {
              key: "new-a",
              fields: [
                { field: "title", from: undefined, to: "A" },
                { field: "status", from: undefined, to: "archived" },
              ],
            },
          ],
          updates: [
            {
              key: "services-0500",
              fields: [
                { field: "title", from: "Services", to: "Services (retired)" },
                { field: "description", from: "All of them", to: null },
                { field: "status", from: "active", to: "archived" },
              ],
            },
            { key: "secretive", fields: [{ field: "title", from: "[secret]", to: "[secret]" }] },
          ],
          requests: 3,
          seconds: 1.25,
        }),
        stack("catalog-add-ons.all", "preview", { products: 20, requests: 1, seconds: 0.96 }),
      ],
      requests: 1,
    };
    expect(formatReport(run)).toBe(
      [
        "serviceapi-catalog preview: 2 of 4 stack(s) (changed since origin/main: 2 added, 3 changed, 0 removed)",
        "catalog-add-ons.all (20 products): no changes; 1 request(s), 1.0 s",
        "catalog-plans.all (12 products): 2 to create, 2 to update (1 to archived); 3 request(s), 1.3 s",
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
        "Total: 2 to create, 0 to adopt, 2 to update (1 to archived), 0 to replace, 0 to delete; 5 request(s) sent (the project listing included); 0 stack(s) failed",
      ].join("\n"),
    );
  });

  it("an up: in the past tense, with the moves it made, adoptions, replacements and deletes with what happened", () => {
    const run: RunReport = {
      command: "up",
      stacks: 3,
      splits: [
        "moved 5 product(s) from catalog-a.all into catalog-a.0 (3), catalog-a.1 (2) with pulumi state move, no request to the service",
      ],
      results: [
        stack("catalog-a.1", "up", {
          products: 5,
          creates: [{ key: "a", fields: [{ field: "title", from: undefined, to: "A" }] }],
          adopts: [{ key: "found", fields: [], what: "adopts 0b3f2a8e-5b7c-4f1e-9a6d-2c4e8f0a1b3d" }],
          updates: [{ key: "b", fields: [{ field: "onDelete", from: "archive", to: "retain" }] }],
          replaces: [{ key: "c", fields: [{ field: "projectId", from: "p-1", to: "p-2" }] }],
          deletes: [
            { key: "d", fields: [], what: "archived" },
            { key: "e", fields: [], what: "given back as it was found (taken over, not archived)" },
          ],
          requests: 9,
          seconds: 2.5,
        }),
      ],
    };
    expect(formatReport(run)).toBe(
      [
        "serviceapi-catalog up: 1 of 3 stack(s)",
        "  moved 5 product(s) from catalog-a.all into catalog-a.0 (3), catalog-a.1 (2) with pulumi state move, no request to the service",
        "catalog-a.1 (5 products): 1 created, 1 adopted, 1 updated, 1 replaced, 2 deleted; 9 request(s), 2.5 s",
        "  + a",
        '      title: "A"',
        "  = found (adopts 0b3f2a8e-5b7c-4f1e-9a6d-2c4e8f0a1b3d)",
        "  ~ b",
        '      onDelete: "archive" → "retain"',
        "  +- c",
        '      projectId: "p-1" → "p-2"',
        "  - d (archived)",
        "  - e (given back as it was found (taken over, not archived))",
        "Total: 1 created, 1 adopted, 1 updated, 1 replaced, 2 deleted; 9 request(s) sent; 0 stack(s) failed",
      ].join("\n"),
    );
  });

  it("a drift: recorded → live per field, and the commands that fix it", () => {
    const run: RunReport = {
      command: "drift",
      stacks: 2,
      splits: [],
      results: [
        stack("catalog-b.all", "drift", { products: 4, requests: 4, seconds: 0.4 }),
        stack("catalog-a.all", "drift", {
          products: 3,
          drift: [{ key: "widget", fields: [{ field: "title", from: "Widget", to: "Changed by hand" }] }],
          requests: 3,
          seconds: 0.5,
        }),
      ],
      next: ["To set them back as the catalog declares: serviceapi-catalog up --refresh --stack catalog-a.all"],
    };
    expect(formatReport(run)).toBe(
      [
        "serviceapi-catalog drift: 2 of 2 stack(s)",
        "catalog-a.all (3 products): 1 drifted; 3 request(s), 0.5 s",
        "  ~ widget",
        '      title: "Widget" → "Changed by hand"',
        "catalog-b.all (4 products): no drift; 4 request(s), 0.4 s",
        "Total: 1 drifted; 7 request(s) sent; 0 stack(s) failed",
        "To set them back as the catalog declares: serviceapi-catalog up --refresh --stack catalog-a.all",
      ].join("\n"),
    );
  });

  it("a blocked stack: not run, each reason with its way out; a failed one names its log; both counted", () => {
    const run: RunReport = {
      command: "up",
      stacks: 3,
      splits: [],
      results: [
        stack("catalog-a.all", "up", {
          status: "blocked",
          products: 10,
          notes: ["LOCKED by root@vm (pid 2167) since 2026-01-02T03:04:05Z: …"],
        }),
        stack("catalog-b.all", "up", {
          status: "failed",
          products: 3,
          errors: ["p1: products.create failed: 503 service_unavailable"],
          log: "/w/.serviceapi-catalog/logs/up/catalog-b.all.log",
          requests: 4,
          seconds: 3,
        }),
        stack("catalog-c.all", "up", { status: "cancelled", products: 1, seconds: 0.1 }),
      ],
    };
    expect(formatReport(run)).toBe(
      [
        "serviceapi-catalog up: 3 of 3 stack(s)",
        "catalog-a.all (10 products): not run; 0 request(s), 0.0 s — BLOCKED",
        "  ! LOCKED by root@vm (pid 2167) since 2026-01-02T03:04:05Z: …",
        "catalog-b.all (3 products): nothing done; 4 request(s), 3.0 s — FAILED (log: /w/.serviceapi-catalog/logs/up/catalog-b.all.log)",
        "  error: p1: products.create failed: 503 service_unavailable",
        "catalog-c.all (1 product): nothing done; 0 request(s), 0.1 s — CANCELLED",
        "Total: 0 created, 0 adopted, 0 updated, 0 replaced, 0 deleted; 4 request(s) sent; 1 stack(s) failed, 1 cancelled, 1 blocked",
      ].join("\n"),
    );
  });

  it("a skipped stack (done before with the same products and settings): one line, not counted as run", () => {
    const run: RunReport = {
      command: "up",
      stacks: 2,
      splits: [],
      results: [
        stack("catalog-a.all", "up", { status: "skipped", products: 5 }),
        stack("catalog-b.all", "up", {
          products: 4,
          updates: [{ key: "w", fields: [{ field: "title", from: "a", to: "b" }] }],
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
      "Total: 0 created, 0 adopted, 1 updated, 0 replaced, 0 deleted; 2 request(s) sent; 0 stack(s) failed, 1 skipped",
    ]);
  });

  it("lost creates an up leaves out until they are adopted: counted in the total, though the run exits 0", () => {
    const run: RunReport = {
      command: "up",
      stacks: 1,
      splits: [],
      results: [
        stack("catalog-bulk.all", "up", {
          products: 25,
          notes: ["bulk-037: in flight, find and adopt — …", "bulk-038: in flight, find and adopt — …"],
          leftOut: 2,
          creates: [{ key: "bulk-040", fields: [{ field: "title", from: undefined, to: "Bulk 40" }] }],
          requests: 1,
          seconds: 1,
        }),
      ],
    };
    expect(formatReport(run).split("\n").slice(-1)).toEqual([
      "Total: 1 created, 0 adopted, 0 updated, 0 replaced, 0 deleted, 2 left out until adopted (in flight, find and adopt: see above); 1 request(s) sent; 0 stack(s) failed",
    ]);
    expect(totals(run.results)).toMatchObject({ creates: 1, leftOut: 2, failed: 0, blocked: 0 });
  });

  /** p01 … p25. */
  const keys = Array.from({ length: 25 }, (_, i) => `p${String(i + 1).padStart(2, "0")}`);
  /** The lines of a preview of one stack. */
  const previewLines = (report: Partial<StackReport>) =>
    formatReport({ command: "preview", stacks: 1, splits: [], results: [stack("catalog-a.all", "preview", report)] }).split("\n");

  it("lists at most 20 products per stack and kind, and counts the rest (the totals count them all)", () => {
    const lines = previewLines({ products: 47, creates: [...keys].reverse().map((key) => ({ key, fields: [] })), requests: 1, seconds: 2 });
    expect(lines.slice(2, 23)).toEqual([...keys.slice(0, 20).map((key) => `  + ${key}`), "  + … and 5 more"]);
    expect(lines[23]).toBe("Total: 25 to create, 0 to adopt, 0 to update, 0 to replace, 0 to delete; 1 request(s) sent; 0 stack(s) failed");
  });

  it("of 25 adoptions, the one that changes its record is listed first, not among the ones left out", () => {
    const lines = previewLines({
      products: 25,
      adopts: keys.map((key) => ({
        key,
        what: `adopts ${key}`,
        fields: key === "p24" ? [{ field: "status", from: "draft", to: "active" }] : [],
      })),
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
});
