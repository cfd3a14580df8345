/**
 * A `file://` backend read directly (`provider/backend/`), on backends the real Pulumi CLI laid out
 * (test/backend/fixtures/make-fixtures.sh says how; the files are its output, verbatim): the
 * project-scoped layout with two projects, a gzip and a zstd checkpoint, a stack with no deployment,
 * an `up` killed with SIGKILL (pending creates and the lock it held), and the legacy layout. Each
 * stack's state is what `pulumi stack export` printed of it (fixtures/exports/), and what a user
 * looks for is asserted word for word: the ids, the pending creates, who holds the lock.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { StateBackendError, fullName, openStateBackend, type StackRef, type StateBackend } from "../../provider/backend";
import { exportState } from "../../provider/backend/checkpoint";
import { fileRoot } from "../../provider/backend/file";
import { rejectionOf } from "../../scripts/engine/async";

const FIXTURES = join(__dirname, "fixtures");
const ref = (project: string, stack: string): StackRef => ({ organization: "organization", project, stack });
/** What `pulumi stack export` printed of a fixture stack, as the reader shapes it. */
const exported = (name: string) => exportState(readFileSync(join(FIXTURES, "exports", `${name}.json`), "utf8"));

describe("the project-scoped layout", () => {
  let backend: StateBackend;
  beforeAll(async () => {
    backend = await openStateBackend({ url: `file://${join(FIXTURES, "project")}` });
  });
  afterAll(() => backend.close());

  it("is read directly, locks included, and names itself by its URL", () => {
    expect({ url: backend.url, via: backend.via, seesLocks: backend.seesLocks }).toEqual({
      url: `file://${join(FIXTURES, "project")}`,
      via: "file",
      seesLocks: true,
    });
  });

  it("lists every stack of every project, by full name; or one project's", async () => {
    expect((await backend.stacks()).map(fullName)).toEqual([
      "organization/shop/dev",
      "organization/shop/empty",
      "organization/shop/prod",
      "organization/tools/gz",
      "organization/tools/zst",
    ]);
    expect(await backend.stacks("tools")).toEqual([ref("tools", "gz"), ref("tools", "zst")]);
    expect(await backend.stacks("nothing")).toEqual([]);
  });

  it("a finished up: each resource's URN, type and id, as `pulumi stack export` shows them; a secret stays ciphertext", async () => {
    const state = (await backend.state(ref("shop", "dev")))!;
    expect(state).toEqual(exported("shop-dev"));
    expect(state.resources.map((r) => [r.urn.split("::").pop(), r.type, r.id])).toEqual([
      ["shop-dev", "pulumi:pulumi:Stack", undefined],
      ["default", "pulumi:providers:pulumi-nodejs", "ac13fa5c-f653-483e-904e-2dede527a67f"],
      ["thing1", "pulumi-nodejs:dynamic:Resource", "723c7d44-cd79-4991-a4dc-1b1e00b56d65"],
      ["thing0", "pulumi-nodejs:dynamic:Resource", "7888f664-b610-47dc-b02b-8195860a3543"],
    ]);
    expect(state.pending).toEqual([]);
    const thing0 = state.resources[3]!;
    expect(thing0.outputs).toMatchObject({ label: "thing 0", made: true });
    expect(thing0.inputs.note).toEqual({
      "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
      ciphertext: "v1:8msc70wty8JcbUBR:9VakTEnQM6dV3nMr79w+YF205ezNAGED",
    });
  });

  it("an up killed with SIGKILL: what it made, the creates it left pending, and the lock its CLI held", async () => {
    const state = (await backend.state(ref("shop", "prod")))!;
    expect(state).toEqual(exported("shop-prod"));
    expect(state.resources.map((r) => [r.urn.split("::").pop(), r.id])).toEqual([
      ["shop-prod", undefined],
      ["default", "1dbb02ef-63cc-480a-954a-88679f83bcb7"],
      ["thing1", "63dff65f-f1e1-464d-bcfc-f2b328cbbddc"],
      ["thing0", "459b0820-c77c-44ce-b94a-db526a2660eb"],
    ]);
    expect(state.pending.map((op) => [op.type, op.resource.urn, op.resource.id, op.resource.inputs.label])).toEqual([
      ["creating", "urn:pulumi:prod::shop::pulumi-nodejs:dynamic:Resource::waiting0", undefined, "waiting 0"],
      ["creating", "urn:pulumi:prod::shop::pulumi-nodejs:dynamic:Resource::waiting1", undefined, "waiting 1"],
    ]);
    expect(await backend.locks(ref("shop", "prod"))).toEqual([
      {
        key: ".pulumi/locks/organization/shop/prod/e6625162-e3a7-442b-8018-4e813ba10dd1.json",
        pid: 28754,
        username: "root",
        hostname: "vm",
        timestamp: "2026-11-27T19:44:49.226698318Z",
      },
    ]);
    expect(await backend.locks(ref("shop", "dev"))).toEqual([]);
  });

  it("a stack with no deployment yet: empty lists; a stack that does not exist: undefined", async () => {
    expect(await backend.state(ref("shop", "empty"))).toEqual({ resources: [], pending: [] });
    expect(exported("shop-empty")).toEqual({ resources: [], pending: [] });
    expect(await backend.state(ref("shop", "staging"))).toBeUndefined();
    expect(await backend.state(ref("elsewhere", "dev"))).toBeUndefined();
    // Not a name Pulumi gives a stack: nothing is looked up outside the backend.
    expect(await backend.state(ref("..", "dev"))).toBeUndefined();
    expect(await backend.locks(ref("shop", "../prod"))).toEqual([]);
  });

  it("gzip (PULUMI_DIY_BACKEND_GZIP) and zstd (PULUMI_DIY_BACKEND_ZSTD) checkpoints read as the CLI reads them", async () => {
    for (const stack of ["gz", "zst"]) {
      const state = (await backend.state(ref("tools", stack)))!;
      expect(state).toEqual(exported(`tools-${stack}`));
      expect(state.resources.map((r) => r.urn.split("::").pop()).sort()).toEqual(["default", "thing0", "thing1", `tools-${stack}`]);
    }
  });
});

