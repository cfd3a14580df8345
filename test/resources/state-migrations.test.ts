/**
 * The states of an older shape a lifecycle still accepts (`resources/state-migrations.ts`), each
 * taken from the 0.1.0 stack of test/engine/fixtures/ (what test/engine/old-stacks.test.ts runs
 * through the real CLI): each step recognises its shape and gives what the lifecycles' fallbacks
 * gave before, and no step touches a state of today's shape.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Values } from "../../provider/resources/lifecycle";
import { fateOf, type ProductOutputs } from "../../provider/resources/product";
import { PRODUCT_STATE_MIGRATIONS, SITE_STATE_MIGRATIONS, migrateState } from "../../provider/resources/state-migrations";

interface FixtureResource {
  type: string;
  inputs: Values;
  outputs: Values;
}

/** The 0.1.0 stack's resource of `type` (`Product`, `Site`, `Task`), its engine and face keys left out as `withDefaults` leaves them. */
function fixture(type: string): { inputs: Values; outputs: Values } {
  const state = JSON.parse(readFileSync(join(__dirname, "..", "engine", "fixtures", "state-0.1.0-lifecycle-subpaths.json"), "utf8")) as {
    deployment: { resources: FixtureResource[] };
  };
  const resource = state.deployment.resources.find((r) => r.type === `pulumi-nodejs:dynamic/serviceapi:${type}`)!;
  const own = (values: Values) =>
    Object.fromEntries(Object.entries(values).filter(([key]) => key !== "__provider" && key !== "__logicalName"));
  return { inputs: own(resource.inputs), outputs: own(resource.outputs) };
}

/** The steps of `resource` that recognise `state`, by the shape they name. */
function recognising(steps: typeof PRODUCT_STATE_MIGRATIONS, state: Values): string[] {
  return steps.filter((step) => step.recognises(state)).map((step) => step.shape);
}

// A site's lacks __nameSet: read as it is, its name standing for the name this stack set (site.ts).
it.each(["Product", "Site", "Task"])("a %s's state as 0.1.0 wrote it is today's shape: no step touches it", (type) => {
  const { outputs } = fixture(type);
  expect(migrateState(type, outputs)).toEqual(outputs);
});

describe("a product's state", () => {
  const { inputs, outputs } = fixture("Product");

  it("a pending create taken in as its inputs: __declared is what its program declared, as a refresh recorded it", () => {
    expect(recognising(PRODUCT_STATE_MIGRATIONS, inputs)).toEqual(["a pending create taken in as its inputs: no __declared"]);
    const migrated = migrateState("Product", { ...inputs, description: null });
    // What 0.1.0 recorded for the same declaration; a null input is not declared.
    expect(migrated).toEqual({ ...inputs, description: null, __declared: outputs.__declared });
    expect(migrated.__declared).toEqual(["projectId", "slug", "title"]);
    expect(recognising(PRODUCT_STATE_MIGRATIONS, migrated)).toEqual([]);
  });

  it("adopted by 0.1.0, which recorded nothing of what it found: marked so, and its delete leaves it as it is", () => {
    const adopted = { ...outputs, adoptId: "0b3f2a8e-5b7c-4f1e-9a6d-2c4e8f0a1b3d", __declared: ["adoptId", "projectId", "slug", "title"] };
    expect(recognising(PRODUCT_STATE_MIGRATIONS, adopted)).toEqual([
      "adopted by a version that did not record what it found: adoptId, no __takenOver, no __createdByThisStack",
    ]);
    const migrated = migrateState("Product", adopted);
    expect(migrated).toEqual({ ...adopted, __adoptedWithoutRecord: true });
    expect(recognising(PRODUCT_STATE_MIGRATIONS, migrated)).toEqual([]);
    // The catalog tool asks fateOf of a state it read itself: migrated there too.
    expect(fateOf(adopted as unknown as ProductOutputs)).toBe("adopted without a record");
    expect(fateOf({ ...adopted, onDelete: "retain" } as unknown as ProductOutputs)).toBe("retain");
    // Today's adoptions record what they found, or that this stack made the product: not this shape.
    for (const today of [{ __takenOver: { found: {}, set: {} } }, { __createdByThisStack: true }]) {
      expect(recognising(PRODUCT_STATE_MIGRATIONS, { ...adopted, ...today })).toEqual([]);
    }
    expect(fateOf(outputs as unknown as ProductOutputs)).toBe("archive");
  });
});

it("a site's pending create taken in as its inputs: the three required inputs declared, its original name unknown", () => {
  const { inputs } = fixture("Site");
  expect(recognising(SITE_STATE_MIGRATIONS, inputs)).toEqual(["a pending create taken in as its inputs: no __declared, no originalName"]);
  const migrated = migrateState("Site", inputs);
  expect(migrated).toEqual({ ...inputs, originalName: null, __declared: ["name", "projectId", "siteId"] });
  expect(recognising(SITE_STATE_MIGRATIONS, migrated)).toEqual([]);
});
