/**
 * What a command will do, decided from what was found (`provider/catalog/plan.ts`): the target
 * layout by group, the moves (a split, an entry moved to another file, 0.1's layout), the stacks a
 * deploy or a preview runs with their products, and what stops a stack or must be seen. Pure: a
 * found catalog and backend in, a plan out. The same decisions through the real CLI are in
 * test/engine/catalog*.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { Catalog, CatalogItem } from "../../provider/catalog/catalog";
import type { Deployed, Discovery, StackFacts } from "../../provider/catalog/discover";
import { CatalogError } from "../../provider/catalog/errors";
import { parseStackName } from "../../provider/catalog/layout";
import { makePlan, type Command, type Plan } from "../../provider/catalog/plan";
import { describeReason } from "../../provider/catalog/report";
import { keyBits } from "../../provider/catalog/shards";

const PROJECT = "11111111-2222-4333-8444-555555555555";

function catalogOf(files: Record<string, string[]>, extra: Record<string, Partial<CatalogItem["entry"]>> = {}): Catalog {
  const catalog: Catalog = new Map();
  for (const [file, keys] of Object.entries(files)) {
    for (const key of keys)
      catalog.set(key, { key, file, kind: "product", entry: { projectId: PROJECT, title: key, ...extra[key] } } as CatalogItem);
  }
  return catalog;
}

let ids = 0;
function deployed(key: string, more: Partial<Deployed> = {}): Deployed {
  ids += 1;
  const id = `00000000-0000-4000-8000-${String(ids).padStart(12, "0")}`;
  return {
    key,
    kind: "product",
    urn: `urn:pulumi:s::serviceapi-catalog::pulumi-nodejs:dynamic/serviceapi:Product::${key}`,
    id,
    unconfirmed: false,
    inputs: {},
    outputs: {},
    ...more,
  };
}

function stack(name: string, keys: (string | Deployed)[], more: Partial<StackFacts> = {}): StackFacts {
  const products = new Map(keys.map((k) => (typeof k === "string" ? deployed(k) : k)).map((d) => [d.key, d]));
  return {
    name,
    fullName: `organization/serviceapi-catalog/${name}`,
    ref: { organization: "organization", project: "serviceapi-catalog", stack: name },
    id: parseStackName("catalog-", name)!,
    records: products,
    pending: [],
    locks: [],
    ...more,
  };
}

function discovery(catalog: Catalog, stacks: StackFacts[], more: Partial<Discovery> = {}): Discovery {
  return {
    catalog,
    project: "serviceapi-catalog",
    backend: { url: "file:///b", via: "file", seesLocks: true },
    stacks: new Map(stacks.map((s) => [s.name, s])),
    elsewhere: new Map(),
    ...more,
  };
}

function plan(d: Discovery, command: Command, more: { stackSize?: number; stacks?: string[]; adoptManaged?: boolean } = {}): Plan {
  return makePlan(d, {
    command,
    stackPrefix: "catalog-",
    stackSize: more.stackSize ?? 250,
    stacks: more.stacks ?? [],
    adoptManaged: more.adoptManaged ?? false,
  });
}

/** Each run as `name: keys` (sorted), for compact expectations. */
function runs(p: Plan): Record<string, string[]> {
  return Object.fromEntries(p.runs.map((r) => [r.name, r.items.map((x) => x.key).sort()]));
}

/** Keys whose hash starts with `bits`, from a pool (deterministic: the hash is pinned in shards.test.ts). */
function keysWith(bits: string, count: number, prefix = "k"): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < count; i++) if (keyBits(`${prefix}${i}`).startsWith(bits)) out.push(`${prefix}${i}`);
  return out;
}

