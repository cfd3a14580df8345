/**
 * What a stack's report says, read from the engine's structured events (`provider/catalog/stack-run.ts`):
 * the values of each changed field (the PATCH `up` sends, by the lifecycle's own rule), drift as
 * recorded → live, adoptions told apart from creates, what a delete does, each create's id the
 * moment it completes. The stack is a stand-in replaying events of the shape a real run sends
 * (captured from `pulumi preview`, `up` and `refresh` of a catalog stack); the same through the
 * real CLI is in test/engine/catalog*.test.ts.
 */
import type { EngineEvent, Stack } from "@pulumi/pulumi/automation";
import { describe, expect, it } from "vitest";
import { emptyReport, meaningfulLines, runOnStack, type RunCommand } from "../../provider/catalog/stack-run";

const TYPE = "pulumi-nodejs:dynamic/serviceapi:Product";
const PROJECT = "b60eff92-1f78-5f2b-bf1a-52ff785acb74";
const ID = "265c2073-a6ee-4d78-8c1d-969f8155a6c1";
const urn = (key: string) => `urn:pulumi:catalog-a.all::serviceapi-catalog::${TYPE}::${key}`;

/** The record as the stack holds it (a product's outputs). */
const recorded = {
  __declared: ["description", "projectId", "slug", "title"],
  description: "Everything",
  externalCheckoutUrl: null,
  onDelete: "archive",
  projectId: PROJECT,
  slug: "pro",
  status: "draft",
  title: "Pro plan",
  type: "digital",
};
const declared = { description: "Everything", projectId: PROJECT, slug: "pro", title: "Pro plan" };

function step(op: string, key: string, old: object | undefined, news: object | undefined, id = ID): EngineEvent {
  return {
    sequence: 0,
    timestamp: 0,
    resOutputsEvent: {
      metadata: {
        op,
        urn: urn(key),
        type: TYPE,
        provider: "",
        old: old && { ...old, urn: urn(key), type: TYPE, id },
        new: news && { ...news, urn: urn(key), type: TYPE, id },
      },
    },
  } as unknown as EngineEvent;
}

async function replay(command: RunCommand, events: EngineEvent[], onCreated?: (key: string, id: string) => void) {
  const play = async ({ onEvent }: { onEvent: (e: EngineEvent) => void }) => events.forEach(onEvent);
  const stack = { preview: play, up: play, destroy: play, refresh: play, previewRefresh: play } as unknown as Stack;
  return runOnStack(stack, emptyReport("catalog-a.all", command, { product: 1 }, "f"), { signal: new AbortController().signal, onCreated });
}

