/**
 * The day-one import's pull request (issue 45), as the example workflow runs it: the pull request's
 * preview jobs hold a token that may only read, yet an adoption's preview must read each product it
 * takes over — and the API's only read of a product is an empty PATCH. So `plan --json` splits the
 * preview batches: `previewReadOnly` for the read token, `previewAdopting` for the approved adoption
 * job, whose token may update products. With the real CLI and the simulator's read-only token
 * (GET only, as a service with scopes would give): each half previews with its own token, sending
 * only what it may; the adoption previewed with the read token fails in one line that says why and
 * where to go; the combined report shows every stack; and the deploy adopts exactly what the
 * adoption job showed, with one read each and no write.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_IDS, READ_ONLY_TOKEN } from "pulumi-serviceapi-simulator";
import type { PlanReport } from "../../provider/catalog/report";
import { clientFor, simulator } from "../helpers";
import { ENGINE_TIMEOUT_MS, pulumiCli } from "../../scripts/engine/driver";
import { reportLines, userWithCatalog } from "./catalog-support";
import { step } from "./suite";

const ADOPTING = "catalog-acme-web.all";

/** A report's adoptions: key, id and the fields it changes, as data. */
function adoptions(json: string): string[] {
  const report = JSON.parse(json) as { results: { changes: { op: string; key: string; adoptId?: string; fields: unknown[] }[] }[] };
  return report.results
    .flatMap((r) => r.changes.filter((c) => c.op === "adopt").map((c) => `${c.key} ${c.adoptId} ${JSON.stringify(c.fields)}`))
    .sort();
}

