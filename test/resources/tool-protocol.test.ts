/**
 * The protocol between the catalog tool and its stacks' provider processes (`provider/resources/tool-protocol.ts`):
 * each file format written and read in one place, versioned — a record without a version (a create
 * journal an earlier release left on a runner) is read as version 1, one of a newer version is not read.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import type { ProviderContext } from "../../provider/resources/context";
import { journalCreating, journalNotCreated, takenIn } from "../../provider/resources/journal";
import { recordedAsUnconfirmed } from "../../provider/resources/unconfirmed";
import {
  appendWrite,
  appendCreated,
  appendCreating,
  readJournal,
  runRecordText,
  takeInText,
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
  it("names its five variables once", () => {
    expect(TOOL_ENV).toEqual({
      sharedPacer: "SERVICEAPI_SHARED_PACER_URL",
      createdJournal: "SERVICEAPI_CREATED_JOURNAL",
      takeIn: "SERVICEAPI_TAKE_IN",
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

  it("the journal beside the state: the run's line, each create before it is sent and when answered; readCreated takes only the answers", () => {
    const file = join(scratch(), "stack.jsonl");
    writeFileSync(file, runRecordText({ command: "up", at: "2026-01-01T00:00:00Z", hostname: "runner-1", pid: 42 }));
    appendCreating(file, { type: "Product", name: "pro", at: "2026-01-01T00:00:01Z" });
    appendCreating(file, { type: "Task", name: "sync", at: "2026-01-01T00:00:01Z" });
    appendCreated(file, { type: "Product", name: "pro", id: "id-1", at: "2026-01-01T00:00:02Z" });
    // A create the service refused (a 422): sent, and certainly not made.
    appendCreating(file, { type: "Product", name: "bad", at: "2026-01-01T00:00:03Z" });
    journalNotCreated("bad", { [TOOL_ENV.createdJournal]: file });
    const text = readFileSync(file, "utf8");
    expect(text.split("\n")[1]).toBe('{"v":1,"op":"creating","type":"Product","name":"pro","at":"2026-01-01T00:00:01Z"}');
    const journal = readJournal(`${text}{"v":1,"op":"creating","type":"Prod`);
    expect(journal.run).toEqual({ v: 1, op: "run", command: "up", at: "2026-01-01T00:00:00Z", hostname: "runner-1", pid: 42 });
    expect([...journal.creating.keys()]).toEqual(["pro", "sync"]);
    expect([...journal.created].map(([name, r]) => [name, r.id])).toEqual([["pro", "id-1"]]);
    expect(readCreated(text).map((r) => r.name)).toEqual(["pro"]);
  });

  it("a create whose line cannot be written: sent anyway with the checkpoints kept, refused before it is sent without them", () => {
    const file = join(scratch(), "no-such-folder", "stack.jsonl");
    const entry = { type: "Product", name: "pro", at: "2026-01-01T00:00:00Z" };
    expect(() => journalCreating(entry, { [TOOL_ENV.createdJournal]: file })).not.toThrow();
    expect(() => journalCreating(entry, { [TOOL_ENV.createdJournal]: file, PULUMI_SKIP_CHECKPOINTS: "true" })).toThrow(
      `Product "pro": not created, nothing sent: the create journal ${file} cannot be written (ENOENT), and this run skips Pulumi's checkpoints, ` +
        "so nothing else would record the create. Free the disk or fix the folder's permissions, then run the up again.",
    );
    // No journal configured (a user's own `pulumi up` with the variable set): the user's choice, not refused.
    expect(() => journalCreating(entry, { PULUMI_SKIP_CHECKPOINTS: "true" })).not.toThrow();
  });

  it("recover's take-in: each key's id or null; a key it does not name is refused, nothing sent; none configured: an ordinary create", () => {
    const file = join(scratch(), "take-in.json");
    writeFileSync(file, takeInText({ pro: "id-1", lost: null }));
    const env = { [TOOL_ENV.takeIn]: file };
    expect(takenIn("Product", "pro", env)).toEqual({ id: "id-1" });
    expect(takenIn("Product", "lost", env)).toEqual({ id: null });
    expect(() => takenIn("Product", "other", env)).toThrow(
      'Product "other": nothing sent: recover takes in only what the killed run created, and that run did not create it.',
    );
    expect(takenIn("Product", "pro", {})).toBeUndefined();
    writeFileSync(file, '{"v":2,"records":{}}');
    expect(() => takenIn("Product", "pro", env)).toThrow(
      `nothing sent: recover's take-in file ${file} is a file of version 2 (this provider reads 1).`,
    );
  });

  it("a create whose answer was lost in a catalog stack's up: the catalog's ways out, not `pulumi up --replace`", () => {
    const before = process.env[TOOL_ENV.createdJournal];
    onTestFinished(() => {
      if (before === undefined) delete process.env[TOOL_ENV.createdJournal];
      else process.env[TOOL_ENV.createdJournal] = before;
    });
    process.env[TOOL_ENV.createdJournal] = join(scratch(), "stack.jsonl");
    expect(recordedAsUnconfirmed({} as ProviderContext, "Product", "pro")).toBe(
      'The stack records Product "pro" as a lost create, so no later up creates it again by itself: if the product exists on the service, ' +
        "add `adoptId: <its id>` to its catalog entry; if it does not, run `serviceapi-catalog recover --create-anew pro`.",
    );
  });
});