describe("a fresh backend", () => {
  it("each file its own stacks: a deploy creates them, a preview runs them in a throw-away backend", () => {
    const catalog = catalogOf({ "plans.yaml": ["pro", "starter"], "add-ons.yaml": ["sso"] });
    const up = plan(discovery(catalog, []), "up");
    expect(runs(up)).toEqual({ "catalog-add-ons.all": ["sso"], "catalog-plans.all": ["pro", "starter"] });
    expect(up.moves).toEqual([]);
    const preview = plan(discovery(catalog, []), "preview");
    expect(runs(preview)).toEqual(runs(up));
    expect(preview.runs.map((r) => r.exists)).toEqual([false, false]);
  });

  it("a group over the stack size starts split by hash, each stack at most the size", () => {
    const zeros = keysWith("0", 3);
    const ones = keysWith("1", 2);
    const up = plan(discovery(catalogOf({ "a.yaml": [...zeros, ...ones] }), []), "up", { stackSize: 3 });
    expect(runs(up)).toEqual({ "catalog-a.0": [...zeros].sort(), "catalog-a.1": [...ones].sort() });
  });
});

describe("moves: a product's stack is where its state is; where it goes is its target", () => {
  it("an entry moved to another file moves to that file's stack before a deploy; a preview runs where it is", () => {
    const catalog = catalogOf({ "a.yaml": ["x"], "b.yaml": ["y", "moved"] });
    const d = discovery(catalog, [stack("catalog-a.all", ["x", "moved"]), stack("catalog-b.all", ["y"])]);
    const up = plan(d, "up");
    expect(up.moves).toEqual([{ key: "moved", from: "catalog-a.all", to: "catalog-b.all" }]);
    expect(runs(up)).toEqual({ "catalog-a.all": ["x"], "catalog-b.all": ["moved", "y"] });
    expect(runs(plan(d, "preview"))).toEqual({ "catalog-a.all": ["moved", "x"], "catalog-b.all": ["y"] });
  });

  it("0.1's stacks (no group in the name): every product moves to its group's stacks, the old stacks retire", () => {
    const catalog = catalogOf({ "plans.yaml": ["pro", "starter"], "add-ons.yaml": ["sso"] });
    const d = discovery(catalog, [stack("catalog-0", ["pro"]), stack("catalog-1", ["starter", "sso"])]);
    const up = plan(d, "up");
    expect(up.legacy).toEqual(["catalog-0", "catalog-1"]);
    expect(up.retired).toEqual(["catalog-0", "catalog-1"]);
    expect(up.moves.sort((a, b) => (a.key < b.key ? -1 : 1))).toEqual([
      { key: "pro", from: "catalog-0", to: "catalog-plans.all" },
      { key: "sso", from: "catalog-1", to: "catalog-add-ons.all" },
      { key: "starter", from: "catalog-1", to: "catalog-plans.all" },
    ]);
    expect(runs(up)).toEqual({ "catalog-add-ons.all": ["sso"], "catalog-plans.all": ["pro", "starter"] });
    // Until then, a preview runs on the stacks as they are.
    expect(runs(plan(d, "preview"))).toEqual({ "catalog-0": ["pro"], "catalog-1": ["sso", "starter"] });
  });

  it("a product removed from the catalog stays in a retired stack until an up of that stack removes it", () => {
    const d = discovery(catalogOf({ "plans.yaml": ["pro"] }), [stack("catalog-all", ["pro", "gone"])]);
    const up = plan(d, "up");
    expect(runs(up)).toEqual({ "catalog-plans.all": ["pro"], "catalog-all": [] });
  });

  it("a split due: the stack over size, its leaves, and only its products move", () => {
    const zeros = keysWith("0", 2, "s");
    const ones = keysWith("1", 2, "s");
    const d = discovery(catalogOf({ "a.yaml": [...zeros, ...ones], "b.yaml": ["other"] }), [
      stack("catalog-a.all", [...zeros, ...ones.slice(0, 1)]),
      stack("catalog-b.all", ["other"]),
    ]);
    const up = plan(d, "up", { stackSize: 3 });
    expect(up.splits).toEqual([{ from: "catalog-a.all", into: ["catalog-a.0", "catalog-a.1"], interrupted: false }]);
    expect(up.moves.map((m) => [m.key, m.to]).sort()).toEqual([...zeros.map((k) => [k, "catalog-a.0"]), [ones[0], "catalog-a.1"]].sort());
    expect(up.retired).toEqual(["catalog-a.all"]);
    // A preview runs before the split, on the stack as it is, the new product there too.
    expect(runs(plan(d, "preview", { stackSize: 3 }))).toEqual({ "catalog-a.all": [...zeros, ...ones].sort(), "catalog-b.all": ["other"] });
  });

  it("an interrupted split (the old stack beside its halves): the rest of its products move, then it retires", () => {
    const [z] = keysWith("0", 1, "i");
    const [o] = keysWith("1", 1, "i");
    const d = discovery(catalogOf({ "a.yaml": [z!, o!] }), [
      stack("catalog-a.all", [o!]),
      stack("catalog-a.0", [z!]),
      stack("catalog-a.1", []),
    ]);
    const up = plan(d, "up", { stackSize: 1 });
    expect(up.splits).toEqual([{ from: "catalog-a.all", into: ["catalog-a.0", "catalog-a.1"], interrupted: true }]);
    expect(up.moves).toEqual([{ key: o, from: "catalog-a.all", to: "catalog-a.1" }]);
    expect(up.retired).toEqual(["catalog-a.all"]);
  });

  it("a stack removed by hand (a hole in its group) is refused, naming the missing stack", () => {
    const d = discovery(catalogOf({ "a.yaml": ["x"] }), [stack("catalog-a.0", [])]);
    expect(() => plan(d, "up")).toThrow(CatalogError);
    expect(() => plan(d, "up")).toThrow(
      "the backend's stacks of group a (catalog-a.0) leave part of it in no stack (catalog-a.1 missing): they must come from this tool's splits. " +
        'Restore the missing stack from a backup of the backend, or see docs/catalog.md ("Stacks")',
    );
  });
});

