/**
 * A catalog deployed by 0.1 (stacks named `<prefix><bits>`, the whole catalog hashed over them, so a
 * pull request touched every stack) brought to stacks per file with one command, and 0 requests to
 * the service (issue 32, "PRs that touch few stacks"). The 0.1 layout is made the way 0.1 left it: all
 * products in `catalog-all`, by Pulumi's own `pulumi state move`. Then: `plan` announces the moves,
 * `preview` runs on the stacks as they are and shows no change, `up` moves every product into its
 * file's stack and removes the old one — the same records, nothing created, archived or written.
 */
import { describe, expect, it } from "vitest";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { ENGINE_TIMEOUT_MS } from "../../scripts/engine/driver";
import { catalogUserFor, type CatalogUser, byRoute, reportLines, type Entry } from "./catalog-support";
import { step } from "./suite";

const LISTING = "GET /v1/projects?limit=100";

describe("serviceapi-catalog: the layout of 0.1 moves to stacks per file", { timeout: ENGINE_TIMEOUT_MS * 2 }, () => {
  let sim: Simulator;
  let user: CatalogUser;
  catalogUserFor((made) => ({ sim, user } = made));

  it("one up moves every product with pulumi state move, 0 requests to the service, the same ids", async () => {
    let ids = new Map<string, { stack: string; id: string }>();

    await step("1. a catalog of two files, deployed, then laid out as 0.1 left it: one stack for the whole catalog", async () => {
      const file = (prefix: string): Record<string, Entry> =>
        Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`${prefix}${i}`, { project: "Acme Web", title: `${prefix} ${i}` }]));
      user.files["plans.yaml"] = file("plan-");
      user.files["add-ons.yaml"] = file("addon-");
      user.writeCatalog();
      const up = await user.tool(["up"]);
      expect(up.code, up.stdout + up.stderr).toBe(0);
      ids = user.products();
      user.pulumi(["stack", "init", "catalog-all"]);
      for (const stack of ["catalog-add-ons.all", "catalog-plans.all"]) {
        const urns = [...ids]
          .filter(([, p]) => p.stack === stack)
          .map(([key]) => `urn:pulumi:${stack}::serviceapi-catalog::pulumi-nodejs:dynamic/serviceapi:Product::${key}`);
        user.pulumi(["state", "move", "--source", stack, "--dest", "catalog-all", "--yes", ...urns]);
        user.pulumi(["stack", "rm", stack, "--force", "--yes"]);
      }
      expect(user.stacks()).toEqual(["catalog-all"]);
      expect(new Set([...user.products().values()].map((p) => p.stack))).toEqual(new Set(["catalog-all"]));
    });

    await step("2. plan announces the moves; a preview runs on the stack as it is and changes nothing", async () => {
      sim.clearRequests();
      const plan = await user.tool(["plan"]);
      expect(plan.code, plan.stderr).toBe(0);
      expect(plan.stdout.split("\n")).toContain(
        "moves due: 12 product(s) to the stacks of their files (catalog-all → catalog-add-ons.all: 6, catalog-all → catalog-plans.all: 6) at the next split or up; pulumi state move, no request to the service",
      );
      const preview = await user.tool(["preview"]);
      expect(preview.code, preview.stdout + preview.stderr).toBe(0);
      expect(reportLines(preview.stdout)).toEqual([
        "serviceapi-catalog preview: 1 of 3 stack(s)",
        "catalog-all (12 products): 12 to move; 0 request(s), N s",
        "  > addon-0, addon-1, addon-2, addon-3, addon-4 and 1 more (6) move to catalog-add-ons.all (their file's stack) at the next split or up: pulumi state move, no request to the service",
        "  > plan-0, plan-1, plan-2, plan-3, plan-4 and 1 more (6) move to catalog-plans.all (their file's stack) at the next split or up: pulumi state move, no request to the service",
        "Total: 0 to create, 0 to adopt, 0 to update, 0 to replace, 0 to remove, 12 to move; 1 request(s) sent (the project listing included); 0 stack(s) failed",
      ]);
      expect(byRoute(sim)).toEqual({ [LISTING]: 1 });
    });

    await step("3. up moves them, removes the old stack, and sends nothing but the listing", async () => {
      sim.clearRequests();
      const up = await user.tool(["up"]);
      expect(up.code, up.stdout + up.stderr).toBe(0);
      expect(reportLines(up.stdout)).toEqual([
        "serviceapi-catalog up: 2 of 2 stack(s)",
        "  ! removed catalog-all: its products moved, and the layout no longer has it",
        "catalog-add-ons.all (6 products): 6 moved; 0 request(s), N s",
        "  > addon-0, addon-1, addon-2, addon-3, addon-4 and 1 more (6) moved from catalog-all to catalog-add-ons.all (their file's stack): pulumi state move, no request to the service",
        "catalog-plans.all (6 products): 6 moved; 0 request(s), N s",
        "  > plan-0, plan-1, plan-2, plan-3, plan-4 and 1 more (6) moved from catalog-all to catalog-plans.all (their file's stack): pulumi state move, no request to the service",
        "Total: 0 created, 0 adopted, 0 updated, 0 replaced, 0 removed, 12 moved; 1 request(s) sent (the project listing included); 0 stack(s) failed",
      ]);
      expect(byRoute(sim)).toEqual({ [LISTING]: 1 });
      expect(user.stacks()).toEqual(["catalog-add-ons.all", "catalog-plans.all"]);
      expect(user.products()).toEqual(ids);
      expect(sim.products().filter((p) => p.status === "archived")).toEqual([]);
    });
  });
});