describe("from the engine's events to the report", () => {
  it("an update: the fields `up` sends, each with the value held and the one declared", async () => {
    const report = await replay("preview", [
      step(
        "update",
        "pro",
        { inputs: declared, outputs: recorded },
        { inputs: { ...declared, title: "Pro", slug: undefined, status: "archived" }, outputs: {} },
      ),
      step("same", "starter", { inputs: declared, outputs: recorded }, { inputs: declared, outputs: recorded }),
    ]);
    expect(report.changes).toEqual([
      {
        key: "pro",
        op: "update",
        fields: [
          { field: "title", from: "Pro plan", to: "Pro" },
          { field: "slug", from: "pro", to: null },
          { field: "status", from: "draft", to: "archived" },
        ],
        reasons: [],
      },
    ]);
  });

  it("a field only the stack keeps (onDelete): shown, marked as sent nowhere; an update that sends nothing is not counted as one", async () => {
    const report = await replay("preview", [
      step("update", "pro", { inputs: declared, outputs: recorded }, { inputs: { ...declared, onDelete: "retain" }, outputs: {} }),
      step(
        "update",
        "both",
        { inputs: declared, outputs: recorded },
        { inputs: { ...declared, title: "Both", onDelete: "retain" }, outputs: {} },
      ),
    ]);
    expect(report.changes).toEqual([
      { key: "pro", op: "state", fields: [{ field: "onDelete", from: "archive", to: "retain", stackOnly: true }], reasons: [] },
      {
        key: "both",
        op: "update",
        fields: [
          { field: "title", from: "Pro plan", to: "Both" },
          { field: "onDelete", from: "archive", to: "retain", stackOnly: true },
        ],
        reasons: [],
      },
    ]);
  });

  it("a renamed key (an alias took the old key's state): a rename when nothing else changes, an update from the old key otherwise", async () => {
    const renamed = (key: string, from: string, news: object): EngineEvent => {
      const event = step("same", key, { inputs: declared, outputs: recorded }, news);
      event.resOutputsEvent!.metadata.old!.urn = urn(from);
      return event;
    };
    const same = renamed("pro-plan", "pro", { inputs: declared, outputs: recorded });
    const changed = renamed("starter-plan", "starter", { inputs: { ...declared, title: "Starter" }, outputs: recorded });
    changed.resOutputsEvent!.metadata.op = "update";
    const report = await replay("preview", [same, changed]);
    expect(report.changes).toEqual([
      { key: "pro-plan", op: "rename", fields: [], renamedFrom: "pro", reasons: [] },
      {
        key: "starter-plan",
        op: "update",
        fields: [{ field: "title", from: "Pro plan", to: "Starter" }],
        renamedFrom: "starter",
        reasons: [],
      },
    ]);
  });

  it("drift (a refresh): the managed fields the service changed, recorded → live; an undeclared status left alone unless archived", async () => {
    const live = { ...recorded, title: "Changed by hand", description: null, status: "archived", __statusBeforeArchive: "draft" };
    const report = await replay("drift", [
      step("update", "pro", { inputs: declared, outputs: recorded }, { inputs: {}, outputs: live }),
      step("update", "quiet", { inputs: declared, outputs: recorded }, { inputs: {}, outputs: { ...recorded, status: "active" } }),
      step("same", "same", { inputs: declared, outputs: recorded }, { inputs: {}, outputs: recorded }),
    ]);
    expect(report.changes).toEqual([
      {
        key: "pro",
        op: "drift",
        fields: [
          { field: "title", from: "Pro plan", to: "Changed by hand" },
          { field: "description", from: "Everything", to: null },
          { field: "status", from: "draft", to: "archived" },
        ],
        reasons: [],
      },
    ]);
  });

  it("creates and adoptions told apart; each completed create's id passed on at once (up only)", async () => {
    const seen: string[] = [];
    const report = await replay(
      "up",
      [
        step("create", "new", undefined, { inputs: { ...declared, title: "New one" }, outputs: recorded }),
        step("create", "found", undefined, { inputs: { ...declared, adoptId: ID }, outputs: recorded }),
        step(
          "replace",
          "lost",
          { inputs: declared, outputs: { ...recorded, __unconfirmedCreate: { operation: "products.create", at: "x" } } },
          { inputs: { ...declared, adoptId: ID }, outputs: {} },
        ),
      ],
      (key, id) => seen.push(`${key} ${id}`),
    );
    // Every field the create sets, in the contract's order, with no value before.
    expect(report.changes).toEqual([
      {
        key: "new",
        op: "create",
        fields: [
          { field: "title", from: undefined, to: "New one" },
          { field: "description", from: undefined, to: "Everything" },
          { field: "slug", from: undefined, to: "pro" },
        ],
        reasons: [],
      },
      { key: "found", op: "adopt", fields: [], adoptId: ID, reasons: [] },
      { key: "lost", op: "adopt", fields: [], adoptId: ID, reasons: [{ code: "lost-create-adopted" }] },
    ]);
    expect(seen).toEqual([`new ${ID}`]);
  });

  it("a removal says what happens to the record, with each field it sets: archived, given back (never more live), kept", async () => {
    const found = { title: "Theirs", description: null, slug: "theirs", status: "active", externalCheckoutUrl: null };
    // Taken over active; this stack retitled and archived it.
    const set = { ...found, title: "Ours", status: "archived" };
    const taken = { ...recorded, ...set, adoptId: ID, __takenOver: "[secret]" };
    const play = async ({ onEvent }: { onEvent: (e: EngineEvent) => void }) =>
      [
        step("delete", "mine", { inputs: declared, outputs: { ...recorded, status: "active" } }, undefined),
        step("delete", "kept", { inputs: declared, outputs: { ...recorded, onDelete: "retain" } }, undefined),
        step("delete", "theirs", { inputs: declared, outputs: taken }, undefined),
        step("delete", "unread", { inputs: declared, outputs: taken }, undefined),
      ].forEach(onEvent);
    const stack = { preview: play } as unknown as Stack;
    const report = await runOnStack(stack, emptyReport("catalog-a.all", "preview", { product: 4 }, "f"), {
      signal: new AbortController().signal,
      takenOver: new Map([["theirs", { found, set }]]),
    });
    expect(report.changes).toEqual([
      { key: "mine", op: "archive", fields: [{ field: "status", from: "active", to: "archived" }], reasons: [] },
      { key: "kept", op: "retain", fields: [], reasons: [] },
      {
        key: "theirs",
        op: "give-back",
        // The title goes back; the status stays archived: a removal never puts a product back on sale.
        fields: [{ field: "title", from: "Ours", to: "Theirs" }],
        reasons: [{ code: "keeps-status", status: "archived", found: "active" }],
      },
      { key: "unread", op: "give-back", fields: [], reasons: [{ code: "give-back-unread" }] },
    ]);
  });

  it("error diagnostics by key, Pulumi's closing line left out; the stack marked failed", async () => {
    const diag = (message: string, key?: string): EngineEvent =>
      ({
        sequence: 0,
        timestamp: 0,
        diagnosticEvent: { message, color: "never", severity: "error", urn: key && urn(key) },
      }) as unknown as EngineEvent;
    const report = await replay("up", [
      diag("products.create failed: 503 service_unavailable\n\nmore detail\nand more", "pro"),
      diag("update failed"),
    ]);
    expect(report.errors).toEqual(["pro: products.create failed: 503 service_unavailable more detail"]);
    expect(report.status).toBe("failed");
  });
});

