/**
 * `drift --write` (`provider/catalog/write-back.ts`): the service's values of the drifted fields
 * written into the catalog files as a reviewable change — a YAML file keeps its comments, order and
 * other entries; a JSON file its indentation; a cleared field leaves the entry; a secret is not
 * written. Exact file contents before and after.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseCatalog } from "../../provider/catalog/catalog";
import { writeDrift } from "../../provider/catalog/write-back";

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("writeDrift", () => {
  it("YAML and JSON files edited in place, one line per field written", () => {
    dir = mkdtempSync(join(tmpdir(), "write-back-"));
    const yaml = [
      "# The plans we sell.",
      "pro:",
      "  project: Acme Web",
      "  title: Pro plan # shown on the pricing page",
      "  description: Everything",
      "starter:",
      "  project: Acme Web",
      "  title: Starter",
      "",
    ].join("\n");
    const json = '{\n    "sso": {\n        "project": "Acme Web",\n        "title": "SSO",\n        "slug": "sso"\n    }\n}\n';
    writeFileSync(join(dir, "plans.yaml"), yaml);
    writeFileSync(join(dir, "add-ons.json"), json);
    const catalog = parseCatalog([
      { file: "plans.yaml", text: yaml },
      { file: "add-ons.json", text: json },
    ]);

    const lines = writeDrift(dir, catalog, [
      {
        key: "pro",
        op: "drift",
        reasons: [],
        fields: [
          { field: "title", from: "Pro plan", to: "Pro (renamed in the UI)" },
          { field: "description", from: "Everything", to: null },
          { field: "status", from: "draft", to: "archived" },
        ],
      },
      {
        key: "sso",
        op: "drift",
        reasons: [],
        fields: [
          { field: "slug", from: "sso", to: "single-sign-on" },
          { field: "title", from: "SSO", to: "[secret]" },
        ],
      },
      { key: "gone", op: "drift", reasons: [], fields: [{ field: "title", from: "a", to: "b" }] },
    ]);

    expect(lines).toEqual([
      "gone: not in the catalog any more; nothing written",
      'add-ons.json: sso: slug: "sso" → "single-sign-on"',
      "add-ons.json: sso: title: a secret value, not written (set it by hand)",
      'plans.yaml: pro: title: "Pro plan" → "Pro (renamed in the UI)"',
      'plans.yaml: pro: description: "Everything" → null (removed: no value)',
      'plans.yaml: pro: status: "draft" → "archived"',
    ]);
    expect(readFileSync(join(dir, "plans.yaml"), "utf8")).toBe(
      [
        "# The plans we sell.",
        "pro:",
        "  project: Acme Web",
        "  title: Pro (renamed in the UI) # shown on the pricing page",
        "  status: archived",
        "starter:",
        "  project: Acme Web",
        "  title: Starter",
        "",
      ].join("\n"),
    );
    expect(readFileSync(join(dir, "add-ons.json"), "utf8")).toBe(
      '{\n    "sso": {\n        "project": "Acme Web",\n        "title": "SSO",\n        "slug": "single-sign-on"\n    }\n}\n',
    );
  });
});
