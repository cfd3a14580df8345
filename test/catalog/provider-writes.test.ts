/**
 * What an up's report says a give-back did (`withProviderWrites`, `provider/catalog/run.ts`): the
 * fields its provider sent, as the writes file records them (`tool-protocol.ts`), not the fields the
 * preview listed from the state. A field changed on the service since the state last read it is
 * left as it is, and said so; a product gone is said to be gone. The provider's side (what it
 * records) is in test/resources/product.test.ts.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { PlannedChange } from "../../provider/catalog/changes";
import { describeChange, describeReason } from "../../provider/catalog/report";
import { withProviderWrites } from "../../provider/catalog/run";
import { emptyReport } from "../../provider/catalog/stack-run";
import { appendWrite } from "../../provider/resources/tool-protocol";

const dir = mkdtempSync(join(tmpdir(), "provider-writes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A give-back as the plan has it from the state: title and description set back. */
function planned(key: string): PlannedChange {
  return {
    key,
    op: "give-back",
    fields: [
      { field: "title", from: "Ours", to: "Found" },
      { field: "description", from: "Ours too", to: "Found too" },
    ],
    reasons: [],
  };
}

describe("an up's report of a give-back: what the provider sent", () => {
  it("a field changed on the service since is not listed as sent; one already as found neither; a product gone says so", () => {
    const file = join(dir, "stack.jsonl");
    appendWrite(file, { op: "give-back", name: "drifted", id: "id-1", sent: ["description"], since: ["title"] });
    appendWrite(file, { op: "give-back", name: "as-found", id: "id-2", sent: ["title"], since: [] });
    appendWrite(file, { op: "give-back", name: "gone", id: "id-3", sent: [], since: [], gone: true });
    const report = emptyReport("catalog-a.all", "up", { product: 4 }, "f".repeat(64));
    report.changes = [planned("drifted"), planned("as-found"), planned("gone"), planned("killed-before")];
    withProviderWrites(report, file);
    const [drifted, asFound, gone, killed] = report.changes;
    expect(drifted).toMatchObject({
      fields: [{ field: "description", from: "Ours too", to: "Found too" }],
      reasons: [{ code: "changed-since", fields: ["title"] }],
    });
    expect(describeReason(drifted!.reasons[0]!)).toBe("title: left as the service shows it (changed since this stack set it)");
    expect(asFound).toMatchObject({ fields: [{ field: "title" }], reasons: [{ code: "already-as-found", fields: ["description"] }] });
    expect(gone).toMatchObject({ fields: [], reasons: [{ code: "already-gone" }] });
    expect(describeReason(gone!.reasons[0]!)).toBe("gone from the service (404): nothing was sent, the stack forgot it");
    // No record (a kill before the delete ran): as the plan had it.
    expect(killed).toEqual(planned("killed-before"));
  });

  it("a preview's give-back line says its fields are judged against the live record at the up", () => {
    expect(describeChange(planned("x"), false)).toBe(
      "given back as it was found: taken over, not archived; a field changed on the service since the stack last read it is left as it is (preview --refresh reads them)",
    );
    expect(describeChange(planned("x"), true)).toBe("given back as it was found: taken over, not archived");
  });
});
