/**
 * Which stack holds which product (`provider/catalog/shards.ts`). The promise to users is
 * stability: adding products never moves another, a split moves only the products of the stack
 * that splits, and the layout read back from the backend's stack names is the one the tool made —
 * or a refusal naming what is missing. Stated as properties over random catalogs (fast-check), and
 * the hash pinned: a change of it would move every user's products to other stacks.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { CatalogItem } from "../../provider/catalog/catalog";
import { Layout, keyBits, type Shard } from "../../provider/catalog/shards";

function catalogOf(keys: Iterable<string>): CatalogItem[] {
  return [...keys].map((key) => ({ key, file: "products.yaml", kind: "product", entry: { project: "Acme Web", title: key } }));
}

/** How many of `keys` each shard holds. */
function sizes(layout: Layout, keys: string[]): Map<Shard, number> {
  return new Map([...layout.assign(catalogOf(keys))].map(([shard, products]) => [shard, products.length]));
}

/** The shards are a binary trie's leaves: no shard is a prefix of another, and together they cover every hash (their shares sum to 1). */
function coversOnce(shards: Shard[]): boolean {
  const prefixFree = shards.every((a) => shards.every((b) => a === b || !b.startsWith(a)));
  const share = shards.reduce((sum, s) => sum + (1n << BigInt(64 - s.length)), 0n);
  return prefixFree && share === 1n << 64n;
}

const keys = (maxLength: number) => fc.uniqueArray(fc.string({ minLength: 1, maxLength: 16 }), { maxLength });
/** Reasonable stack sizes: a handful to a few dozen products (the tool's default is far larger; small sizes split more). */
const maxSize = fc.integer({ min: 1, max: 40 });
/** A catalog and products added to it (keys not in it). */
const grownCatalog = fc
  .tuple(keys(150), keys(150))
  .map(([before, more]) => ({ before, after: [...before, ...more.filter((key) => !before.includes(key))] }));

describe("stability", () => {
  it("adding products never changes the shard of an existing product under the same layout", () => {
    fc.assert(
      fc.property(grownCatalog, maxSize, ({ before, after }, size) => {
        const layout = Layout.initial(catalogOf(before), size);
        const was = new Map(
          [...layout.assign(catalogOf(before))].flatMap(([shard, products]) => products.map((p) => [p.key, shard] as const)),
        );
        for (const [shard, products] of layout.assign(catalogOf(after))) {
          for (const product of products) {
            if (was.has(product.key)) expect(shard).toBe(was.get(product.key));
            expect(shard).toBe(layout.shardOf(product.key));
          }
        }
      }),
    );
  });

  it("initial(): every shard holds at most maxSize, the shards cover every hash once, and no shard split without need", () => {
    fc.assert(
      fc.property(keys(300), maxSize, (all, size) => {
        const layout = Layout.initial(catalogOf(all), size);
        expect(coversOnce(layout.shards)).toBe(true);
        for (const count of sizes(layout, all).values()) expect(count).toBeLessThanOrEqual(size);
        // Each split was due: the shard it came from held more than maxSize.
        for (const shard of layout.shards.filter((s) => s !== "")) {
          const parent = shard.slice(0, -1);
          expect(all.filter((key) => keyBits(key).startsWith(parent)).length).toBeGreaterThan(size);
        }
      }),
    );
  });

  it("grown(): only shards over maxSize split, into shards under them, and only their products change stack", () => {
    fc.assert(
      fc.property(grownCatalog, maxSize, ({ before, after }, size) => {
        const old = Layout.initial(catalogOf(before), size);
        const { layout, splits } = old.grown(catalogOf(after), size);
        const counts = sizes(old, after);
        expect([...splits.keys()].sort()).toEqual(old.shards.filter((s) => counts.get(s)! > size).sort());
        for (const [shard, leaves] of splits) {
          expect(leaves.every((leaf) => leaf.length > shard.length && leaf.startsWith(shard))).toBe(true);
          expect(coversOnce(leaves.map((leaf) => leaf.slice(shard.length)))).toBe(true);
        }
        const expected = old.shards.flatMap((s) => splits.get(s) ?? [s]);
        expect([...layout.shards].sort()).toEqual([...expected].sort());
        for (const key of after) {
          const from = old.shardOf(key);
          if (splits.has(from)) expect(layout.shardOf(key).startsWith(from)).toBe(true);
          else expect(layout.shardOf(key)).toBe(from);
        }
        for (const count of sizes(layout, after).values()) expect(count).toBeLessThanOrEqual(size);
        // Grown again with the same catalog: nothing more is due.
        expect(layout.grown(catalogOf(after), size).splits.size).toBe(0);
      }),
    );
  });

  it("grown() of a layout with room splits nothing and keeps it as it is", () => {
    const layout = new Layout(["1", "00", "01"]);
    const { layout: grown, splits } = layout.grown(catalogOf(["widget", "Z9"]), 1);
    expect(splits.size).toBe(0);
    expect(grown.shards).toEqual(["1", "00", "01"]);
  });
});

