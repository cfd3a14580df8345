/**
 * Stage 2: what a command will do, decided from what `discover.ts` found — no request, no write.
 *
 * - **The target layout**: each group's stacks as the backend has them, split where a stack would
 *   hold more than `--stack-size` (`layout.ts`, `shards.ts`); a group with no stack yet starts with
 *   as many as it needs.
 * - **Where each product is** is what the states say (a product's state is the truth, wherever the
 *   layout would put it now), and where it goes is its target stack. A product whose state is in
 *   another stack than its target is a **move**, made with `pulumi state move` before an `up` (or by
 *   `split`), with no request to the service: a split, an entry moved to another file, or a stack of
 *   the layout of 0.1. A stack the layout no longer has is removed once empty.
 * - **Which stacks run**, each with the products its program declares: a deploy (`up`) after the
 *   moves, on the target layout; a preview, drift or refresh on the stacks as they are (it moves
 *   nothing), with a product that has no stack yet previewed in a stack of a throw-away backend.
 * - **What stops a stack** and what a reviewer must see: a lock or pending operations left by a
 *   killed run (an `up` on such a stack would make duplicates: it does not run), a create whose
 *   answer was lost, a product that a stack outside the catalog also records.
 */
import { TASK, scheduleFailures } from "../resources/task";
import { adoptIdOf, refuseProblems, type Catalog, type CatalogItem } from "./catalog";
import type { Manager, Reason } from "./changes";
import { countByKind, KIND, type Kind } from "./kinds";
import type { Discovery, Pending, StackFacts } from "./discover";
import { CatalogError } from "./errors";
import { byGroup, CatalogLayout, groupOf, stackName, type StackId } from "./layout";
import { keyBits, Layout, type Shard } from "./shards";

export type Command = "plan" | "preview" | "up" | "drift" | "refresh" | "destroy" | "split";

export interface PlanOptions {
  command: Command;
  stackPrefix: string;
  stackSize: number;
  /** `--stack`: only these stacks. */
  stacks: string[];
  base?: string;
  /** `--config serviceapi:adoptManaged=allow`: an adoption of a product another stack records is allowed. */
  adoptManaged: boolean;
}

export interface Move {
  key: string;
  from: string;
  to: string;
}

/** One stack's part in the run. */
export interface StackRun {
  name: string;
  id: StackId;
  /** In the backend now (a preview of a stack that does not exist yet runs in a throw-away backend). */
  exists: boolean;
  /** The records its program declares. */
  items: CatalogItem[];
  /** How many records of each kind the stack holds (what it declares; a stack that declares none, what its state holds). */
  size: Partial<Record<Kind, number>>;
  /** Why it must not run (up, destroy, refresh): a lock, pending operations. A preview runs it and names them. */
  blocked: Reason[];
  /** What a reviewer must see on this stack. */
  notes: Reason[];
  /** URNs an `up` leaves alone: creates whose answer was lost, until the catalog adopts or re-creates them. */
  exclude: string[];
  /**
   * Keys its program leaves out: an adoption that blocks the stack (`adopts-managed`), a create a
   * killed run left pending. An up does not run the stack; a preview runs the rest of it, as the
   * up after the block is lifted would.
   */
  withheld: string[];
  /** Renamed keys among its products: the new key → the key its state holds (the program declares an alias). */
  renames: Map<string, string>;
  /**
   * Keys of products it takes over (`adoptId`, not in its state yet): its preview reads each live
   * product, with an empty PATCH (the API's only read of one), so it needs a token that may update products.
   */
  adopting: string[];
}

export interface Split {
  from: string;
  into: string[];
  interrupted: boolean;
}

export interface Plan {
  discovery: Discovery;
  /** The layout after the moves: the stacks a deploy runs on. */
  target: CatalogLayout;
  /** State moves due before a deploy (`pulumi state move`, no request to the service). */
  moves: Move[];
  /** Splits among the moves, for the report: a stack and the stacks its products go to. */
  splits: Split[];
  /** Stacks of the layout of 0.1 (no group in the name) still holding products. */
  legacy: string[];
  /** Stacks the layout no longer has, removed once the moves (and an `up` of what is left in them) empty them. */
  retired: string[];
  /** The stacks this command runs, by name. */
  runs: StackRun[];
  /** What a reviewer must see about the whole catalog (keys in two stacks, moves that wait). */
  notes: Reason[];
  /** Renamed keys: the new key → the key the states hold it under (`adoptId` kept, or `renamedFrom`). */
  renames: Map<string, string>;
}

