/**
 * The combined report a terminal or a pull request comment shows (`provider/catalog/report.ts`),
 * and the field names it lists for an update, found from the engine's step events
 * (`changedFields` in `provider/catalog/stack-run.ts`). Exact text: this is what users read.
 */
import type { StepEventMetadata } from "@pulumi/pulumi/automation";
import { describe, expect, it } from "vitest";
import { formatReport, type RunReport } from "../../provider/catalog/report";
import { changedFields, emptyReport, type Command, type StackReport } from "../../provider/catalog/stack-run";

function stack(name: string, command: Command, report: Partial<StackReport>): StackReport {
  return { ...emptyReport(name, name.replace("catalog-", ""), command, 0, "f".repeat(64)), ...report };
}

describe("formatReport", () => {
  it("a preview: what would change per stack, sorted by stack and key, with totals", () => {
    const run: RunReport = {
      command: "preview",
      stacks: 4,
      scope: "changed since origin/main: 2 added, 1 changed, 0 removed",
      splits: [],
      results: [
        stack("catalog-10", "preview", {
          products: 12,
          creates: ["new-b", "new-a"],
          updates: [{ key: "widget", fields: ["title", "slug"] }],
          requests: 3,
          seconds: 1.25,
        }),
        stack("catalog-0", "preview", { products: 20, requests: 1, seconds: 0.96 }),
      ],
    };
    expect(formatReport(run)).toBe(
      [
        "serviceapi-catalog preview: 2 of 4 stack(s) (changed since origin/main: 2 added, 1 changed, 0 removed)",
        "catalog-0 (20 products): no changes; 1 request(s), 1.0 s",
        "catalog-10 (12 products): 2 to create, 1 to update; 3 request(s), 1.3 s",
        "  + new-a",
        "  + new-b",
        "  ~ widget: title, slug",
        "Total: 2 to create, 1 to update, 0 to replace, 0 to delete; 4 request(s) sent; 0 stack(s) failed",
      ].join("\n"),
    );
  });

  it("an up: in the past tense, with the splits it made", () => {
    const run: RunReport = {
      command: "up",
      stacks: 3,
      splits: ["split catalog-1 into catalog-10 (3 moved), catalog-11 (2 moved) with pulumi state move"],
      results: [
        stack("catalog-11", "up", {
          products: 5,
          creates: ["a"],
          updates: [{ key: "b", fields: ["description"] }],
          replaces: [{ key: "c", fields: ["projectId"] }],
          deletes: ["d"],
          requests: 9,
          seconds: 2.5,
        }),
      ],
    };
    expect(formatReport(run)).toBe(
      [
        "serviceapi-catalog up: 1 of 3 stack(s)",
        "  split catalog-1 into catalog-10 (3 moved), catalog-11 (2 moved) with pulumi state move",
        "catalog-11 (5 products): 1 created, 1 updated, 1 replaced, 1 deleted; 9 request(s), 2.5 s",
        "  + a",
        "  ~ b: description",
        "  +- c: projectId",
        "  - d",
        "Total: 1 created, 1 updated, 1 replaced, 1 deleted; 9 request(s) sent; 0 stack(s) failed",
      ].join("\n"),
    );
  });

  it("a destroy: in the past tense", () => {
    const run: RunReport = {
      command: "destroy",
      stacks: 1,
      splits: [],
      results: [stack("catalog-all", "destroy", { products: 2, deletes: ["y", "x"], requests: 2, seconds: 0.4 })],
    };
    expect(formatReport(run)).toBe(
      [
        "serviceapi-catalog destroy: 1 of 1 stack(s)",
        "catalog-all (2 products): 2 deleted; 2 request(s), 0.4 s",
        "  - x",
        "  - y",
        "Total: 0 created, 0 updated, 0 replaced, 2 deleted; 2 request(s) sent; 0 stack(s) failed",
      ].join("\n"),
    );
  });

  it("a drift: updates are drift, a stack without any says so", () => {
    const run: RunReport = {
      command: "drift",
      stacks: 2,
      splits: [],
      results: [
        stack("catalog-1", "drift", { products: 4, requests: 4, seconds: 0.4 }),
        stack("catalog-0", "drift", { products: 3, updates: [{ key: "widget", fields: ["status"] }], requests: 3, seconds: 0.5 }),
      ],
    };
    expect(formatReport(run)).toBe(
      [
        "serviceapi-catalog drift: 2 of 2 stack(s)",
        "catalog-0 (3 products): 1 drifted; 3 request(s), 0.5 s",
        "  ~ widget: status",
        "catalog-1 (4 products): no drift; 4 request(s), 0.4 s",
        "Total: 0 to create, 1 drifted, 0 to replace, 0 to delete; 7 request(s) sent; 0 stack(s) failed",
      ].join("\n"),
    );
  });

  it("a failed or cancelled stack: marked, its errors listed, counted as failed beside the stacks that went well", () => {
    const run: RunReport = {
      command: "up",
      stacks: 3,
      splits: [],
      results: [
        stack("catalog-0", "up", { products: 2, creates: ["ok-one"], requests: 1, seconds: 0.5 }),
        stack("catalog-10", "up", {
          status: "failed",
          products: 3,
          creates: ["p1"],
          requests: 2,
          seconds: 3,
          errors: ["p1: the service refused the request (HTTP 422): title must be 1 to 1024 characters long", "update failed with 1 error"],
        }),
        stack("catalog-11", "up", { status: "cancelled", products: 1, errors: ["the run was cancelled"], seconds: 0.1 }),
      ],
    };
    expect(formatReport(run)).toBe(
      [
        "serviceapi-catalog up: 3 of 3 stack(s)",
        "catalog-0 (2 products): 1 created; 1 request(s), 0.5 s",
        "  + ok-one",
        "catalog-10 (3 products): 1 created; 2 request(s), 3.0 s — FAILED",
        "  + p1",
        "  error: p1: the service refused the request (HTTP 422): title must be 1 to 1024 characters long",
        "  error: update failed with 1 error",
        "catalog-11 (1 products): nothing done; 0 request(s), 0.1 s — CANCELLED",
        "  error: the run was cancelled",
        "Total: 2 created, 0 updated, 0 replaced, 0 deleted; 3 request(s) sent; 2 stack(s) failed",
      ].join("\n"),
    );
  });

  it("a skipped stack (done before with the same products): one line, not counted as run", () => {
    const run: RunReport = {
      command: "up",
      stacks: 2,
      splits: [],
      results: [
        stack("catalog-0", "up", { status: "skipped", products: 5, creates: [] }),
        stack("catalog-1", "up", { products: 4, updates: [{ key: "w", fields: ["title"] }], requests: 2, seconds: 1 }),
      ],
    };
    expect(formatReport(run)).toBe(
      [
        "serviceapi-catalog up: 1 of 2 stack(s)",
        "catalog-0: skipped, done in the run before with the same products (--all runs it again)",
        "catalog-1 (4 products): 1 updated; 2 request(s), 1.0 s",
        "  ~ w: title",
        "Total: 0 created, 1 updated, 0 replaced, 0 deleted; 2 request(s) sent; 0 stack(s) failed, 1 skipped",
      ].join("\n"),
    );
  });

  it("lists at most 20 products per stack and kind, and counts the rest (the totals count them all)", () => {
    const keys = Array.from({ length: 25 }, (_, i) => `p${String(i + 1).padStart(2, "0")}`);
    const run: RunReport = {
      command: "preview",
      stacks: 1,
      splits: [],
      results: [
        stack("catalog-all", "preview", {
          products: 47,
          creates: [...keys].reverse(),
          updates: keys.slice(0, 21).map((key) => ({ key: `u-${key}`, fields: ["title"] })),
          deletes: keys.slice(0, 20),
          requests: 1,
          seconds: 2,
        }),
      ],
    };
    const lines = formatReport(run).split("\n");
    expect(lines[1]).toBe("catalog-all (47 products): 25 to create, 21 to update, 20 to delete; 1 request(s), 2.0 s");
    expect(lines.slice(2, 23)).toEqual([...keys.slice(0, 20).map((key) => `  + ${key}`), "  + … and 5 more"]);
    expect(lines.slice(23, 44)).toEqual([...keys.slice(0, 20).map((key) => `  ~ u-${key}: title`), "  ~ … and 1 more"]);
    // Exactly 20: all listed, no "more" line.
    expect(lines.slice(44, 64)).toEqual(keys.slice(0, 20).map((key) => `  - ${key}`));
    expect(lines[64]).toBe("Total: 25 to create, 21 to update, 0 to replace, 20 to delete; 1 request(s) sent; 0 stack(s) failed");
    expect(lines).toHaveLength(65);
  });
});