describe("the hash is pinned (a change would move every product of every user to another stack)", () => {
  it("keyBits: the first 64 bits of the SHA-256 of the key's UTF-8", () => {
    expect(keyBits("widget")).toBe("1000101011000001010000001100111010110110110010101000110101101110");
    expect(keyBits("acme-web.checkout")).toBe("0000010011011011101011111101101011110101110110110000101011110100");
    expect(keyBits("product-00001")).toBe("0000001110111111011100101010110000110000111101010111111000000100");
    expect(keyBits("Z9")).toBe("0100001111110000001011111100110110100101111011001010011110110110");
    expect(keyBits("café")).toBe("1000010100001111011111011100010000111001000100001111111110001001");
  });

  it("the shard of fixed keys in fixed layouts", () => {
    const shardsIn = (layout: Layout) => ["widget", "acme-web.checkout", "product-00001", "Z9", "café"].map((key) => layout.shardOf(key));
    expect(shardsIn(new Layout([""]))).toEqual(["", "", "", "", ""]);
    expect(shardsIn(new Layout(["0", "10", "11"]))).toEqual(["10", "0", "0", "0", "10"]);
    expect(shardsIn(new Layout(["00", "01", "1"]))).toEqual(["1", "00", "00", "01", "1"]);
    expect(shardsIn(new Layout(["0000", "0001", "001", "01", "1"]))).toEqual(["1", "0000", "0000", "01", "1"]);
  });

  it("assign() lists every shard, those with no product included", () => {
    const assigned = new Layout(["0", "10", "11"]).assign(catalogOf(["widget", "Z9", "café"]));
    expect(Object.fromEntries([...assigned].map(([shard, products]) => [shard, products.map((p) => p.key).sort()]))).toEqual({
      "0": ["Z9"],
      "10": ["café", "widget"],
      "11": [],
    });
  });
});

describe("Layout.fromShards: one hash space read back from the backend", () => {
  const read = (shards: Shard[]) => {
    const found = Layout.fromShards(shards);
    return { shards: found.layout.shards, interrupted: Object.fromEntries(found.interrupted), holes: found.holes };
  };

  it("a complete layout, whatever the order", () => {
    expect(read(["11", "0", "10"])).toEqual({ shards: ["0", "10", "11"], interrupted: {}, holes: [] });
    expect(read([""])).toEqual({ shards: [""], interrupted: {}, holes: [] });
  });

  it("an interrupted split (the stack beside its halves) is reported with the leaves to finish it", () => {
    expect(read(["", "0", "1"])).toEqual({ shards: ["0", "1"], interrupted: { "": ["0", "1"] }, holes: [] });
    expect(read(["0", "1", "10", "11"])).toEqual({ shards: ["0", "10", "11"], interrupted: { "1": ["10", "11"] }, holes: [] });
  });

  it("a split interrupted before every half was created: the missing half is among the leaves, to be created", () => {
    expect(read(["", "0"])).toEqual({ shards: ["0", "1"], interrupted: { "": ["0", "1"] }, holes: [] });
    expect(read(["", "00"])).toEqual({ shards: ["1", "00", "01"], interrupted: { "": ["00", "01", "1"] }, holes: [] });
  });

  it("a hole (a stack missing, not under an interrupted split) is named", () => {
    expect(read(["0"]).holes).toEqual(["1"]);
    expect(read(["00", "11"]).holes).toEqual(["01", "10"]);
    // An interrupted split of 0 excuses no hole elsewhere.
    expect(read(["0", "00", "10"]).holes).toEqual(["11"]);
  });

  it("reads back every layout the tool makes", () => {
    fc.assert(
      fc.property(keys(200), maxSize, (all, size) => {
        const layout = Layout.initial(catalogOf(all), size);
        expect(read([...layout.shards].reverse())).toEqual({ shards: layout.shards, interrupted: {}, holes: [] });
      }),
    );
  });
});