export function makePlan(discovery: Discovery, options: PlanOptions): Plan {
  const { catalog, stacks } = discovery;
  const prefix = options.stackPrefix;
  const { layout: current, interrupted } = currentLayout(prefix, stacks);
  const target = targetLayout(prefix, current, [...catalog.values()], options.stackSize);
  const notes: Reason[] = [];

  // Where each product's state is (and where a killed run left it pending).
  const where = new Map<string, string>();
  for (const facts of [...stacks.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    for (const key of [...facts.records.keys(), ...facts.pending.map((p) => p.key)]) {
      const other = where.get(key);
      if (other !== undefined && other !== facts.name) {
        notes.push({ code: "in-two-stacks", key, kept: other, ignored: facts.name });
        continue;
      }
      where.set(key, facts.name);
    }
  }
  refuseForeignStacks(prefix, discovery, where);
  const renames = findRenames(discovery, where);
  refuseDeadSchedules(discovery, renames);
  /** The key a catalog product's state is held under: its own, or the one it is renamed from. */
  const stateKey = (key: string) => renames.get(key) ?? key;
  const blockedBy = new Map([...stacks.values()].map((s) => [s.name, blockers(s, discovery.catalog)]));
  const isBlocked = (name: string) => (blockedBy.get(name)?.length ?? 0) > 0;

  // Moves: a product in a state elsewhere than its target (never out of or into a blocked stack, never a pending one).
  // A renamed product moves under the key its state holds; its new key is declared, with an alias, in the stack it moves to.
  const moves: Move[] = [];
  const targetOf = new Map<string, string>();
  for (const product of catalog.values()) {
    const to = stackName(prefix, target.stackOf(product)!);
    targetOf.set(product.key, to);
    const held = stateKey(product.key);
    const from = where.get(held);
    if (from === undefined || from === to) continue;
    if (stacks.get(from)!.pending.some((p) => p.key === held)) continue;
    if (isBlocked(from) || isBlocked(to)) {
      notes.push({ code: "move-waits", key: product.key, from, to, waitsFor: isBlocked(from) ? from : to });
      continue;
    }
    moves.push({ key: held, from, to });
  }
  const targetNames = new Set(target.names());
  const legacy = [...stacks.values()].filter((s) => s.id.group === undefined && s.records.size > 0).map((s) => s.name);
  const left = (name: string) =>
    [...stacks.get(name)!.records.keys()].filter((key) => !moves.some((m) => m.key === key && m.from === name));
  const retired = [...stacks.keys()].filter((name) => !targetNames.has(name)).sort();

  // The stacks this command runs.
  const runs: StackRun[] = [];
  const run = (name: string, id: StackId, items: CatalogItem[]): StackRun => {
    const facts = stacks.get(name);
    const entry: StackRun = {
      name,
      id,
      exists: facts !== undefined,
      items,
      // What the stack declares; a stack that declares nothing (emptied, or destroyed) by what its state holds.
      size: countByKind(items.length > 0 || facts === undefined ? items : [...facts.records.values()]),
      blocked: [...(blockedBy.get(name) ?? [])],
      notes: [],
      exclude: [],
      withheld: [],
      adopting: [],
      renames: new Map(items.filter((p) => renames.has(p.key)).map((p) => [p.key, renames.get(p.key)!])),
    };
    runs.push(entry);
    return entry;
  };

  if (options.command === "up" || options.command === "split") {
    // On the layout after the moves: each target stack with its products, and each retired stack that still holds some.
    const byTarget = new Map<string, CatalogItem[]>(target.names().map((n) => [n, []]));
    for (const product of catalog.values()) byTarget.get(targetOf.get(product.key)!)!.push(product);
    for (const id of target.stacks()) run(stackName(prefix, id), id, byTarget.get(stackName(prefix, id))!);
    for (const name of retired) if (left(name).length > 0) run(name, stacks.get(name)!.id, []);
  } else {
    // As things are: a product where its state is; a new one in the stack that covers its hash, or a throw-away one.
    const placed = new Map<string, CatalogItem[]>([...stacks.keys()].map((n) => [n, []]));
    const fresh = new Map<string, { id: StackId; items: CatalogItem[] }>();
    // Drift, refresh and destroy concern what is deployed, and nothing else.
    const deployedOnly = options.command === "drift" || options.command === "refresh" || options.command === "destroy";
    for (const product of catalog.values()) {
      const at = where.get(stateKey(product.key)) ?? (deployedOnly ? undefined : coveringStack(stacks, product));
      if (at !== undefined) {
        placed.get(at)!.push(product);
        continue;
      }
      if (deployedOnly) continue;
      const id = target.stackOf(product)!;
      const name = stackName(prefix, id);
      const entry = fresh.get(name) ?? { id, items: [] };
      entry.items.push(product);
      fresh.set(name, entry);
    }
    for (const [name, facts] of [...stacks].sort(([a], [b]) => (a < b ? -1 : 1))) run(name, facts.id, placed.get(name)!);
    for (const [name, { id, items }] of [...fresh].sort(([a], [b]) => (a < b ? -1 : 1))) run(name, id, items);
  }

  for (const entry of runs) {
    const facts = stacks.get(entry.name);
    // Each record the stack declares, by the key its state holds it under.
    const declared = new Map(entry.items.map((p) => [stateKey(p.key), p]));
    for (const deployed of facts?.records.values() ?? []) {
      if (deployed.unconfirmed) {
        const product = declared.get(deployed.key);
        if (adoptIdOf(product?.entry) !== undefined) continue; // adopted by this run: a replacement of the placeholder
        entry.exclude.push(deployed.urn);
        entry.notes.push(lostCreate(entry.name, deployed.key, product, deployed.inputs, deployed.kind));
      }
      const others = discovery.elsewhere.get(deployed.id.toLowerCase());
      if (others !== undefined) entry.notes.push({ code: "managed-elsewhere", key: deployed.key, managers: others });
    }
    for (const product of entry.items) {
      // Products only: the backend's other stacks are read for the products they record (`discover.ts`).
      const adoptId = product.kind === "product" ? adoptIdOf(product.entry)?.toLowerCase() : undefined;
      if (adoptId === undefined || facts?.records.has(stateKey(product.key))) continue;
      entry.adopting.push(product.key);
      const managers: Manager[] = [
        ...(discovery.elsewhere.get(adoptId) ?? []),
        ...[...stacks.values()].flatMap((s) =>
          [...s.records.values()]
            .filter((d) => d.id.toLowerCase() === adoptId && d.key !== stateKey(product.key))
            .map((d) => ({ stack: s.name, name: d.key })),
        ),
      ];
      if (managers.length === 0) continue;
      // The same words and the same exit code in a preview and in the up it previews (preview ≡ up).
      const reason: Reason = { code: "adopts-managed", key: product.key, managers, allowed: options.adoptManaged };
      if (options.adoptManaged) entry.notes.push(reason);
      else {
        entry.blocked.push(reason);
        entry.withheld.push(product.key);
      }
    }
    entry.notes.push(...renameCandidates(entry, facts, catalog, renames));
    // Most of a stack's records removed at once: another team's catalog with the same file names and prefix, a folder emptied by mistake.
    if (facts !== undefined) {
      const kept = new Set(entry.items.map((p) => stateKey(p.key)));
      const leaving = new Set(moves.filter((m) => m.from === entry.name).map((m) => m.key));
      const removed = [...facts.records.keys()].filter((key) => !kept.has(key) && !leaving.has(key)).length;
      if (removed >= MASS_REMOVAL.count && removed >= facts.records.size * MASS_REMOVAL.share)
        entry.notes.push({ code: "removes-most", stack: entry.name, removed, total: facts.records.size });
    }
    // A create a killed run left pending is in flight, not to be made: its stack's preview shows the rest
    // (recover takes it in, or names it as a lost create; no up makes it again).
    for (const pending of facts?.pending ?? [])
      if (pending.op === "creating" && entry.items.some((p) => stateKey(p.key) === pending.key) && !entry.withheld.includes(pending.key))
        entry.withheld.push(entry.items.find((p) => stateKey(p.key) === pending.key)!.key);
  }

  return {
    discovery,
    target,
    moves,
    splits: [...interrupted, ...splitsDue(prefix, current, target)].sort((a, b) => (a.from < b.from ? -1 : 1)),
    legacy,
    retired,
    runs: select(runs, options, discovery, where, targetOf, moves, renames),
    notes,
    renames,
  };
}

/**
 * Keys renamed with their record kept: a new key whose state is still under an old key that the
 * catalog no longer has — linked by `renamedFrom: OLD`, or by the same `adoptId` as the record the
 * old key's state holds. The new key takes the old one's state (an alias in its stack's program:
 * no request, nothing archived or created); without a link, the two are an archive and a create,
 * and `renameCandidates` points the link out.
 */
function findRenames(discovery: Discovery, where: Map<string, string>): Map<string, string> {
  const { catalog, stacks } = discovery;
  const renames = new Map<string, string>();
  const byId = new Map<string, string[]>();
  for (const facts of stacks.values())
    for (const d of facts.records.values())
      if (!d.unconfirmed) byId.set(d.id.toLowerCase(), [...(byId.get(d.id.toLowerCase()) ?? []), d.key]);
  const taken = new Set<string>();
  for (const product of [...catalog.values()].sort((a, b) => (a.key < b.key ? -1 : 1))) {
    if (where.has(product.key)) continue; // already in a state under its own key
    const link = product.entry.renamedFrom;
    const adoptId = adoptIdOf(product.entry);
    const candidates = link !== undefined ? [link] : adoptId !== undefined ? (byId.get(adoptId.toLowerCase()) ?? []) : [];
    const from = candidates.filter((key) => !catalog.has(key) && where.has(key) && !taken.has(key));
    if (from.length !== 1) continue;
    renames.set(product.key, from[0]!);
    taken.add(from[0]!);
  }
  return renames;
}

/**
 * A key the catalog no longer has, in this stack, and a new key with the same fields and no link:
 * the stack will archive the one and create the other, which is seldom what a rename means.
 */
function renameCandidates(
  entry: StackRun,
  facts: StackFacts | undefined,
  catalog: Map<string, CatalogItem>,
  renames: Map<string, string>,
): Reason[] {
  if (facts === undefined) return [];
  const linked = new Set(renames.values());
  const removed = [...facts.records.values()].filter((d) => !catalog.has(d.key) && !linked.has(d.key) && !d.unconfirmed);
  const reasons: Reason[] = [];
  for (const product of entry.items) {
    if (facts.records.has(product.key) || renames.has(product.key) || adoptIdOf(product.entry) !== undefined) continue;
    const twin = removed.find((d) => d.kind === product.kind && sameFields(product, d.inputs));
    if (twin !== undefined) reasons.push({ code: "rename-candidate", key: product.key, from: twin.key });
  }
  return reasons;
}

/**
 * The entry's fields equal the inputs a state holds: its resource's inputs but those that say
 * which record or project it is (a name or subdomain here, an id in the state) or what removal does.
 */
function sameFields(item: CatalogItem, inputs: Record<string, unknown>): boolean {
  const compared = Object.keys(KIND[item.kind].fields.inputs).filter((k) => !IDENTITY.includes(k));
  const entry = item.entry as unknown as Record<string, unknown>;
  const differs = compared.filter((k) => JSON.stringify(entry[k] ?? null) !== JSON.stringify(inputs[k] ?? null));
  return differs.length === 0 && compared.some((k) => entry[k] !== undefined);
}
const IDENTITY = ["projectId", "siteId", "adoptId", "onDelete", "restoreNameOnDelete"];

/** The stacks a run concerns: all, `--stack`, or those whose products changed since `--base`. */
function select(
  runs: StackRun[],
  options: PlanOptions,
  discovery: Discovery,
  where: Map<string, string>,
  targetOf: Map<string, string>,
  moves: Move[],
  renames: Map<string, string>,
): StackRun[] {
  if (options.stacks.length > 0) {
    const byName = new Map(runs.map((r) => [r.name, r]));
    return options.stacks.map((name) => {
      const found = byName.get(name);
      if (found === undefined) {
        const known = runs.map((r) => r.name);
        throw new CatalogError(
          `--stack ${name}: the catalog has no such stack (it has ${known.length}${known.length > 0 ? `, e.g. ${known[0]}` : ""}): run \`serviceapi-catalog plan\` to list them`,
        );
      }
      return found;
    });
  }
  const change = discovery.change;
  if (change === undefined) return runs;
  const deploy = options.command === "up";
  const touched = new Set<string>();
  for (const key of [...change.added, ...change.changed]) {
    const name = deploy
      ? targetOf.get(key)
      : (where.get(renames.get(key) ?? key) ?? runs.find((r) => r.items.some((p) => p.key === key))?.name);
    if (name !== undefined) touched.add(name);
  }
  for (const key of change.removed) {
    const name = where.get(key);
    if (name !== undefined) touched.add(name);
  }
  // An entry moved to another group's file: its stack now (a preview shows the move there) and, for a deploy, its stack after.
  for (const key of change.moved) {
    const name = where.get(key);
    if (name !== undefined) touched.add(name);
    if (deploy && targetOf.has(key)) touched.add(targetOf.get(key)!);
  }
  if (deploy) for (const move of moves) touched.add(move.to);
  return runs.filter((r) => touched.has(r.name));
}

/**
 * A task entry that an up would create (new, or changed: every change is a new task) must run at
 * least once: its schedule judged now, by the Task's own rule (`scheduleFailures`), before any stack
 * runs — not by its stack's preview, after other stacks' changes. A task the stacks hold unchanged is
 * not judged again (a series that ended since must not stop every later run).
 */
function refuseDeadSchedules(discovery: Discovery, renames: Map<string, string>): void {
  const recorded = new Map<string, Record<string, unknown>>();
  for (const stack of discovery.stacks.values()) for (const [key, record] of stack.records) recorded.set(key, record.inputs ?? {});
  const problems: string[] = [];
  for (const item of discovery.catalog.values()) {
    if (item.kind !== "task" || item.entry.adoptId !== undefined) continue;
    const held = recorded.get(renames.get(item.key) ?? item.key);
    const entry = item.entry as unknown as Record<string, unknown>;
    const creates = held === undefined || TASK.created.map(TASK.property).some((f) => (held[f] ?? null) !== (entry[f] ?? null));
    if (!creates) continue;
    for (const failure of scheduleFailures(item.entry.scheduledAt, item.entry.rrule ?? undefined))
      problems.push(`${item.file}: ${item.key}: ${failure.reason}`);
  }
  refuseProblems(problems);
}

/**
 * A catalog that shares nothing with the backend's stacks under its prefix — none of its products is
 * in their states, none of its files has a stack there — while they hold products: those stacks are
 * most likely another catalog's (a second team that left out `--stack-prefix`), and any command would
 * treat them as files removed from this one, so an `up` would delete every one of their products.
 * Refused before anything runs. A catalog that really replaces every file at once does it in two
 * runs (the old files removed, then the new ones added), which this never stops.
 */
function refuseForeignStacks(prefix: string, discovery: Discovery, where: Map<string, string>): void {
  const { catalog, stacks } = discovery;
  const held = [...stacks.values()].filter((s) => s.records.size + s.pending.length > 0);
  if (catalog.size === 0 || held.length === 0) return;
  if ([...catalog.keys()].some((key) => where.has(key))) return;
  const groups = new Set([...stacks.values()].map((s) => s.id.group));
  if ([...catalog.values()].some((product) => groups.has(groupOf(product.file)))) return;
  const products = held.reduce((sum, s) => sum + s.records.size + s.pending.length, 0);
  throw new CatalogError(
    `the backend's stacks under --stack-prefix ${JSON.stringify(prefix)} (${list(held.map((s) => s.name).sort())}; ${products} products) ` +
      `hold none of this catalog's products, and none of its files has a stack there: they look like another catalog's, and this run ` +
      `would treat them as removed files (an up deletes their products). Give this catalog a prefix of its own (--stack-prefix, the same ` +
      `in every run) or another --project; if it really replaces all of those files, remove them in one up and add the new files in the next`,
  );
}

/** Each group's layout as the backend holds it, and the stacks of 0.1's layout; a group with a hole is refused. */
function currentLayout(prefix: string, stacks: Map<string, StackFacts>): { layout: CatalogLayout; interrupted: Split[] } {
  const shardsByGroup = new Map<string, Shard[]>();
  for (const { id } of stacks.values()) {
    if (id.group === undefined) continue;
    shardsByGroup.set(id.group, [...(shardsByGroup.get(id.group) ?? []), id.shard]);
  }
  const groups = new Map<string, Layout>();
  const interrupted: Split[] = [];
  for (const [group, shards] of shardsByGroup) {
    const { layout, holes, interrupted: cut } = Layout.fromShards(shards);
    for (const [shard, leaves] of cut) {
      interrupted.push({
        from: stackName(prefix, { group, shard }),
        into: leaves.map((leaf) => stackName(prefix, { group, shard: leaf })),
        interrupted: true,
      });
    }
    if (holes.length > 0) {
      const found = new Layout(shards).shards.map((shard) => stackName(prefix, { group, shard }));
      throw new CatalogError(
        `the backend's stacks of group ${group} (${found.join(", ")}) leave part of it in no stack ` +
          `(${holes.map((shard) => stackName(prefix, { group, shard })).join(", ")} missing): they must come from this tool's splits. ` +
          `Restore the missing stack from a backup of the backend, or see docs/catalog.md ("Stacks")`,
      );
    }
    groups.set(group, layout);
  }
  return { layout: new CatalogLayout(prefix, groups), interrupted };
}

/** The layout after the splits that are due: each group's leaves grown by its products; a new group starts as it needs. */
function targetLayout(prefix: string, current: CatalogLayout, products: CatalogItem[], maxSize: number): CatalogLayout {
  const groups = new Map<string, Layout>(current.groups);
  for (const [group, members] of byGroup(products)) {
    const layout = groups.get(group);
    groups.set(group, layout === undefined ? Layout.initial(members, maxSize) : layout.grown(members, maxSize).layout);
  }
  return new CatalogLayout(prefix, groups);
}

/** For a product no state holds: the existing stack of its group whose shard covers its hash, the deepest one. */
function coveringStack(stacks: Map<string, StackFacts>, product: CatalogItem): string | undefined {
  const group = groupOf(product.file);
  const bits = keyBits(product.key);
  const covering = [...stacks.values()]
    .filter((s) => s.id.group === group && bits.startsWith(s.id.shard))
    .sort((a, b) => b.id.shard.length - a.id.shard.length);
  return covering[0]?.name;
}

/** Splits due, group by group: a stack that would hold more than its size, and the stacks it becomes. */
function splitsDue(prefix: string, current: CatalogLayout, target: CatalogLayout): Split[] {
  const out: Split[] = [];
  for (const [group, layout] of current.groups) {
    const grown = target.groups.get(group)!;
    for (const shard of layout.shards) {
      const into = grown.shards.filter((s) => s !== shard && s.startsWith(shard));
      if (into.length > 0) {
        out.push({
          from: stackName(prefix, { group, shard }),
          into: into.map((s) => stackName(prefix, { group, shard: s })),
          interrupted: false,
        });
      }
    }
  }
  return out;
}

/** A removal worth a reviewer's second look: at least this many records, and this share of the stack's. */
const MASS_REMOVAL = { count: 10, share: 0.5 };

/** Why an `up` must not run on a stack. */
function blockers(facts: StackFacts, catalog: Catalog): Reason[] {
  const out: Reason[] = [];
  const stack = facts.name;
  if (facts.damaged !== undefined) out.push({ code: "state-unloadable", stack, detail: facts.damaged });
  for (const lock of facts.locks)
    out.push({ code: "locked", stack, by: { username: lock.username, hostname: lock.hostname, pid: lock.pid, since: lock.timestamp } });
  // A journaled create of a key the catalog dropped since: recover cannot take it in (`recover.ts`), so the way out differs.
  const undeclared = (p: Pending) => p.journaled === true && catalog.get(p.key)?.kind !== p.kind;
  const creates = facts.pending
    .filter((p) => p.op === "creating" && !undeclared(p))
    .map((p) => p.key)
    .sort();
  const dropped = facts.pending.filter(undeclared).map((p) => ({ key: p.key, ...(p.id !== undefined && { id: p.id }) }));
  if (dropped.length > 0) out.push({ code: "pending-undeclared", stack, keys: dropped });
  const others = facts.pending.filter((p) => p.op !== "creating").map((p) => ({ key: p.key, op: p.op }));
  if (creates.length > 0) out.push({ code: "pending-creates", stack, keys: creates });
  if (others.length > 0) out.push({ code: "pending-operations", stack, operations: others });
  return out;
}

/** A create whose answer was lost, with what a person searches for in the service's UI. */
export function lostCreate(
  stack: string,
  key: string,
  product: CatalogItem | undefined,
  inputs: Record<string, unknown>,
  kind: Kind | undefined = product?.kind,
): Extract<Reason, { code: "lost-create" }> {
  const entry = product?.entry as { title?: string; slug?: string | null } | undefined;
  const title = typeof inputs.title === "string" ? inputs.title : entry?.title;
  const slug = typeof inputs.slug === "string" ? inputs.slug : (entry?.slug ?? undefined);
  return {
    code: "lost-create",
    key,
    stack,
    ...(title !== undefined && { title }),
    ...(slug !== undefined && slug !== null && { slug }),
    ...(product !== undefined && { file: product.file }),
    ...(kind === "task" && { kind }),
  };
}

function list(items: string[]): string {
  return items.length <= 5 ? items.join(", ") : `${items.slice(0, 5).join(", ")} and ${items.length - 5} more`;
}

/** How many of each kind. */
