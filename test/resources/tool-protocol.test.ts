/**
 * The protocol between the catalog tool and its stacks' provider processes (`provider/resources/tool-protocol.ts`):
 * each file format written and read in one place, versioned — a record without a version (a create
 * journal an earlier release left on a runner) is read as version 1, one of a newer version is not read.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import {
  appendWrite,
  appendCreated,
  otherStacksText,
  parseOtherStacks,
  readWrites,
  readCreated,
  TOOL_ENV,
} from "../../provider/resources/tool-protocol";

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), "tool-protocol-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe("the tool protocol", () => {
  it("names its four variables once", () => {
    expect(TOOL_ENV).toEqual({
      sharedPacer: "SERVICEAPI_SHARED_PACER_URL",
      createdJournal: "SERVICEAPI_CREATED_JOURNAL",
      writes: "SERVICEAPI_WRITES_FILE",
      otherStacks: "SERVICEAPI_OTHER_STACKS_INDEX",
    });
  });

  it("the create journal: versioned lines; an earlier release's line is read, a newer one's and a line a kill cut are not", () => {
    const file = join(scratch(), "stack.jsonl");
    expect(appendCreated(file, { type: "Product", name: "pro", id: "id-1", at: "2026-01-01T00:00:00Z" })).toBeUndefined();
    const written = readFileSync(file, "utf8");
    expect(written).toBe('{"v":1,"type":"Product","name":"pro","id":"id-1","at":"2026-01-01T00:00:00Z"}\n');
    const older = '{"type":"Product","name":"old","id":"id-0","at":"2025-01-01T00:00:00Z"}\n';
    const newer = '{"v":2,"type":"Product","name":"new","id":"id-2","at":"2027-01-01T00:00:00Z"}\n';
    expect(readCreated(older + written + newer + '{"v":1,"type":"Pro').map((r) => r.name)).toEqual(["old", "pro"]);
  });

  it("the writes file: adoptions and give-backs apart, the last line of a name wins; a first-version line (no op) is an adoption", () => {
    const file = join(scratch(), "writes.jsonl");
    appendWrite(file, { op: "adopt", name: "pro", id: "id-1", fields: [{ field: "title", from: "A", to: "B" }] });
    appendWrite(file, { op: "adopt", name: "pro", id: "id-1", fields: [{ field: "title", from: "A", to: "C" }] });
    appendWrite(file, { op: "give-back", name: "pro", id: "id-2", sent: ["description"], since: ["title"] });
    const older = '{"name":"old","id":"id-0","fields":[]}\n';
    const { adoptions, giveBacks } = readWrites(older + readFileSync(file, "utf8") + '{"v":1,"op":"give-back","na');
    expect([...adoptions.values()]).toEqual([
      { name: "old", id: "id-0", fields: [] },
      { v: 1, op: "adopt", name: "pro", id: "id-1", fields: [{ field: "title", from: "A", to: "C" }] },
    ]);
    expect([...giveBacks.values()]).toEqual([{ v: 1, op: "give-back", name: "pro", id: "id-2", sent: ["description"], since: ["title"] }]);
  });

  it("the other stacks' index: written with its version; another version, or another shape, named", () => {
    const text = otherStacksText({ "id-1": [{ stack: "organization/p/s", name: "pro" }] });
    expect(JSON.parse(text)).toEqual({ v: 1, products: { "id-1": [{ stack: "organization/p/s", name: "pro" }] } });
    expect(parseOtherStacks(text)).toEqual({ index: JSON.parse(text) });
    expect(parseOtherStacks('{"v":2,"products":{}}')).toEqual({ problem: "which is of version 2 (this provider reads 1)" });
    expect(parseOtherStacks('{"id-1":[]}')).toEqual({ problem: "which is not an index of product ids to stacks" });
    expect(parseOtherStacks("not json")).toEqual({ problem: "which is not JSON" });
  });
});