describe("a failed CLI run's line in the report", () => {
  // As the Automation API throws it when the CLI exits non-zero: its message starts "code: -2" (execa
  // threw on the exit code) and says nothing; the command's result keeps the CLI's stderr, which ends with
  // its error — here naming the backend with its password.
  const stderr =
    "Command failed with exit code 255: pulumi stack select --stack catalog-a.all --non-interactive\n" +
    "error: unable to open bucket postgres://pulumi:s3cret@127.0.0.1:5432/pulumi?table=t: failed to create table t: pq: duplicate key (23505)\n";
  const cliError = Object.assign(new Error(`code: -2\n stdout: \n stderr: ${stderr}\n err?: Error: Command failed`), {
    commandResult: { stdout: "", stderr, code: -2 },
  });

  it("is the CLI's last stderr line, with the URL's password masked", () => {
    expect(meaningfulLines(cliError)).toEqual([
      "error: unable to open bucket postgres://pulumi:****@127.0.0.1:5432/pulumi?table=t: failed to create table t: pq: duplicate key (23505)",
    ]);
  });

  it("a list of errors, whole: its last line alone says nothing", () => {
    const list =
      "error: 2 errors occurred:\n    1) open /state/.pulumi/locks/organization/p/catalog-a.all/x.json.tmp: read-only file system\n    2) Unknown\n";
    expect(meaningfulLines(Object.assign(new Error("code: 255"), { commandResult: { stdout: "", stderr: list, code: 255 } }))).toEqual([
      "error: 2 errors occurred: 1) open /state/.pulumi/locks/organization/p/catalog-a.all/x.json.tmp: read-only file system 2) Unknown",
    ]);
  });

  it("an error without a command's result: its message's last line", () => {
    expect(meaningfulLines(new Error("select failed\nthe backend is gone"))).toEqual(["the backend is gone"]);
  });
});

