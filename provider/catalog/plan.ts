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
import type { CatalogProduct } from "./catalog";
import type { Discovery, StackFacts } from "./discover";
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
  /** The products its program declares. */
  products: CatalogProduct[];
  /** How many products the stack holds (its state's, or the catalog's for a new stack). */
  size: number;
  /** Why it must not run (up, destroy, refresh): a lock, pending operations. A preview runs it and names them. */
  blocked: string[];
  /** What a reviewer must see on this stack. */
  notes: string[];
  /** URNs an `up` leaves alone: creates whose answer was lost, until the catalog adopts or re-creates them. */
  exclude: string[];
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
  /** Lines about the whole catalog a reviewer must see (keys in two stacks, adoptions of managed products). */
  notes: string[];
}

export function makePlan(discovery: Discovery, options: PlanOptions): Plan {
  const { catalog, stacks } = discovery;
  const prefix = options.stackPrefix;
  const { layout: current, interrupted } = currentLayout(prefix, stacks);
  const target = targetLayout(prefix, current, [...catalog.values()], options.stackSize);
  const notes: string[] = [];

  // Where each product's state is (and where a killed run left it pending).
  const where = new Map<string, string>();
  for (const facts of [...stacks.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    for (const key of [...facts.products.keys(), ...facts.pending.map((p) => p.key)]) {
      const other = where.get(key);
      if (other !== undefined && other !== facts.name) {
        notes.push(
          `${key} is in the state of both ${other} and ${facts.name}: the later one is ignored until one of them no longer holds it`,
        );
        continue;
      }
      where.set(key, facts.name);
    }
  }
  refuseForeignStacks(prefix, discovery, where);
  const blockedBy = new Map([...stacks.values()].map((s) => [s.name, blockers(s)]));
  const isBlocked = (name: string) => (blockedBy.get(name)?.length ?? 0) > 0;

  // Moves: a product in a state elsewhere than its target (never out of or into a blocked stack, never a pending one).
  const moves: Move[] = [];
  const targetOf = new Map<string, string>();
  for (const product of catalog.values()) {
    const to = stackName(prefix, target.stackOf(product)!);
    targetOf.set(product.key, to);
    const from = where.get(product.key);
    if (from === undefined || from === to) continue;
    if (stacks.get(from)!.pending.some((p) => p.key === product.key)) continue;
    if (isBlocked(from) || isBlocked(to)) {
      notes.push(`${product.key} is due to move from ${from} to ${to}, which waits until ${isBlocked(from) ? from : to} is recovered`);
      continue;
    }
    moves.push({ key: product.key, from, to });
  }
  const targetNames = new Set(target.names());
  const legacy = [...stacks.values()].filter((s) => s.id.group === undefined && s.products.size > 0).map((s) => s.name);
  const left = (name: string) =>
    [...stacks.get(name)!.products.keys()].filter((key) => !moves.some((m) => m.key === key && m.from === name));
  const retired = [...stacks.keys()].filter((name) => !targetNames.has(name)).sort();

  // The stacks this command runs.
  const deploy = options.command === "up" || options.command === "split" || options.command === "destroy";
  const runs: StackRun[] = [];
  const run = (name: string, id: StackId, products: CatalogProduct[]): StackRun => {
    const facts = stacks.get(name);
    const entry: StackRun = {
      name,
      id,
      exists: facts !== undefined,
      products,
      // What the stack declares; a stack that declares nothing (emptied, or destroyed) by what its state holds.
      size: products.length > 0 || facts === undefined ? products.length : facts.products.size,
      blocked: blockedBy.get(name) ?? [],
      notes: [],
      exclude: [],
    };
    runs.push(entry);
    return entry;
  };

  if (options.command === "up" || options.command === "split") {
    // On the layout after the moves: each target stack with its products, and each retired stack that still holds some.
    const byTarget = new Map<string, CatalogProduct[]>(target.names().map((n) => [n, []]));
    for (const product of catalog.values()) byTarget.get(targetOf.get(product.key)!)!.push(product);
    for (const id of target.stacks()) run(stackName(prefix, id), id, byTarget.get(stackName(prefix, id))!);
    for (const name of retired) if (left(name).length > 0) run(name, stacks.get(name)!.id, []);
  } else {
    // As things are: a product where its state is; a new one in the stack that covers its hash, or a throw-away one.
    const placed = new Map<string, CatalogProduct[]>([...stacks.keys()].map((n) => [n, []]));
    const fresh = new Map<string, { id: StackId; products: CatalogProduct[] }>();
    // Drift, refresh and destroy concern what is deployed, and nothing else.
    const deployedOnly = options.command === "drift" || options.command === "refresh" || options.command === "destroy";
    for (const product of catalog.values()) {
      const at = where.get(product.key) ?? (deployedOnly ? undefined : coveringStack(stacks, product));
      if (at !== undefined) {
        placed.get(at)!.push(product);
        continue;
      }
      if (deployedOnly) continue;
      const id = target.stackOf(product)!;
      const name = stackName(prefix, id);
      const entry = fresh.get(name) ?? { id, products: [] };
      entry.products.push(product);
      fresh.set(name, entry);
    }
    for (const [name, facts] of [...stacks].sort(([a], [b]) => (a < b ? -1 : 1))) run(name, facts.id, placed.get(name)!);
    for (const [name, { id, products }] of [...fresh].sort(([a], [b]) => (a < b ? -1 : 1))) run(name, id, products);
  }

  // What each stack's reviewers must see.
  // A preview names the moves due, one line per stack they go to (a relayout moves hundreds).
  const movesByPair = new Map<string, Move[]>();
  for (const move of deploy ? [] : moves) {
    const pair = `${move.from}\n${move.to}`;
    movesByPair.set(pair, [...(movesByPair.get(pair) ?? []), move]);
  }
  for (const pair of movesByPair.values()) {
    const keys = pair.map((m) => m.key).sort();
    runs
      .find((r) => r.name === pair[0]!.from)
      ?.notes.push(
        `${list(keys)} ${keys.length === 1 ? "moves" : `(${keys.length}) move`} to ${pair[0]!.to} (their file's stack) at the next split or up: ` +
          "pulumi state move, no request to the service",
      );
  }
  for (const entry of runs) {
    const facts = stacks.get(entry.name);
    const declared = new Map(entry.products.map((p) => [p.key, p]));
    for (const deployed of facts?.products.values() ?? []) {
      if (deployed.unconfirmed) {
        const product = declared.get(deployed.key);
        if (product?.entry.adoptId !== undefined) continue; // adopted by this run: a replacement of the placeholder
        entry.exclude.push(deployed.urn);
        entry.notes.push(inFlight(deployed.key, product, deployed.inputs));
      }
      const others = discovery.elsewhere.get(deployed.id.toLowerCase());
      if (others !== undefined) entry.notes.push(alsoRecorded(deployed.key, others));
    }
    for (const product of entry.products) {
      const adoptId = product.entry.adoptId?.toLowerCase();
      if (adoptId === undefined || facts?.products.has(product.key)) continue;
      const managers = [
        ...(discovery.elsewhere.get(adoptId) ?? []),
        ...[...stacks.values()].flatMap((s) =>
          [...s.products.values()]
            .filter((d) => d.id.toLowerCase() === adoptId && d.key !== product.key)
            .map((d) => ({ stack: s.name, name: d.key })),
        ),
      ];
      if (managers.length === 0) continue;
      const line = adoptsManaged(product, managers, options.adoptManaged);
      if (options.adoptManaged || !deploy) entry.notes.push(line);
      else entry.blocked.push(line);
    }
  }

  return {
    discovery,
    target,
    moves,
    splits: [...interrupted, ...splitsDue(prefix, current, target)].sort((a, b) => (a.from < b.from ? -1 : 1)),
    legacy,
    retired,
    runs: select(runs, options, discovery, where, targetOf, moves),
    notes,
  };
}

/** The stacks a run concerns: all, `--stack`, or those whose products changed since `--base`. */
function select(
  runs: StackRun[],
  options: PlanOptions,
  discovery: Discovery,
  where: Map<string, string>,
  targetOf: Map<string, string>,
  moves: Move[],
): StackRun[] {
  if (options.stacks.length > 0) {
    const byName = new Map(runs.map((r) => [r.name, r]));
    return options.stacks.map((name) => {
      const found = byName.get(name);
      if (found === undefined) {
        const known = runs.map((r) => r.name);
        throw new CatalogError(
          `--stack ${name}: not a stack this ${options.command} runs (${known.length} stack(s)${known.length > 0 ? `, e.g. ${known[0]}` : ""}): run \`serviceapi-catalog plan\` to list them`,
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
    const name = deploy ? targetOf.get(key) : (where.get(key) ?? runs.find((r) => r.products.some((p) => p.key === key))?.name);
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
 * A catalog that shares nothing with the backend's stacks under its prefix — none of its products is
 * in their states, none of its files has a stack there — while they hold products: those stacks are
 * most likely another catalog's (a second team that left out `--stack-prefix`), and any command would
 * treat them as files removed from this one, so an `up` would delete every one of their products.
 * Refused before anything runs. A catalog that really replaces every file at once does it in two
 * runs (the old files removed, then the new ones added), which this never stops.
 */
function refuseForeignStacks(prefix: string, discovery: Discovery, where: Map<string, string>): void {
  const { catalog, stacks } = discovery;
  const held = [...stacks.values()].filter((s) => s.products.size + s.pending.length > 0);
  if (catalog.size === 0 || held.length === 0) return;
  if ([...catalog.keys()].some((key) => where.has(key))) return;
  const groups = new Set([...stacks.values()].map((s) => s.id.group));
  if ([...catalog.values()].some((product) => groups.has(groupOf(product.file)))) return;
  const products = held.reduce((sum, s) => sum + s.products.size + s.pending.length, 0);
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
function targetLayout(prefix: string, current: CatalogLayout, products: CatalogProduct[], maxSize: number): CatalogLayout {
  const groups = new Map<string, Layout>(current.groups);
  for (const [group, members] of byGroup(products)) {
    const layout = groups.get(group);
    groups.set(group, layout === undefined ? Layout.initial(members, maxSize) : layout.grown(members, maxSize).layout);
  }
  return new CatalogLayout(prefix, groups);
}

/** For a product no state holds: the existing stack of its group whose shard covers its hash, the deepest one. */
function coveringStack(stacks: Map<string, StackFacts>, product: CatalogProduct): string | undefined {
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

/** Why an `up` must not run on a stack. */
function blockers(facts: StackFacts): string[] {
  const out: string[] = [];
  if (facts.damaged !== undefined) {
    out.push(
      `its state cannot be loaded (${facts.damaged}): a run was killed while writing it. ` +
        `\`serviceapi-catalog recover --stack ${facts.name}\` repairs it`,
    );
  }
  for (const lock of facts.locks) {
    out.push(
      `LOCKED by ${lock.username}@${lock.hostname} (pid ${lock.pid}) since ${lock.timestamp}: a run on it was killed, or is still running. ` +
        `When no run is left (a killed or cancelled job), \`serviceapi-catalog recover --stack ${facts.name}\` clears it`,
    );
  }
  const creates = facts.pending
    .filter((p) => p.op === "creating")
    .map((p) => p.key)
    .sort();
  const others = facts.pending.filter((p) => p.op !== "creating");
  if (creates.length > 0) {
    out.push(
      `${creates.length} create(s) left pending by a killed run (${list(creates)}): an up now would create them again. ` +
        `\`serviceapi-catalog recover --stack ${facts.name}\` takes in those whose answer the run recorded and names the others`,
    );
  }
  if (others.length > 0) {
    out.push(
      `${others.length} other operation(s) left pending by a killed run (${list(others.map((p) => `${p.key}: ${p.op}`))}): ` +
        `\`serviceapi-catalog recover --stack ${facts.name}\` clears them`,
    );
  }
  return out;
}

function inFlight(key: string, product: CatalogProduct | undefined, inputs: Record<string, unknown>): string {
  const title = typeof inputs.title === "string" ? inputs.title : product?.entry.title;
  const slug = typeof inputs.slug === "string" ? inputs.slug : (product?.entry.slug ?? undefined);
  const file = product === undefined ? "its entry" : `${key} in ${product.file}`;
  return (
    `${key}: in flight, find and adopt — a killed run was creating it and its answer was never recorded; its create may not have reached the service, ` +
    `but one that did is usually processed, so look for it (title ${JSON.stringify(title)}${slug ? `, slug ${JSON.stringify(slug)}` : ""}); it is not created again by itself. ` +
    `Find it in the service's UI (or its id in the killed run's log: \`recover --created-log FILE\`) and add \`adoptId: <its id>\` to ${file}; ` +
    `only if it is certainly not there, \`serviceapi-catalog recover --create-anew ${key}\``
  );
}

function alsoRecorded(key: string, others: { stack: string; name: string }[]): string {
  return (
    `${key}: also recorded by ${others.map((o) => `stack ${o.stack} (as ${o.name})`).join(", ")}: two stacks manage one product and undo ` +
    `each other's changes. Keep it in one: the other sets onDelete: retain, runs up, then removes it`
  );
}

function adoptsManaged(product: CatalogProduct, managers: { stack: string; name: string }[], allowed: boolean): string {
  return (
    `${product.key}: adoptId names a product that ${managers.map((m) => `stack ${m.stack} (as ${m.name})`).join(", ")} already manages; ` +
    (allowed
      ? "allowed by serviceapi:adoptManaged=allow — the two stacks will undo each other's changes until one lets it go"
      : "an up refuses it (the two would undo each other's changes). Let the other stack give it up first (onDelete: retain, up, remove it), " +
        "or pass --config serviceapi:adoptManaged=allow for a hand-over")
  );
}

function list(items: string[]): string {
  return items.length <= 5 ? items.join(", ") : `${items.slice(0, 5).join(", ")} and ${items.length - 5} more`;
}