describe("the legacy layout (no projects)", () => {
  it('lists its stacks with project "", for any project asked, as `pulumi stack ls --project` does; reads them by bare name', async () => {
    const backend = await openStateBackend({ url: `file://${join(FIXTURES, "legacy")}?no_tmp_dir=true` });
    try {
      const old = { organization: "organization", project: "", stack: "old" };
      expect(await backend.stacks()).toEqual([old]);
      expect(await backend.stacks("shop")).toEqual([old]);
      expect(fullName(old)).toBe("old");
      expect(await backend.state(old)).toEqual(exported("old"));
      expect((await backend.state(old))!.resources.map((r) => r.urn.split("::").pop()).sort()).toEqual([
        "default",
        "shop-old",
        "thing0",
        "thing1",
      ]);
      expect(await backend.state(ref("shop", "old"))).toBeUndefined();
      expect(await backend.locks(old)).toEqual([]);
    } finally {
      await backend.close();
    }
  });
});

describe("what a backend's folder may hold otherwise", () => {
  let dir: string;
  /** A copy of the fixture backend, removed when the test that made it ends (a test may make none). */
  const copy = () => {
    dir = mkdtempSync(join(tmpdir(), "state-backend-"));
    const made = dir;
    onTestFinished(() => rmSync(made, { recursive: true, force: true }));
    cpSync(join(FIXTURES, "project"), dir, { recursive: true });
    return dir;
  };

  it("a meta.yaml of a version it does not know: read through the CLI (a newer CLI may know it), where no lock is seen", async () => {
    writeFileSync(join(copy(), ".pulumi", "meta.yaml"), "version: 2\n");
    const backend = await openStateBackend({ url: `file://${dir}` });
    expect({ via: backend.via, seesLocks: backend.seesLocks, url: backend.url }).toEqual({
      via: "cli",
      seesLocks: false,
      url: `file://${dir}`,
    });
    expect(await backend.locks(ref("shop", "prod"))).toEqual([]);
  });

  it("the catalog tool's create journal beside a stack's state: its file in the folder, read, removed; Pulumi's listing unchanged", async () => {
    const backend = await openStateBackend({ url: `file://${copy()}` });
    const prod = ref("shop", "prod");
    const path = join(dir, ".pulumi", "serviceapi", "journal", "shop", "prod.jsonl");
    expect(backend.journalPath(prod)).toBe(path);
    expect(await backend.journal(prod)).toBeUndefined();
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, '{"v":1,"op":"run"}\n');
    expect(await backend.journal(prod)).toBe('{"v":1,"op":"run"}\n');
    expect((await backend.stacks()).map(fullName)).toContain("organization/shop/prod");
    expect((await backend.stacks()).length).toBe(5);
    await backend.removeJournal(prod);
    expect(existsSync(path)).toBe(false);
    await backend.removeJournal(prod);
    // Read through the CLI (a layout this reader does not know), the tool keeps no journal: its up keeps the checkpoints.
    writeFileSync(join(dir, ".pulumi", "meta.yaml"), "version: 2\n");
    const viaCli = await openStateBackend({ url: `file://${dir}` });
    expect([viaCli.journalPath(prod), await viaCli.journal(prod)]).toEqual([undefined, undefined]);
  });

  it("a lock file that is not JSON: one line naming the backend, the stack and the file", async () => {
    const lock = join(copy(), ".pulumi", "locks", "organization", "shop", "prod", "e6625162-e3a7-442b-8018-4e813ba10dd1.json");
    writeFileSync(lock, "");
    const backend = await openStateBackend({ url: `file://${dir}` });
    const error = await rejectionOf(backend.locks(ref("shop", "prod")), StateBackendError);
    expect(error.message).toBe(
      `the state backend file://${dir} cannot be read: reading the locks of organization/shop/prod: not JSON (Unexpected end of JSON input)`,
    );
  });

  it("a checkpoint cut short: one line naming the stack and the file", async () => {
    const state = join(copy(), ".pulumi", "stacks", "shop", "dev.json");
    writeFileSync(state, readFileSync(state, "utf8").slice(0, 100));
    const backend = await openStateBackend({ url: `file://${dir}` });
    const error = await rejectionOf(backend.state(ref("shop", "dev")), StateBackendError);
    expect(error.message).toMatch(
      new RegExp(
        `^the state backend file://${dir} cannot be read: reading the stack organization/shop/dev \\(\\.pulumi/stacks/shop/dev\\.json\\): not JSON \\(.+\\)$`,
      ),
    );
  });

  it("a folder that is not there: refused at open, as `pulumi login` refuses it", async () => {
    const missing = join(tmpdir(), "state-backend-missing", "state");
    const error = await rejectionOf(openStateBackend({ url: `file://${missing}` }), StateBackendError);
    expect(error.message).toBe(`the state backend file://${missing} cannot be read: ENOENT: no such file or directory, stat '${missing}'`);
  });
});

describe("which backend, without a URL", () => {
  it("PULUMI_BACKEND_URL of the given environment, as the CLI takes it first: no CLI is asked (there is none here)", async () => {
    const url = `file://${join(FIXTURES, "legacy")}`;
    const backend = await openStateBackend({ env: { PULUMI_BACKEND_URL: url }, pulumi: "/nonexistent/pulumi" });
    expect({ url: backend.url, via: backend.via }).toEqual({ url, via: "file" });
    expect((await backend.stacks()).map(fullName)).toEqual(["old"]);
  });
});

describe("file:// URLs, as Pulumi resolves them", () => {
  it("an absolute path, the home folder (~, ~/x), a relative path; query parameters ignored", () => {
    const home = userInfo().homedir;
    expect(fileRoot("file:///var/state?no_tmp_dir=true", "/work")).toBe("/var/state");
    expect(fileRoot("file://~", "/work")).toBe(home);
    expect(fileRoot("file://~/state", "/work")).toBe(join(home, "state"));
    expect(fileRoot("file://./state", "/work")).toBe("/work/state");
  });
});