describe("what stops a stack, and what a reviewer must see", () => {
  it("a lock and pending creates block an up with the way out; a preview runs and names them; no move into or out of it", () => {
    const facts = stack("catalog-a.all", ["x"], {
      locks: [{ key: "k", pid: 2167, username: "root", hostname: "vm", timestamp: "2026-01-02T03:04:05Z" }],
      pending: [
        { key: "p1", kind: "product", urn: "urn:p1", op: "creating", inputs: {} },
        { key: "p2", kind: "product", urn: "urn:p2", op: "creating", inputs: {} },
      ],
    });
    const d = discovery(catalogOf({ "a.yaml": ["x", "p1", "p2"], "b.yaml": ["y"] }), [facts, stack("catalog-b.all", ["y"])]);
    const up = plan(d, "up");
    const blocked = up.runs.find((r) => r.name === "catalog-a.all")!.blocked;
    expect(blocked).toEqual([
      { code: "locked", stack: "catalog-a.all", by: { username: "root", hostname: "vm", pid: 2167, since: "2026-01-02T03:04:05Z" } },
      { code: "pending-creates", stack: "catalog-a.all", keys: ["p1", "p2"] },
    ]);
    expect(blocked.map(describeReason)).toEqual([
      "LOCKED by root@vm (pid 2167) since 2026-01-02T03:04:05Z: a run on it was killed, or is still running. When no run is left (a killed or cancelled job), `serviceapi-catalog recover --stack catalog-a.all` clears it",
      "2 create(s) left pending by a killed run (p1, p2): an up now would create them again. `serviceapi-catalog recover --stack catalog-a.all` takes in those whose answer the run recorded and names the others",
    ]);
    expect(up.runs.find((r) => r.name === "catalog-b.all")!.blocked).toEqual([]);
    expect(plan(d, "preview").runs.find((r) => r.name === "catalog-a.all")!.blocked).toEqual(blocked);
  });

  it("a lost create without adoptId: excluded from an up and named with its title and slug; with adoptId: adopted as usual", () => {
    const lost = deployed("lost", {
      id: "unconfirmed-create-1a2b3c4d",
      unconfirmed: true,
      inputs: { title: "Lost one", slug: "lost-one" },
    });
    const d = discovery(catalogOf({ "a.yaml": ["lost"] }), [stack("catalog-a.all", [lost])]);
    const run = plan(d, "up").runs[0]!;
    expect(run.exclude).toEqual([lost.urn]);
    expect(run.notes).toEqual([
      { code: "lost-create", key: "lost", stack: "catalog-a.all", title: "Lost one", slug: "lost-one", file: "a.yaml" },
    ]);
    expect(run.notes.map(describeReason)).toEqual([
      "lost: in flight, find and adopt — a run sent its create and never recorded the answer (the run was killed, or the connection lost); its create may not have reached the service, " +
        'but one that did is usually processed, so look for it (title "Lost one", slug "lost-one"); it is not created again by itself. ' +
        "Find it in the service's UI (or its id in the killed run's log: `catalog-a.all: created Product \"lost\" <id>`, which `recover --created-log FILE` reads) " +
        "and add `adoptId: <its id>` to lost in a.yaml; only if it is certainly not there, `serviceapi-catalog recover --create-anew lost`",
    ]);
    const adopted = discovery(catalogOf({ "a.yaml": ["lost"] }, { lost: { adoptId: "0b3f2a8e-5b7c-4f1e-9a6d-2c4e8f0a1b3d" } }), [
      stack("catalog-a.all", [lost]),
    ]);
    expect(plan(adopted, "up").runs[0]!).toMatchObject({ exclude: [], notes: [] });
  });

  it("a product another stack also records is named; an adoption of one blocks an up — and its preview, the same way — unless adoptManaged=allow", () => {
    const mine = deployed("pro");
    const theirs = "0b3f2a8e-5b7c-4f1e-9a6d-2c4e8f0a1b3d";
    const elsewhere = new Map([
      [mine.id, [{ stack: "organization/team2/dev", name: "pro-copy" }]],
      [theirs, [{ stack: "organization/team2/dev", name: "theirs" }]],
    ]);
    const catalog = catalogOf({ "a.yaml": ["pro", "taken"] }, { taken: { adoptId: theirs } });
    const d = discovery(catalog, [stack("catalog-a.all", [mine])], { elsewhere });
    const up = plan(d, "up").runs[0]!;
    expect(up.notes).toEqual([
      { code: "managed-elsewhere", key: "pro", managers: [{ stack: "organization/team2/dev", name: "pro-copy" }] },
    ]);
    expect(up.notes.map(describeReason)).toEqual([
      "pro: also recorded by stack organization/team2/dev (as pro-copy): two stacks manage one product and undo each other's changes. Keep it in one: the other sets onDelete: retain, runs up, then removes it",
    ]);
    expect(up.blocked.map(describeReason)).toEqual([
      "taken: adoptId names a product that stack organization/team2/dev (as theirs) already manages; an up refuses it (the two would undo each other's changes). " +
        "Let the other stack give it up first (onDelete: retain, up, remove it), or pass --config serviceapi:adoptManaged=allow for a hand-over",
    ]);
    // Preview ≡ up: the same reason blocks the preview, which runs the rest of the stack without that adoption.
    expect(plan(d, "preview").runs[0]!).toMatchObject({ blocked: up.blocked, withheld: ["taken"] });
    expect(up.withheld).toEqual(["taken"]);
    const allowed = plan(d, "up", { adoptManaged: true }).runs[0]!;
    expect(allowed).toMatchObject({ blocked: [], withheld: [] });
    expect(allowed.notes.map((n) => n.code)).toEqual(["managed-elsewhere", "adopts-managed"]);
  });
});

