/**
 * Which stack holds which product: stable by construction.
 *
 * A product's place is the SHA-256 of its key, read as bits. A stack is a bit prefix — `0`, `10`,
 * `11` — and holds every key whose hash starts with it; the stacks' prefixes cover every hash
 * exactly once (a binary trie's leaves, as in extendible hashing). So:
 *  - adding or removing products never moves another product: its hash, and so its stack, is the same;
 *  - a stack that grows past `maxSize` splits in two (`0` → `00` and `01`), and only its own products
 *    move, half of them, with `pulumi state move` (`moves.ts`); no other stack is touched;
 *  - the layout needs no file of its own: it is the set of stacks in the backend (`layout.ts` names
 *    them), so every runner, every branch and every re-run agrees on it.
 * A fresh hash space starts from one stack holding everything and splits until no stack is over size.
 * Each group of the catalog (a file or folder, `layout.ts`) is a hash space of its own.
 */
import { createHash } from "node:crypto";

/** A stack's share of the hash space: a string of `0`/`1`, empty for the root. */
export type Shard = string;

/** The key's hash as bits (the first 64 are plenty: a 2^64-way split is not a catalog). */
export function keyBits(key: string): string {
  const digest = createHash("sha256").update(key, "utf8").digest();
  return [...digest.subarray(0, 8)].map((byte) => byte.toString(2).padStart(8, "0")).join("");
}

/** Anything with a key (a catalog product, a key in a state). */
export interface Keyed {
  key: string;
}

/** The stack layout: the shards, and each one's products. */
export class Layout {
  readonly shards: Shard[];

  constructor(shards: Iterable<Shard>) {
    this.shards = [...shards].sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
  }

  /** The layout a catalog starts with: one stack, split while any is over `maxSize`. */
  static initial(products: Iterable<Keyed>, maxSize: number): Layout {
    return new Layout([""]).grown(products, maxSize).layout;
  }

  /**
   * The shards of one hash space as found in a backend: the layout is the shards with no shard below
   * them, which must cover the hash space exactly once. A shard with shards below it is a split that
   * was interrupted (`moves.ts`): returned with the leaves it was splitting into. `holes` are the
   * parts of the space no stack holds (a stack removed by hand), which the caller refuses to guess.
   */
  static fromShards(found: Iterable<Shard>): { layout: Layout; interrupted: Map<Shard, Shard[]>; holes: Shard[] } {
    const shards = [...new Set(found)];
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
    return { layout: new Layout(cover("", false)), interrupted, holes };
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
  assign<T extends Keyed>(products: Iterable<T>): Map<Shard, T[]> {
    const out = new Map<Shard, T[]>(this.shards.map((s) => [s, []]));
    for (const product of products) out.get(this.shardOf(product.key))!.push(product);
    return out;
  }

  /**
   * The layout after every shard over `maxSize` split (again and again, while a half is still over):
   * the new layout and, per shard that splits, the shards it becomes.
   */
  grown(products: Iterable<Keyed>, maxSize: number): { layout: Layout; splits: Map<Shard, Shard[]> } {
    const bitsByKey = [...products].map((p) => keyBits(p.key));
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
