/**
 * Which stack holds which product: stable by construction.
 *
 * A product's place is the SHA-256 of its key, read as bits. A stack is a bit prefix — `0`, `10`,
 * `11` — and holds every key whose hash starts with it; the stacks' prefixes cover every hash
 * exactly once (a binary trie's leaves, as in extendible hashing). So:
 *  - adding or removing products never moves another product: its hash, and so its stack, is the same;
 *  - a stack that grows past `maxSize` splits in two (`0` → `00` and `01`), and only its own products
 *    move, half of them, with `pulumi state move` (`split.ts`); no other stack is touched;
 *  - the layout needs no file of its own: it is the set of stacks in the backend (`<prefix><bits>`),
 *    so every runner, every branch and every re-run agrees on it.
 * A fresh catalog starts from one stack holding everything and splits until no stack is over size.
 */
import { createHash } from "node:crypto";
import type { Catalog, CatalogProduct } from "./catalog";
import { CatalogError } from "./errors";

/** The suffix of the one stack that holds every product (the empty prefix). */
const ROOT = "all";

/** A stack's share of the hash space: a string of `0`/`1`, empty for the root. */
export type Shard = string;

/** The key's hash as bits (the first 64 are plenty: a 2^64-way split is not a catalog). */
export function keyBits(key: string): string {
  const digest = createHash("sha256").update(key, "utf8").digest();
  return [...digest.subarray(0, 8)].map((byte) => byte.toString(2).padStart(8, "0")).join("");
}

export function stackName(prefix: string, shard: Shard): string {
  return `${prefix}${shard === "" ? ROOT : shard}`;
}

/** The shard a stack name stands for, or `undefined` for a stack that is not one of the catalog's. */
export function shardOf(prefix: string, stack: string): Shard | undefined {
  // A backend may list `org/project/name` or just `name`.
  const name = stack.split("/").pop()!;
  if (!name.startsWith(prefix)) return undefined;
  const rest = name.slice(prefix.length);
  if (rest === ROOT) return "";
  return /^[01]{1,64}$/.test(rest) ? rest : undefined;
}

/** The stack layout: the shards, and each one's products. */
export class Layout {
  readonly shards: Shard[];

  constructor(shards: Iterable<Shard>) {
    this.shards = [...shards].sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
  }

  /** The layout a catalog starts with: one stack, split while any is over `maxSize`. */
  static initial(catalog: Catalog, maxSize: number): Layout {
    return new Layout([""]).grown(catalog, maxSize).layout;
  }

  /**
   * The stacks found in a backend (`stacks`): the layout is the stacks with no stack below them,
   * which must cover the hash space exactly once — anything else means stacks were renamed or
   * removed by hand, and no product may be guessed into one. A stack with stacks below it is a
   * split that was interrupted (`split.ts`): returned with the shards it was splitting into.
   */
  static fromStacks(prefix: string, stacks: string[]): { layout: Layout; interrupted: Map<Shard, Shard[]> } | undefined {
    const shards = [...new Set(stacks.map((stack) => shardOf(prefix, stack)).filter((shard): shard is Shard => shard !== undefined))];
    if (shards.length === 0) return undefined;
    const stacked = new Set(shards);
    const hasBelow = (shard: Shard) => shards.some((other) => other !== shard && other.startsWith(shard));
    const interrupted = new Map<Shard, Shard[]>();
    const holes: Shard[] = [];
    // Walk the trie from the root: a stack with nothing below is a leaf; a prefix with stacks below
    // is split further; a gap is a hole — allowed only under an interrupted split (its stack is created when the split finishes).
    const cover = (shard: Shard, underSplit: boolean): Shard[] => {
      if (stacked.has(shard) && !hasBelow(shard)) return [shard];
      if (!hasBelow(shard)) {
        if (!underSplit) holes.push(shard);
        return [shard];
      }
      const split = underSplit || stacked.has(shard);
      const leaves = [...cover(`${shard}0`, split), ...cover(`${shard}1`, split)];
      if (stacked.has(shard)) interrupted.set(shard, leaves);
      return leaves;
    };
    const layout = new Layout(cover("", false));
    if (holes.length > 0) {
      throw new CatalogError(
        `the backend's ${prefix}* stacks (${new Layout(shards).shards.map((s) => stackName(prefix, s)).join(", ")}) leave part of the catalog in no stack ` +
          `(${holes.map((s) => stackName(prefix, s)).join(", ")} missing): they must come from this tool's splits. ` +
          `Restore the missing stack from a backup of the backend, or see docs/catalog.md ("Stacks")`,
      );
    }
    return { layout, interrupted };
  }

  /** The shard that holds `key`. */
  shardOf(key: string): Shard {
    const bits = keyBits(key);
    const shard = this.shards.find((s) => bits.startsWith(s));
    // Unreachable for a checked layout (its shards cover every hash).
    if (shard === undefined) throw new Error(`no stack holds ${key}`);
    return shard;
  }

  /** Every shard with its products (shards with none included: their stacks still exist). */
  assign(catalog: Catalog): Map<Shard, CatalogProduct[]> {
    const out = new Map<Shard, CatalogProduct[]>(this.shards.map((s) => [s, []]));
    for (const product of catalog.values()) out.get(this.shardOf(product.key))!.push(product);
    return out;
  }

  /**
   * The layout after every shard over `maxSize` split (again and again, while a half is still over):
   * the new layout and, per shard that splits, the shards it becomes.
   */
  grown(catalog: Catalog, maxSize: number): { layout: Layout; splits: Map<Shard, Shard[]> } {
    const bitsByKey = [...catalog.keys()].map(keyBits);
    const splits = new Map<Shard, Shard[]>();
    const shards: Shard[] = [];
    for (const shard of this.shards) {
      const leaves = splitWhileOver(
        shard,
        bitsByKey.filter((bits) => bits.startsWith(shard)),
        maxSize,
      );
      if (leaves.length > 1) splits.set(shard, leaves);
      shards.push(...leaves);
    }
    return { layout: new Layout(shards), splits };
  }
}

function splitWhileOver(shard: Shard, bits: string[], maxSize: number): Shard[] {
  if (bits.length <= maxSize || shard.length >= 64) return [shard];
  const next = shard.length;
  return [
    ...splitWhileOver(
      `${shard}0`,
      bits.filter((b) => b[next] === "0"),
      maxSize,
    ),
    ...splitWhileOver(
      `${shard}1`,
      bits.filter((b) => b[next] === "1"),
      maxSize,
    ),
  ];
}