describe("the day-one import's pull request: read-only previews and the approved adoption preview", { timeout: ENGINE_TIMEOUT_MS }, () => {
  it("plan splits the batches; each preview sends only what its token may; the deploy adopts what the adoption job showed", async () => {
    await pulumiCli();
    const sim = await simulator();
    const user = await userWithCatalog(sim, ["a", "b"], 2);
    const ids: string[] = [];
    let plan: PlanReport;

    await step(
      "1. the catalog deployed; three products made by hand, imported (a person with a token that may update products)",
      async () => {
        expect((await user.tool(["up"])).code).toBe(0);
        const { client } = clientFor(sim);
        for (let n = 0; n < 3; n++)
          ids.push((await client.createProduct({ projectId: DEFAULT_IDS.acmeWeb, title: `Old ${n}`, slug: `old-${n}` })).id);
        writeFileSync(join(user.repo, "ids.csv"), `id,project\n${ids.map((id) => `${id},Acme Web`).join("\n")}\n`);
        const imported = await user.tool(["import", "ids.csv"]);
        expect(imported.code, imported.stdout + imported.stderr).toBe(0);
      },
    );

    await step("2. plan: the stacks a read token can preview, and the one that adopts, apart", async () => {
      const json = await user.tool(["plan", "--json"]);
      plan = JSON.parse(json.stdout) as PlanReport;
      expect(plan.batches).toMatchObject({
        preview: ["catalog-a.all,catalog-b.all,catalog-acme-web.all"],
        previewReadOnly: ["catalog-a.all,catalog-b.all"],
        previewAdopting: [ADOPTING],
      });
      const text = await user.tool(["plan"]);
      expect(text.stdout.split("\n")).toContain(`  ${ADOPTING} (3 products, a new stack)`);
      expect(text.stdout.split("\n")).toContain(
        `taking products over (adoptId), so their preview reads each with an empty PATCH and needs a token that may update products: ${ADOPTING} (3)`,
      );
    });

    const live = () => JSON.stringify(sim.products());
    const before = live();
    let adoptionJob: string[] = [];
    let adoptionJson = "";
    await step("3. the preview job, read token: its batch previews, with GET requests only", async () => {
      sim.clearRequests();
      const preview = await user.tool(["preview", "--stack", plan.batches.previewReadOnly[0]!, "--json"], {
        SERVICEAPI_TOKEN: READ_ONLY_TOKEN,
      });
      expect(preview.code, preview.stdout + preview.stderr).toBe(0);
      writeFileSync(join(user.repo, "report-0.json"), preview.stdout);
      expect(sim.requests().map((r) => `${r.method} ${r.status}`)).toEqual(["GET 200"]);
    });

    await step("4. the adoption job, its token may update products: each product read once (an empty PATCH), nothing changed", async () => {
      sim.clearRequests();
      const preview = await user.tool(["preview", "--stack", plan.batches.previewAdopting[0]!, "--json"]);
      expect(preview.code, preview.stdout + preview.stderr).toBe(0);
      writeFileSync(join(user.repo, "adoption-report-0.json"), preview.stdout);
      adoptionJson = preview.stdout;
      expect(
        sim
          .requests()
          .filter((r) => r.method !== "GET")
          .map((r) => `${r.method} ${r.path} ${JSON.stringify(r.body)}`)
          .sort(),
      ).toEqual(ids.map((id) => `PATCH /api/v1/public/products/${id} {}`).sort());
      expect(live()).toBe(before);
      adoptionJob = reportLines((await user.tool(["report", "adoption-report-0.json"])).stdout);
      expect(adoptionJob.filter((l) => l.startsWith("  = "))).toEqual(ids.map((id, n) => `  = old-${n} (adopts ${id})`));
    });

    await step("5. the same adoption previewed with the read token fails, saying why and where to go; nothing changed", async () => {
      sim.clearRequests();
      const preview = await user.tool(["preview", "--stack", ADOPTING], { SERVICEAPI_TOKEN: READ_ONLY_TOKEN });
      expect(preview.code, preview.stdout + preview.stderr).toBe(1);
      const lines = reportLines(preview.stdout);
      expect(lines[2]).toBe(
        `  error: old-0: pulumi-nodejs:dynamic/serviceapi:Product resource 'old-0' has a problem: adoptId could not be read with this token: ` +
          "reading it (an empty PATCH, the API's only read) was answered 403 (this token may only read: products.update (PATCH) needs a token " +
          "that may write). Previewing or making an adoption needs a token with access to the product's workspace that may update products; " +
          "a token that may only read cannot (docs/catalog-workflow.md#day-one-the-import-pull-request)",
      );
      expect(live()).toBe(before);
    });

    await step(
      "5b. a whole preview with the read token fails on that stack; run again with the adoption token, it previews every stack",
      async () => {
        const failed = await user.tool(["preview"], { SERVICEAPI_TOKEN: READ_ONLY_TOKEN });
        expect(failed.code).toBe(1);
        // Not resumed: a preview is what the reviewer approves, so no stack is skipped as "done in the run before".
        const again = await user.tool(["preview"]);
        expect(again.code, again.stdout + again.stderr).toBe(0);
        expect(reportLines(again.stdout).filter((l) => /^catalog-/.test(l))).toEqual([
          "catalog-a.all (2 products): no changes; 0 request(s), N s",
          `${ADOPTING} (3 products, a new stack): 3 to adopt; 3 request(s), N s`,
          "catalog-b.all (2 products): no changes; 0 request(s), N s",
        ]);
      },
    );

    await step("6. the pull request's comment: both jobs' reports combined, every stack", async () => {
      const report = await user.tool(["report", "report-0.json", "adoption-report-0.json"]);
      expect(report.code, report.stdout + report.stderr).toBe(0);
      const lines = reportLines(report.stdout);
      expect(lines.filter((l) => /^catalog-/.test(l)).map((l) => l.split(" ")[0])).toEqual(["catalog-a.all", ADOPTING, "catalog-b.all"]);
      expect(lines.at(-1)).toMatch(/^Total: 0 to create, 3 to adopt, 0 to update, 0 to replace, 0 to remove; /);
    });

    await step(
      "7. the deploy adopts what the adoption job showed: one read each, no write; then the read token previews that stack",
      async () => {
        sim.clearRequests();
        const up = await user.tool(["up", "--json"]);
        expect(up.code, up.stdout + up.stderr).toBe(0);
        expect(adoptions(up.stdout)).toEqual(adoptions(adoptionJson));
        expect(adoptions(up.stdout)).toEqual(ids.map((id, n) => `old-${n} ${id} []`).sort());
        expect(sim.requests().filter((r) => r.method === "POST" || (r.method === "PATCH" && Object.keys(r.body ?? {}).length > 0))).toEqual(
          [],
        );
        expect(live()).toBe(before);
        // Adopted: the entries keep `adoptId`, which now reads nothing — the read token previews that stack again.
        const after = JSON.parse((await user.tool(["plan", "--json"])).stdout) as PlanReport;
        expect(after.batches).toMatchObject({ previewReadOnly: ["catalog-a.all,catalog-acme-web.all,catalog-b.all"], previewAdopting: [] });
      },
    );
  });
});