describe("a renamed key is a move of its state, not an archive and a create", () => {
  const id = "0b3f2a8e-5b7c-4f1e-9a6d-2c4e8f0a1b3d";
  const old = () => deployed("pro", { id, inputs: { title: "pro", projectId: PROJECT, adoptId: id } });

  it("the same adoptId under a new key: the new key takes the old key's state, in its stack — not refused as a product another stack manages", () => {
    const catalog = catalogOf({ "a.yaml": ["pro-plan"] }, { "pro-plan": { adoptId: id } });
    const d = discovery(catalog, [stack("catalog-a.all", [old()])]);
    for (const command of ["preview", "up"] as const) {
      const p = plan(d, command);
      expect(p.renames).toEqual(new Map([["pro-plan", "pro"]]));
      expect(p.runs).toHaveLength(1);
      expect(p.runs[0]).toMatchObject({ name: "catalog-a.all", blocked: [], withheld: [], renames: new Map([["pro-plan", "pro"]]) });
      expect(p.runs[0]!.notes).toEqual([]);
    }
  });

  it("renamedFrom: a product this stack created keeps its record under its new key", () => {
    const made = deployed("basic", { inputs: { title: "basic", projectId: PROJECT } });
    const catalog = catalogOf({ "a.yaml": ["basic-plan"] }, { "basic-plan": { renamedFrom: "basic", title: "basic" } });
    const p = plan(discovery(catalog, [stack("catalog-a.all", [made])]), "up");
    expect(p.renames).toEqual(new Map([["basic-plan", "basic"]]));
    expect(p.moves).toEqual([]);
  });

  it("renamed into another file's group: its state moves to that group's stack under its old key, where the new key takes it", () => {
    const catalog = catalogOf({ "a.yaml": ["x"], "b.yaml": ["pro-plan", "y"] }, { "pro-plan": { adoptId: id } });
    const d = discovery(catalog, [stack("catalog-a.all", ["x", old()]), stack("catalog-b.all", ["y"])]);
    const up = plan(d, "up");
    expect(up.moves).toEqual([{ key: "pro", from: "catalog-a.all", to: "catalog-b.all" }]);
    expect(up.runs.find((r) => r.name === "catalog-b.all")!.renames).toEqual(new Map([["pro-plan", "pro"]]));
    // A preview runs where the state is: the new key in the old key's stack.
    expect(runs(plan(d, "preview"))).toEqual({ "catalog-a.all": ["pro-plan", "x"], "catalog-b.all": ["y"] });
  });

  it("no link: a removed key and an added one with the same fields are named as a likely rename; a link by adoptId to a key still in the catalog is not a rename", () => {
    const made = deployed("basic", { inputs: { title: "Basic", slug: "basic", projectId: PROJECT } });
    const catalog = catalogOf({ "a.yaml": ["basic-plan"] }, { "basic-plan": { title: "Basic", slug: "basic" } });
    const p = plan(discovery(catalog, [stack("catalog-a.all", [made])]), "preview");
    expect(p.renames.size).toBe(0);
    expect(p.runs[0]!.notes).toEqual([{ code: "rename-candidate", key: "basic-plan", from: "basic" }]);
    expect(describeReason(p.runs[0]!.notes[0]!)).toBe(
      "basic-plan has the same fields as basic, which the catalog no longer has: as they are, basic is removed and basic-plan created. " +
        "If it is a rename, add `renamedFrom: basic` to basic-plan's entry: the record is kept, nothing is sent",
    );
    const both = catalogOf({ "a.yaml": ["pro", "pro-plan"] }, { "pro-plan": { adoptId: id } });
    const kept = plan(discovery(both, [stack("catalog-a.all", [old()])]), "up");
    expect(kept.renames.size).toBe(0);
    expect(kept.runs[0]!.blocked.map((r) => r.code)).toEqual(["adopts-managed"]);
  });
});