describe("a site's steps in the report: taken over, renamed, given back, drifted", () => {
  const SITE_TYPE = "pulumi-nodejs:dynamic/serviceapi:Site";
  const SITE_ID = "75a95ddb-0dfa-5280-aac1-4c3cf8308678";
  const siteUrn = (key: string) => `urn:pulumi:catalog-web.all::serviceapi-catalog::${SITE_TYPE}::${key}`;
  const inputs = (name: string) => ({ projectId: PROJECT, siteId: SITE_ID, name });
  /** A site as its stack holds it: taken over from "Acme Web 001". */
  const held = (name: string) => ({
    ...inputs(name),
    subdomain: "acme-web-001",
    isDefault: true,
    originalName: "Acme Web 001",
    restoreNameOnDelete: true,
    __declared: ["name", "projectId", "siteId"],
    __nameSet: "[secret]",
  });
  const siteStep = (op: string, old?: { inputs: object; outputs: object }, news?: { inputs: object; outputs: object }): EngineEvent =>
    ({
      sequence: 0,
      timestamp: 0,
      resOutputsEvent: {
        metadata: {
          op,
          urn: siteUrn("home"),
          type: SITE_TYPE,
          provider: "",
          old: old && { ...old, urn: siteUrn("home"), type: SITE_TYPE, id: SITE_ID },
          new: news && { ...news, urn: siteUrn("home"), type: SITE_TYPE, id: SITE_ID },
        },
      },
    }) as unknown as EngineEvent;
  const run = async (command: RunCommand, event: EngineEvent, set?: string) => {
    const play = async ({ onEvent }: { onEvent: (e: EngineEvent) => void }) => onEvent(event);
    const stack = { preview: play, up: play, destroy: play, refresh: play, previewRefresh: play } as unknown as Stack;
    const report = await runOnStack(stack, emptyReport("catalog-web.all", command, { site: 1 }, "f"), {
      signal: new AbortController().signal,
      sites: new Map([["home", { id: SITE_ID, fields: { name: "Acme Web 001", subdomain: "acme-web-001", isDefault: true } }]]),
      ...(set !== undefined && { takenOver: new Map([["home", { found: {}, set: { name: set } } as never]]) }),
    });
    return report.changes;
  };

  it("a new entry takes the site over: its name as the tool found it → the declared one; none when they match", async () => {
    expect(await run("preview", siteStep("create", undefined, { inputs: inputs("Acme Home"), outputs: inputs("Acme Home") }))).toEqual([
      {
        key: "home",
        kind: "site",
        op: "adopt",
        adoptId: SITE_ID,
        fields: [{ field: "name", from: "Acme Web 001", to: "Acme Home" }],
        reasons: [],
      },
    ]);
    const same = await run("up", siteStep("create", undefined, { inputs: inputs("Acme Web 001"), outputs: held("Acme Web 001") }));
    expect(same.map((c) => [c.op, c.fields])).toEqual([["adopt", []]]);
  });

  it("a renamed entry: one update of the name, held → declared", async () => {
    const changes = await run(
      "preview",
      siteStep("update", { inputs: inputs("Acme Home"), outputs: held("Acme Home") }, { inputs: inputs("Acme Home 2027"), outputs: {} }),
    );
    expect(changes.map((c) => [c.op, c.fields])).toEqual([["update", [{ field: "name", from: "Acme Home", to: "Acme Home 2027" }]]]);
  });

  it("a removed entry gives the name back while it is the one this stack set, and leaves one changed since", async () => {
    const removed = (name: string) => siteStep("delete", { inputs: inputs("Acme Home"), outputs: held(name) });
    expect((await run("preview", removed("Acme Home"), "Acme Home")).map((c) => [c.op, c.fields, c.reasons])).toEqual([
      ["give-back", [{ field: "name", from: "Acme Home", to: "Acme Web 001" }], []],
    ]);
    // Refreshed: the live name is a person's, not the one this stack set.
    expect((await run("preview", removed("Changed since"), "Acme Home")).map((c) => [c.op, c.fields, c.reasons])).toEqual([
      ["give-back", [], [{ code: "changed-since", fields: ["name"] }]],
    ]);
    // Already as found: nothing to send.
    expect((await run("preview", removed("Acme Web 001"), "Acme Home")).map((c) => [c.op, c.fields])).toEqual([["give-back", []]]);
    const kept = siteStep("delete", { inputs: inputs("Acme Home"), outputs: { ...held("Acme Home"), restoreNameOnDelete: false } });
    expect((await run("preview", kept, "Acme Home")).map((c) => [c.op, c.fields])).toEqual([["retain", []]]);
  });

  it("drift: the name as recorded → as listed; a site no longer listed is gone", async () => {
    const drifted = siteStep(
      "update",
      { inputs: inputs("Acme Home"), outputs: held("Acme Home") },
      { inputs: {}, outputs: held("By hand") },
    );
    expect((await run("drift", drifted)).map((c) => [c.op, c.fields])).toEqual([
      ["drift", [{ field: "name", from: "Acme Home", to: "By hand" }]],
    ]);
    expect((await run("drift", siteStep("delete", { inputs: inputs("Acme Home"), outputs: held("Acme Home") }))).map((c) => c.op)).toEqual([
      "gone",
    ]);
  });
});