describe("changedFields: the field names of an update, from the step's old and new state", () => {
  const PROJECT = "11111111-2222-4333-8444-555555555555";
  /** The record as the stack last saw it (a product's outputs). */
  const record = {
    projectId: PROJECT,
    title: "Widget",
    description: null,
    slug: "widget",
    status: "active",
    type: "physical",
    externalCheckoutUrl: null,
    onDelete: "archive",
    __declared: ["projectId", "title", "slug"],
  };
  const declared = { projectId: PROJECT, title: "Widget", slug: "widget" };
  type Step = Pick<StepEventMetadata, "old" | "new" | "diffs">;
  const step = (
    news: Record<string, unknown>,
    olds: Record<string, unknown> = record,
    oldInputs: Record<string, unknown> = declared,
    diffs?: string[],
  ): Step => ({ old: { inputs: oldInputs, outputs: olds }, new: { inputs: news, outputs: {} }, diffs }) as unknown as Step;

  it("a title changed in the catalog", () => {
    expect(changedFields(step({ ...declared, title: "Widget 2" }))).toEqual(["title"]);
  });

  it("several fields, in the field table's order", () => {
    expect(
      changedFields(step({ ...declared, slug: "w2", title: "Widget 2", externalCheckoutUrl: "https://example.com/buy", status: "draft" })),
    ).toEqual(["title", "slug", "status", "externalCheckoutUrl"]);
  });

  it("a slug removed from the catalog while the record has one: slug (the program clears it)", () => {
    const { slug: _slug, ...withoutSlug } = declared;
    expect(changedFields(step(withoutSlug))).toEqual(["slug"]);
    // Removed from the catalog and the record has none: no change.
    expect(changedFields(step(withoutSlug, { ...record, slug: null }))).toEqual([]);
  });

  it("a status the catalog does not declare is left alone, whatever the record's", () => {
    expect(changedFields(step(declared, { ...record, status: "draft" }))).toEqual([]);
  });

  it("identical: no field", () => {
    expect(changedFields(step(declared))).toEqual([]);
    expect(changedFields(step({ ...declared, description: null, onDelete: "archive" }))).toEqual([]);
  });

  it("drift after a refresh: the live record (outputs) against the catalog", () => {
    expect(changedFields(step(declared, { ...record, title: "Renamed on the service" }))).toEqual(["title"]);
  });

  it("a product archived behind Pulumi's back whose catalog entry declares no status: status (up sets it back)", () => {
    // What refresh stores then (`resources/product/refresh.ts`): the live status in inputs and outputs, the one to restore hidden.
    const archived = { ...record, status: "archived", __statusBeforeArchive: "active" };
    expect(changedFields(step(declared, archived, { ...declared, status: "archived" }))).toEqual(["status"]);
  });

  it("falls back to the engine's own field names when no declared field differs, hidden ones left out", () => {
    expect(changedFields(step(declared, record, declared, ["__meta", "title"]))).toEqual(["title"]);
  });
});