describe("which stacks run", () => {
  it("--base: the stacks of the changed keys (where they are for a preview, where they go for an up)", () => {
    const catalog = catalogOf({ "a.yaml": ["x", "new"], "b.yaml": ["y"], "c.yaml": ["z"] });
    const d = discovery(catalog, [stack("catalog-a.all", ["x"]), stack("catalog-b.all", ["y", "gone"]), stack("catalog-c.all", ["z"])], {
      change: { added: ["new"], changed: [], moved: [], removed: ["gone"] },
    });
    expect(Object.keys(runs(plan(d, "preview")))).toEqual(["catalog-a.all", "catalog-b.all"]);
    expect(Object.keys(runs(plan(d, "up")))).toEqual(["catalog-a.all", "catalog-b.all"]);
  });

  it("--stack: those stacks, or a refusal naming how to list them", () => {
    const d = discovery(catalogOf({ "a.yaml": ["x"], "b.yaml": ["y"] }), [stack("catalog-a.all", ["x"]), stack("catalog-b.all", ["y"])]);
    expect(Object.keys(runs(plan(d, "up", { stacks: ["catalog-b.all"] })))).toEqual(["catalog-b.all"]);
    expect(() => plan(d, "up", { stacks: ["catalog-zz.all"] })).toThrow(
      "--stack catalog-zz.all: the catalog has no such stack (it has 2, e.g. catalog-a.all): run `serviceapi-catalog plan` to list them",
    );
  });

  it("drift and refresh run only stacks that exist, with the products they hold", () => {
    const d = discovery(catalogOf({ "a.yaml": ["x", "new"], "b.yaml": ["fresh"] }), [stack("catalog-a.all", ["x"])]);
    expect(runs(plan(d, "drift"))).toEqual({ "catalog-a.all": ["x"] });
    expect(runs(plan(d, "refresh"))).toEqual({ "catalog-a.all": ["x"] });
    expect(runs(plan(d, "preview"))).toEqual({ "catalog-a.all": ["new", "x"], "catalog-b.all": ["fresh"] });
  });
});