describe("a task's steps in the report: created once, a change is a new task, a removal stops nothing", () => {
  const TASK_TYPE = "pulumi-nodejs:dynamic/serviceapi:Task";
  const TASK_ID = "5c0ffee0-0000-4000-8000-000000000001";
  const taskUrn = `urn:pulumi:catalog-web.all::serviceapi-catalog::${TASK_TYPE}::digest`;
  const inputs = (title: string) => ({
    projectId: PROJECT,
    title,
    prompt: "Summarise",
    scheduledAt: "2099-01-05T09:00:00Z",
    rrule: "FREQ=WEEKLY;BYDAY=MO",
  });
  const taskStep = (op: string, old?: object, news?: object): EngineEvent =>
    ({
      sequence: 0,
      timestamp: 0,
      resOutputsEvent: {
        metadata: {
          op,
          urn: taskUrn,
          type: TASK_TYPE,
          provider: "",
          old: old && { inputs: old, outputs: old, urn: taskUrn, type: TASK_TYPE, id: TASK_ID },
          new: news && { inputs: news, outputs: news, urn: taskUrn, type: TASK_TYPE, id: TASK_ID },
        },
      },
    }) as unknown as EngineEvent;
  const run = async (command: RunCommand, event: EngineEvent) => {
    const created: string[] = [];
    const play = async ({ onEvent }: { onEvent: (e: EngineEvent) => void }) => onEvent(event);
    const stack = { preview: play, up: play, destroy: play, refresh: play, previewRefresh: play } as unknown as Stack;
    const report = await runOnStack(stack, emptyReport("catalog-web.all", command, { task: 1 }, "f"), {
      signal: new AbortController().signal,
      onCreated: (key, id, resource) => created.push(`${resource} ${key} ${id}`),
    });
    return {
      changes: report.changes.map((c) => [c.kind, c.op, c.then, c.fields]),
      running: report.changes.map((c) => c.runningId),
      created,
    };
  };

  it("a new entry is one create with every field it is created with; its id said at once", async () => {
    expect(await run("up", taskStep("create", undefined, inputs("Weekly")))).toEqual({
      running: [undefined],
      changes: [
        [
          "task",
          "create",
          undefined,
          [
            { field: "title", to: "Weekly" },
            { field: "prompt", to: "Summarise" },
            { field: "scheduledAt", to: "2099-01-05T09:00:00Z" },
            { field: "rrule", to: "FREQ=WEEKLY;BYDAY=MO" },
          ],
        ],
      ],
      created: [`Task digest ${TASK_ID}`],
    });
  });

  it("a changed entry: a new task (the changed field old → new), the old one kept running; a removal sends nothing", async () => {
    const replaced = await run("preview", taskStep("replace", inputs("Weekly"), inputs("Weekly (v2)")));
    expect(replaced.changes[0]!.slice(0, 3)).toEqual(["task", "replace", "retain"]);
    expect((replaced.changes[0]![3] as object[])[0]).toEqual({ field: "title", from: "Weekly", to: "Weekly (v2)" });
    expect(replaced.running).toEqual([TASK_ID]);
    const removed = await run("preview", taskStep("delete", inputs("Weekly")));
    expect(removed.changes).toEqual([["task", "retain", undefined, []]]);
    // The task left running is named by its id (where to stop it).
    expect(removed.running).toEqual([TASK_ID]);
    // Nothing is ever read back from a task: drift finds nothing.
    expect((await run("drift", taskStep("update", inputs("Weekly"), inputs("Other")))).changes).toEqual([]);
  });
});
