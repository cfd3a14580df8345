/**
 * The catalog's groups and stack names (`provider/catalog/layout.ts`): a file or folder directly in
 * the catalog folder is a group with stacks of its own, named `<prefix><group>.<shard>`, and names
 * read back to the same group and shard — or to none, for a stack that is not the catalog's. The
 * names of 0.1's layout (`<prefix><shard>`) still read, as stacks without a group.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { groupOf, groupProblems, parseStackName, stackName } from "../../provider/catalog/layout";

describe("stack names", () => {
  it("a group's stacks, the root included, and 0.1's", () => {
    expect(stackName("catalog-", { group: "plans", shard: "" })).toBe("catalog-plans.all");
    expect(stackName("catalog-", { group: "plans", shard: "0110" })).toBe("catalog-plans.0110");
    expect(stackName("catalog-", { group: "teams.pay", shard: "1" })).toBe("catalog-teams.pay.1");
    expect(stackName("catalog-", { shard: "" })).toBe("catalog-all");
    expect(stackName("catalog-", { shard: "10" })).toBe("catalog-10");
  });

  it("round-trip for any group and shard (a backend may list org/project/name)", () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z][a-z-]{0,12}$/),
        fc.stringMatching(/^[A-Za-z0-9_-]{1,8}(\.[A-Za-z0-9_-]{1,8}){0,2}$/),
        fc.stringMatching(/^[01]{0,64}$/),
        (prefix, group, shard) => {
          expect(parseStackName(prefix, stackName(prefix, { group, shard }))).toEqual({ group, shard });
          expect(parseStackName(prefix, `acme/catalog/${stackName(prefix, { group, shard })}`)).toEqual({ group, shard });
          expect(parseStackName(prefix, stackName(prefix, { shard }))).toEqual({ shard });
        },
      ),
    );
  });

  it("a group named like a shard, or with dots, reads back unambiguously", () => {
    expect(parseStackName("catalog-", "catalog-0.all")).toEqual({ group: "0", shard: "" });
    expect(parseStackName("catalog-", "catalog-plans.01")).toEqual({ group: "plans", shard: "01" });
    expect(parseStackName("catalog-", "catalog-plans.01.0")).toEqual({ group: "plans.01", shard: "0" });
    expect(parseStackName("catalog-", "catalog-all.all")).toEqual({ group: "all", shard: "" });
  });

  it("a stack that is not the catalog's is none", () => {
    for (const stack of [
      "dog-0",
      "catalog-",
      "catalog-2",
      "catalog-01x",
      "catalog-ALL",
      "catalog-plans",
      "catalog-plans.",
      "catalog-.all",
      "catalog-a..b.all",
      "dev",
    ]) {
      expect(parseStackName("catalog-", stack)).toBeUndefined();
    }
  });
});

describe("groups", () => {
  it("the entry directly in the catalog folder, without its extension", () => {
    expect(groupOf("plans.yaml")).toBe("plans");
    expect(groupOf("add-ons.JSON")).toBe("add-ons");
    expect(groupOf("plans.v2.yml")).toBe("plans.v2");
    expect(groupOf("teams/payments/cards.yaml")).toBe("teams");
  });

  it("a name that cannot name a stack, or two entries giving one group, each one line naming the files", () => {
    expect(groupProblems(["plans.yaml", "teams/a.yaml", "teams/b/c.json"])).toEqual([]);
    expect(
      groupProblems(["plans.yaml", "plans.json", "add-ons.yaml", "add-ons/x.yaml", "café plans.yaml", `${"x".repeat(41)}.yaml`]),
    ).toEqual([
      'plans.json and plans.yaml: both give the stacks of group "plans"; rename one of them',
      'add-ons.yaml and add-ons/: both give the stacks of group "add-ons"; rename one of them',
      "café plans.yaml: a file or folder directly in the catalog folder names its stacks, so its name (without .yaml/.json) must be letters, digits, '-', '_' and single dots, at most 40 characters: rename it",
      `${"x".repeat(41)}.yaml: a file or folder directly in the catalog folder names its stacks, so its name (without .yaml/.json) must be letters, digits, '-', '_' and single dots, at most 40 characters: rename it`,
    ]);
  });
});