describe("another catalog's stacks under the same prefix", () => {
  const theirs = () => [stack("catalog-plans.all", ["pro", "starter"]), stack("catalog-bulk.all", ["bulk-1", "bulk-2", "bulk-3"])];

  it.each<Command>(["plan", "preview", "up", "drift", "refresh", "destroy", "split"])(
    "%s of a catalog sharing no product and no file with them is refused, naming the stacks and the setting",
    (command) => {
      const d = discovery(catalogOf({ "docs-team.yaml": ["guide", "manual"] }), theirs());
      expect(() => plan(d, command)).toThrow(
        new CatalogError(
          `the backend's stacks under --stack-prefix "catalog-" (catalog-bulk.all, catalog-plans.all; 5 products) hold none of this ` +
            "catalog's products, and none of its files has a stack there: they look like another catalog's, and this run would treat them " +
            "as removed files (an up deletes their products). Give this catalog a prefix of its own (--stack-prefix, the same in every run) " +
            "or another --project; if it really replaces all of those files, remove them in one up and add the new files in the next",
        ),
      );
    },
  );

  it("not refused: one product in common (moved to a new file), one file in common (every entry renamed), or stacks that hold nothing", () => {
    const moved = plan(discovery(catalogOf({ "docs-team.yaml": ["guide", "pro"] }), theirs()), "up");
    expect(moved.moves).toEqual([{ key: "pro", from: "catalog-plans.all", to: "catalog-docs-team.all" }]);
    const renamed = plan(discovery(catalogOf({ "plans.yaml": ["pro-2024"] }), theirs()), "up");
    expect(runs(renamed)).toMatchObject({ "catalog-plans.all": ["pro-2024"], "catalog-bulk.all": [] });
    const empty = plan(discovery(catalogOf({ "docs-team.yaml": ["guide"] }), [stack("catalog-plans.all", [])]), "up");
    expect(runs(empty)["catalog-docs-team.all"]).toEqual(["guide"]);
  });
});
