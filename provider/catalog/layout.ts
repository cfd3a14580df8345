/**
 * The catalog's stacks: groups, each split by hash (`shards.ts`), and their names.
 *
 * A **group** is one entry directly in the catalog folder: a file (`plans.yaml` → `plans`) or a
 * folder (a folder `teams` → `teams`, every file below it). Each group has stacks of its own, so a pull
 * request that adds products to one file touches only that file's stacks — about N ÷ stack size + 1
 * of them — instead of every stack of the catalog (keys hashed over the whole catalog land
 * everywhere). Within a group the key's hash decides, so adding a product never moves another.
 *
 * Stack names are `<prefix><group>.<shard>`: `catalog-plans.all` (the whole group),
 * `catalog-plans.0`, `catalog-plans.10`, … The shard is always the last dot-separated part, so a
 * group's name may hold dots too. A name is derived from the catalog and the backend's stack list
 * alone, so every runner agrees on it with no layout file.
 *
 * Stacks named `<prefix><shard>` (no group: `catalog-0`, `catalog-all`) are the layout of 0.1, one
 * hash space for the whole catalog. They keep working: their products are found where they are, and
 * move into their groups' stacks with `pulumi state move` at the next `split` or `up` (`plan.ts`).
 */
import { keyBits, Layout, type Keyed, type Shard } from "./shards";

/** The root shard's name in a stack name. */
const ROOT = "all";
/** A group's name: dot-separated parts of letters, digits, `_` and `-` (it is part of every stack name). */
const GROUP = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;
/** Stack names are limited to 100 characters; the prefix takes up to 80, a shard a dozen. */
export const MAX_GROUP = 40;
const EXTENSION = /\.(ya?ml|json)$/i;

/** A stack of the catalog: its group (undefined for a stack of 0.1's layout) and its shard in it. */
export interface StackId {
  group?: string;
  shard: Shard;
}

export function stackName(prefix: string, id: StackId): string {
  const shard = id.shard === "" ? ROOT : id.shard;
  return id.group === undefined ? `${prefix}${shard}` : `${prefix}${id.group}.${shard}`;
}

/** The stack a name stands for, or `undefined` for a stack that is not one of the catalog's. A backend may list `org/project/name`. */
export function parseStackName(prefix: string, stack: string): StackId | undefined {
  const name = stack.split("/").pop()!;
  if (!name.startsWith(prefix)) return undefined;
  const rest = name.slice(prefix.length);
  const shardOf = (text: string): Shard | undefined => (text === ROOT ? "" : /^[01]{1,64}$/.test(text) ? text : undefined);
  const dot = rest.lastIndexOf(".");
  if (dot < 0) {
    const shard = shardOf(rest);
    return shard === undefined ? undefined : { shard };
  }
  const group = rest.slice(0, dot);
  const shard = shardOf(rest.slice(dot + 1));
  return shard === undefined || !GROUP.test(group) ? undefined : { group, shard };
}

/** The group of a catalog file (its path relative to the catalog folder): the entry directly in the folder, without its extension. */
export function groupOf(file: string): string {
  const [top, ...below] = file.split(/[\\/]/);
  return below.length > 0 ? top! : top!.replace(EXTENSION, "");
}

/**
 * Groups that cannot name stacks: a name with other characters or too long, or two entries giving
 * one group (`plans.yaml` and `plans.json`, or `plans.yaml` and a folder `plans`). One line each, naming
 * the files; checked with the catalog, before anything runs.
 */
export function groupProblems(files: Iterable<string>): string[] {
  const byGroup = new Map<string, Set<string>>();
  for (const file of files) {
    const top = file.split(/[\\/]/)[0]!;
    const entry = file.includes("/") || file.includes("\\") ? `${top}/` : top;
    const group = groupOf(file);
    byGroup.set(group, (byGroup.get(group) ?? new Set()).add(entry));
  }
  const problems: string[] = [];
  for (const [group, entries] of byGroup) {
    const names = [...entries].sort().join(" and ");
    if (!GROUP.test(group) || group.length > MAX_GROUP) {
      problems.push(
        `${names}: a file or folder directly in the catalog folder names its stacks, so its name (without .yaml/.json) must be ` +
          `letters, digits, '-', '_' and single dots, at most ${MAX_GROUP} characters: rename it`,
      );
    } else if (entries.size > 1) {
      problems.push(`${names}: both give the stacks of group "${group}"; rename one of them`);
    }
  }
  return problems;
}

/** A product's place: its key and the file it is declared in. */
export interface Placed extends Keyed {
  file: string;
}

/** The stacks of every group: the catalog's layout. */
export class CatalogLayout {
  constructor(
    readonly prefix: string,
    readonly groups: ReadonlyMap<string, Layout>,
  ) {}

  /** Every stack of the layout, by group then shard. */
  stacks(): StackId[] {
    return [...this.groups.keys()].sort().flatMap((group) => this.groups.get(group)!.shards.map((shard) => ({ group, shard })));
  }

  names(): string[] {
    return this.stacks().map((id) => stackName(this.prefix, id));
  }

  /** The stack that holds `product` in this layout, or undefined when its group has no stack yet. */
  stackOf(product: Placed): StackId | undefined {
    const group = groupOf(product.file);
    const layout = this.groups.get(group);
    return layout === undefined ? undefined : { group, shard: layout.shardOf(product.key) };
  }

  /** Whether `id`'s stack holds `key`'s hash (same group, shard a prefix of the key's bits). */
  static covers(id: StackId, product: Placed): boolean {
    return id.group === groupOf(product.file) && keyBits(product.key).startsWith(id.shard);
  }
}

/** Products by group. */
export function byGroup<T extends Placed>(products: Iterable<T>): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const product of products) {
    const group = groupOf(product.file);
    const list = out.get(group);
    if (list === undefined) out.set(group, [product]);
    else list.push(product);
  }
  return out;
}
