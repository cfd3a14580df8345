/**
 * The preview is the contract (issue 42): every kind of catalog change a team makes, each run as
 * `preview --json` and then `up --json` from the same state, with the real CLI against the
 * simulator — the same exit code, the same lines (each product's operation and fields before →
 * after, each stack's blocking reasons) in both reports, the simulator's writes during the up equal
 * to those the preview announced, and the preview itself writing nothing (`parity-support.ts`).
 *
 * Ordered steps on one catalog of three files (terraform-provider-tfe's acceptance-test style), 27
 * kinds of change: creates (every field, archived at birth), adoptions, each field changed,
 * archive, un-archive, a field cleared, onDelete alone, a project changed; removals of a created
 * product, of adopted ones unchanged, changed, changed since on the service (`--refresh`: left as
 * it is) and archived (which stays archived), with
 * onDelete: retain; a key renamed with its adoptId, with `renamedFrom`, one removed and another
 * added with the same fields (archive + create, pointed out), an entry moved to another file; an
 * adoption of a product another stack manages (blocked both times), a lost create, a locked stack,
 * bad input (refused both times).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { ServiceApiClient } from "../../provider";
import type { PlannedChange } from "../../provider/catalog/changes";
import { describeReason } from "../../provider/catalog/report";
import { DEFAULT_IDS } from "../../simulator/seed";
import { simulator } from "../helpers";
import { ENGINE_TIMEOUT_MS, pulumiCli } from "../../scripts/engine/driver";
import { CatalogUser, type Entry } from "./catalog-support";
import { parity } from "./parity-support";
import { step } from "./suite";

const WEB = "Acme Web";

describe("the preview is the contract: preview and up of the same change agree", { timeout: ENGINE_TIMEOUT_MS * 4 }, () => {
  let sim: Simulator;
  let user: CatalogUser;
  let client: ServiceApiClient;
  /** Products made on the service by someone else, for adoptions: key → id. */
  const found = new Map<string, string>();

  beforeAll(async () => {
    await pulumiCli();
    sim = await simulator();
    user = await CatalogUser.create(sim);
    client = new ServiceApiClient({ baseUrl: sim.url, token: sim.token });
    for (const [key, status] of [
      ["found-same", "draft"],
      ["found-changed", "draft"],
      ["found-archived", "active"],
      ["found-renamed", "active"],
      ["found-drifted", "draft"],
    ] as const) {
      const made = await client.createProduct({ projectId: DEFAULT_IDS.acmeWeb, title: `Found ${key}`, slug: key });
      if (status !== "draft") await client.updateProduct(made.id, { status });
      found.set(key, made.id);
    }
  }, 30 * 60_000);

  afterAll(async () => {
    await client?.close();
    user?.dispose();
  });

  /** The project id a change's entry names (a removed entry has none: its writes are PATCHes of its record). */
  const projectId = (change: PlannedChange) => {
    const entry = Object.values(user.files).find((file) => file[change.key] !== undefined)?.[change.key];
    return entry?.project === "Acme Docs" ? DEFAULT_IDS.acmeDocs : DEFAULT_IDS.acmeWeb;
  };
  const edit = (file: string, change: (entries: Record<string, Entry>) => void) => {
    user.files[file] ??= {};
    change(user.files[file]!);
    user.writeCatalog();
  };
  const opsOf = (changes: PlannedChange[]) => Object.fromEntries(changes.map((c) => [c.key, c.op]));
  const changesOf = (run: Awaited<ReturnType<typeof parity>>) => run.previewReport!.results.flatMap((r) => r.changes);

  it("27 kinds of change: the same exit code, the same lines, the writes announced", async () => {
    await step("1. the first deploy: creates with every field, one archived at birth; adoptions, one of them archiving", async () => {
      edit("a.yaml", (a) => {
        a.t = { project: WEB, title: "T" };
        a.d = { project: WEB, title: "D", description: "Before" };
        a.s = { project: WEB, title: "S", slug: "s-before" };
        a.st = { project: WEB, title: "St", status: "draft" };
        a.u = { project: WEB, title: "U", externalCheckoutUrl: "https://shop.example.com/u" };
        a.arch = { project: WEB, title: "Arch", status: "active" };
        a.unarch = { project: WEB, title: "Unarch", status: "archived" };
        a.clr = { project: WEB, title: "Clr", description: "To clear" };
        a.od = { project: WEB, title: "Od" };
        a.proj = { project: WEB, title: "Proj" };
        a.gone = { project: WEB, title: "Gone", status: "active" };
        a.ret = { project: WEB, title: "Ret", onDelete: "retain" };
        a.ren = { project: WEB, title: "Ren" };
        a.twin = { project: WEB, title: "Twin", slug: "twin" };
        a.mv = { project: WEB, title: "Mv" };
        a["adopt-same"] = { project: WEB, title: "Found found-same", slug: "found-same", adoptId: found.get("found-same")! };
        a["adopt-changed"] = { project: WEB, title: "Ours", slug: "found-changed", adoptId: found.get("found-changed")! };
        a["adopt-archived"] = {
          project: WEB,
          title: "Found found-archived",
          slug: "found-archived",
          status: "archived",
          adoptId: found.get("found-archived")!,
        };
        a["adopt-renamed"] = { project: WEB, title: "Found found-renamed", slug: "found-renamed", adoptId: found.get("found-renamed")! };
        a["adopt-drifted"] = { project: WEB, title: "Ours drifted", slug: "found-drifted", adoptId: found.get("found-drifted")! };
      });
      edit("b.yaml", (b) => {
        b.b1 = { project: WEB, title: "B1" };
      });
      const run = await parity(user, sim, "first deploy", projectId);
      expect(run.up.code).toBe(0);
      expect(opsOf(changesOf(run))).toMatchObject({ t: "create", unarch: "create", "adopt-same": "adopt", "adopt-archived": "adopt" });
      // The adoption that archives says so, live → declared.
      expect(changesOf(run).find((c) => c.key === "adopt-archived")!.fields).toEqual([{ field: "status", from: "active", to: "archived" }]);
      expect(changesOf(run).find((c) => c.key === "adopt-changed")!.fields).toEqual([
        { field: "title", from: "Found found-changed", to: "Ours" },
      ]);
      user.git("add", ".");
      user.git("commit", "-qm", "first deploy");
    });

    await step("2. each field changed, archived, un-archived, a field cleared, onDelete alone, a project changed", async () => {
      edit("a.yaml", (a) => {
        a.t!.title = "T after";
        a.d!.description = "After";
        a.s!.slug = "s-after";
        a.st!.status = "active";
        a.u!.externalCheckoutUrl = "https://shop.example.com/u-after";
        a.arch!.status = "archived";
        a.unarch!.status = "active";
        delete a.clr!.description;
        a.od!.onDelete = "retain";
        a.proj!.project = "Acme Docs";
      });
      const run = await parity(user, sim, "fields", projectId);
      const changes = Object.fromEntries(changesOf(run).map((c) => [c.key, c]));
      expect(opsOf(changesOf(run))).toEqual({
        t: "update",
        d: "update",
        s: "update",
        st: "update",
        u: "update",
        arch: "update",
        unarch: "update",
        clr: "update",
        od: "state",
        proj: "replace",
      });
      // A product cannot change projects: a new one, every field shown, and the old one archived.
      expect(changes.proj).toMatchObject({
        then: "archive",
        fields: [
          { field: "projectId", from: DEFAULT_IDS.acmeWeb, to: DEFAULT_IDS.acmeDocs },
          { field: "title", to: "Proj" },
        ],
      });
      expect(changes.unarch!.fields).toEqual([{ field: "status", from: "archived", to: "active" }]);
      expect(changes.clr!.fields).toEqual([{ field: "description", from: "To clear", to: null }]);
      expect(changes.od!.fields).toEqual([{ field: "onDelete", from: "archive", to: "retain", stackOnly: true }]);
      // Counts are writes: eight PATCHes, a POST and an archive for the replacement, one change the stack records alone.
      expect(run.writes).toHaveLength(10);
      expect(run.up.code).toBe(0);
      user.git("commit", "-qam", "fields");
    });

    await step(
      "3. removals: a created product archived; adopted ones given back — unchanged, changed, changed since on the service, archived (stays archived); onDelete: retain",
      async () => {
        edit("a.yaml", (a) => {
          delete a.gone;
          delete a.ret;
          delete a["adopt-same"];
          delete a["adopt-changed"];
          delete a["adopt-archived"];
          delete a["adopt-drifted"];
        });
        // Someone retitles one on the service: the give-back leaves that title, which only a read of the service shows.
        await client.updateProduct(found.get("found-drifted")!, { title: "Theirs" });
        const run = await parity(user, sim, "removals", projectId, ["--refresh"]);
        const changes = Object.fromEntries(changesOf(run).map((c) => [c.key, c]));
        expect(opsOf(changesOf(run))).toEqual({
          gone: "archive",
          ret: "retain",
          "adopt-same": "give-back",
          "adopt-changed": "give-back",
          "adopt-archived": "give-back",
          "adopt-drifted": "give-back",
        });
        expect(changes["adopt-drifted"]).toMatchObject({ fields: [], reasons: [{ code: "changed-since", fields: ["title"] }] });
        expect((await client.updateProduct(found.get("found-drifted")!, {})).title).toBe("Theirs");
        expect(changes.gone!.fields).toEqual([{ field: "status", from: "active", to: "archived" }]);
        expect(changes["adopt-same"]!.fields).toEqual([]);
        expect(changes["adopt-changed"]!.fields).toEqual([{ field: "title", from: "Ours", to: "Found found-changed" }]);
        // The clean-up PR that put a retired product back on sale (issue 42, 1): it stays archived, and the preview says so.
        expect(changes["adopt-archived"]).toMatchObject({
          fields: [],
          reasons: [{ code: "keeps-status", status: "archived", found: "active" }],
        });
        expect(run.preview.stdout).not.toContain('"status":"active"');
        expect((await client.updateProduct(found.get("found-archived")!, {})).status).toBe("archived");
        user.git("commit", "-qam", "removals");
      },
    );

    await step(
      "4. renames: a key with its adoptId kept, one with renamedFrom, an entry moved to another file; an unlinked twin pointed out",
      async () => {
        edit("a.yaml", (a) => {
          a["adopt-renamed-2"] = a["adopt-renamed"]!;
          delete a["adopt-renamed"];
          a["ren-2"] = { ...a.ren!, renamedFrom: "ren" };
          delete a.ren;
          a["twin-2"] = a.twin!;
          delete a.twin;
          delete a.mv;
        });
        edit("b.yaml", (b) => {
          b.mv = { project: WEB, title: "Mv" };
        });
        const run = await parity(user, sim, "renames", projectId);
        const changes = changesOf(run);
        expect(opsOf(changes)).toEqual({ "adopt-renamed-2": "rename", "ren-2": "rename", twin: "archive", "twin-2": "create", mv: "move" });
        expect(changes.find((c) => c.key === "ren-2")).toMatchObject({ renamedFrom: "ren", fields: [] });
        const notes = run.previewReport!.results.flatMap((r) => r.notes);
        expect(notes.map(describeReason)).toContain(
          "twin-2 has the same fields as twin, which the catalog no longer has: as they are, twin is removed and twin-2 created. " +
            "If it is a rename, add `renamedFrom: twin` to twin-2's entry: the record is kept, nothing is sent",
        );
        expect(run.upReport!.results.map((r) => r.status)).toEqual(run.upReport!.results.map(() => "ok"));
        user.git("add", ".");
        user.git("commit", "-qm", "renames");
      },
    );

    await step(
      "5. an adoption of a product another stack manages: the preview fails as the up does, the same line, nothing written",
      async () => {
        const managed = user.products().get("b1")!.id;
        edit("c.yaml", (c) => {
          c.taken = { project: WEB, title: "Taken", adoptId: managed };
        });
        const run = await parity(user, sim, "managed elsewhere", projectId);
        expect(run.preview.code).toBe(1);
        const blocked = run.previewReport!.results.find((r) => r.stack === "catalog-c.all")!.blocked;
        expect(blocked.map((r) => r.code)).toEqual(["adopts-managed"]);
        expect(run.writes).toEqual([]);
        edit("c.yaml", (c) => {
          delete c.taken;
        });
      },
    );

    await step("6. a lost create (its answer never came): named the same way by both, left out of the up, nothing written", async () => {
      edit("b.yaml", (b) => {
        b.lost = { project: WEB, title: "Lost", slug: "lost" };
      });
      // The create reaches the service, and its answer is lost on the way back.
      sim.addFault({ operation: "products.create", kind: "reset", when: "after" });
      const lost = await user.tool(["up"]);
      expect(lost.code).toBe(1);
      sim.clearFaults();
      const run = await parity(user, sim, "lost create", projectId);
      expect(run.up.code).toBe(0);
      const notes = run.previewReport!.results.flatMap((r) => r.notes);
      expect(notes.filter((n) => n.code === "lost-create").map((n) => (n as { key: string }).key)).toEqual(["lost"]);
      expect(run.writes).toEqual([]);
    });

    await step("7. a locked stack: both fail on it with the same line, and nothing is written to it", async () => {
      const lock = join(user.backendDir, ".pulumi", "locks", "organization", "serviceapi-catalog", "catalog-b.all");
      mkdirSync(lock, { recursive: true });
      writeFileSync(
        join(lock, "7f0c7a38-2f0e-4d55-9a37-4c0a0d3b8e11.json"),
        JSON.stringify({ pid: 2167, username: "runner", hostname: "ci-7", timestamp: "2026-11-27T03:02:01.000000000Z" }),
      );
      edit("b.yaml", (b) => {
        b.b1!.title = "B1 while locked";
      });
      const run = await parity(user, sim, "locked", projectId);
      expect(run.preview.code).toBe(1);
      expect(run.writes).toEqual([]);
    });

    await step("8. bad input: refused before any stack by both, the same line, nothing sent", async () => {
      edit("b.yaml", (b) => {
        b.bad = { project: WEB, title: "" };
      });
      const run = await parity(user, sim, "bad input", projectId);
      expect(run.preview.code).toBe(2);
      expect(run.preview.stderr).toContain("b.yaml: bad: title must be 1 to 1024 characters long (got 0)");
    });
  });
});
