/**
 * Day one (issue 35): a catalog that already exists, brought in with `serviceapi-catalog import`, with
 * the real CLI. 200 products made out of band through the API — long descriptions, unicode titles,
 * nulls, archived ones, slugs shared, two projects — and an ids file with 3 rows that cannot be used.
 * The import is killed half-way and run again; then the files hold every product once, with values
 * equal to the live records; the 3 rows are named; `preview` shows 200 adoptions and no update but
 * the one product changed on the service since, with its field; `up` sends that one write; `drift` finds nothing; `destroy` gives the products back as found, not archived.
 */
import { readFileSync, readdirSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { RunReport } from "../../provider/catalog/report";
import { PRODUCT_FIELD_NAMES } from "../../provider/contract/schemas";
import { DEFAULT_IDS, type Simulator } from "pulumi-serviceapi-simulator";
import { clientFor } from "../helpers";
import { until } from "../../scripts/engine/async";
import { ENGINE_TIMEOUT_MS } from "../../scripts/engine/driver";
import { killTree } from "../../scripts/engine/processes";
import { catalogUserFor, type CatalogUser } from "./catalog-support";
import { step } from "./suite";

const MISSING = "0b3f2a8e-5b7c-4f1e-9a6d-2c4e8f0a1b3d";

describe("serviceapi-catalog import: existing products into the catalog", { timeout: ENGINE_TIMEOUT_MS * 3 }, () => {
  let sim: Simulator;
  let user: CatalogUser;
  catalogUserFor((made) => ({ sim, user } = made));

  it("killed and run again: every product once, as live; 3 rows named; preview adopts 200, the changes shown; up writes only those", async () => {
    const ids: { id: string; project: string }[] = [];

    await step("200 products made by hand, in two projects", async () => {
      const { client } = clientFor(sim);
      for (let n = 0; n < 200; n++) {
        const web = n % 3 !== 0;
        const product = await client.createProduct({
          projectId: web ? DEFAULT_IDS.acmeWeb : DEFAULT_IDS.acmeDocs,
          title: n % 7 === 0 ? `Café ✓ 製品 ${n}` : `Plan ${n}`,
          // Every tenth has no slug; two products share each slug of the 50s (keys must still be unique).
          ...(n % 10 !== 0 && { slug: n >= 50 && n < 60 ? "shared" : `plan-${n}` }),
          ...(n % 4 === 0 && { description: `${'Long text, with "quotes", a: colon and # hash. '.repeat(40)}${n}\n  second line` }),
          ...(n % 5 === 0 && { externalCheckoutUrl: `https://shop.example.com/p/${n}?a=1&b=2` }),
        });
        if (n % 6 === 0) await client.updateProduct(product.id, { status: "archived" });
        else if (n % 2 === 0) await client.updateProduct(product.id, { status: "active" });
        ids.push({ id: product.id, project: web ? "Acme Web" : DEFAULT_IDS.acmeDocs });
      }
      const rows = [
        "id,project",
        ...ids.map((r) => `${r.id},${r.project}`),
        "not-a-uuid,Acme Web",
        `${MISSING},Acme Web`,
        `${ids[1]!.id.replace(/^.{8}/, "aaaaaaaa")},No Such Project`,
      ];
      writeFileSync(join(user.repo, "ids.csv"), `${rows.join("\n")}\n`);
    });

    await step("an import killed half-way, then run again: each id read once or twice at most, the files written once", async () => {
      // Slow reads, so the kill lands among them.
      sim.addFault({ operation: "products.update", kind: "delay", delayMs: 40, times: 1000 });
      sim.clearRequests();
      const journal = join(user.repo, ".serviceapi-catalog", "import.jsonl");
      const first = user.start(["import", "ids.csv", "--parallel", "4"]);
      await until("80 reads journaled", () => existsSync(journal) && readFileSync(journal, "utf8").split("\n").length > 80);
      killTree(first.child.pid!);
      await first.run;
      expect(readdirSync(join(user.repo, "catalog"))).toEqual([]);
      const readBefore = sim.requests("products.update").length;
      sim.clearFaults();

      const again = await user.tool(["import", "ids.csv", "--parallel", "4"]);
      const [earlier, ...progress] = again.stderr.trimEnd().split("\n");
      const other = /^import: \d+ read by an earlier run \(.*import\.jsonl\); reading the other (\d+)$/.exec(earlier!);
      expect(other, again.stderr).not.toBeNull();
      // Where it is (stderr is not a terminal): a plain line as the reads start, then one every 10 s at most.
      expect(progress[0]).toBe(`import: 0/${other![1]} records, 0.0 requests/s, 0 refused, time left not known yet`);
      for (const line of progress) expect(line).toMatch(/^import: [\d,]+\/[\d,]+ records, [\d.]+ requests\/s, \d+ refused, /);
      expect(again.code).toBe(1);
      const lines = again.stdout.trimEnd().split("\n");
      expect(lines[0]).toMatch(/^import: 200 product\(s\) written into 2 file\(s\) of catalog; \d+ request\(s\)$/);
      expect(lines.slice(1, 3)).toEqual(["  acme-docs.yaml: 67", "  acme-web.yaml: 133"]);
      expect(lines.slice(3)).toEqual([
        "left out of the file, as written (1):",
        "  line 202: the id is not a UUID",
        "not read (2):",
        `  ${ids[1]!.id.replace(/^.{8}/, "aaaaaaaa")} (line 204): its project is not one the token can see (neither a project's name nor its id)`,
        `  ${MISSING} (line 203): not found (no such product, or the token cannot see it)`,
        "Next: review the files (git diff), then `serviceapi-catalog preview`: adoptions only, no change to any product",
      ]);
      // Reads: each of the 201 ids with a known project once, plus those in flight at the kill (at most --parallel) and the 404 again.
      const reads = sim.requests("products.update").length;
      expect(reads).toBeGreaterThanOrEqual(201);
      expect(reads).toBeLessThanOrEqual(201 + 4 + 1);
      expect(readBefore).toBeGreaterThanOrEqual(80);
    });

    await step("the files: every product once, each field as the service holds it, with its adoptId", async () => {
      const entries = new Map<string, Record<string, unknown>>();
      for (const file of readdirSync(join(user.repo, "catalog"))) {
        const data = parse(readFileSync(join(user.repo, "catalog", file), "utf8")) as Record<string, Record<string, unknown>>;
        expect(Object.keys(data)).toEqual(Object.keys(data).sort());
        for (const [key, entry] of Object.entries(data)) {
          expect(entries.has(entry.adoptId as string)).toBe(false);
          entries.set(entry.adoptId as string, { key, ...entry });
        }
      }
      expect(entries.size).toBe(200);
      for (const live of sim.products()) {
        const entry = entries.get(live.id)!;
        for (const field of PRODUCT_FIELD_NAMES) expect([live.id, field, entry[field] ?? null]).toEqual([live.id, field, live[field]]);
        expect(entry.project ?? entry.projectId).toBe(live.projectId === DEFAULT_IDS.acmeWeb ? "Acme Web" : "Acme Docs");
      }
      // Shared slugs: each key carries the id's first 8 characters.
      const shared = [...entries.values()].filter((e) => e.slug === "shared");
      expect(shared.map((e) => e.key).sort()).toEqual(shared.map((e) => `shared-${(e.adoptId as string).slice(0, 8)}`).sort());
      user.git("add", "-A");
      user.git("commit", "--quiet", "-m", "import");
    });

    await step("preview: 200 adoptions, the one changed since the import with its field; up: that one write; drift: nothing", async () => {
      // Changed on the service after the import: its adoption sets it back, and the report says so before up does it.
      const changed = ids[2]!.id;
      const { client } = clientFor(sim);
      await client.updateProduct(changed, { status: "draft" });
      const preview = await user.tool(["preview", "--json"]);
      expect(preview.code).toBe(0);
      const results = (JSON.parse(preview.stdout) as RunReport).results;
      const adopts = results.flatMap((r) => r.changes.filter((c) => c.op === "adopt"));
      expect(adopts).toHaveLength(200);
      expect(adopts.filter((a) => a.fields.length > 0)).toEqual([
        { key: expect.any(String), op: "adopt", adoptId: changed, fields: [{ field: "status", from: "draft", to: "active" }], reasons: [] },
      ]);
      expect(results.flatMap((r) => r.changes.filter((c) => c.op !== "adopt"))).toEqual([]);
      sim.clearRequests();
      const up = await user.tool(["up"]);
      expect(up.code).toBe(0);
      expect(up.stdout).toContain(`(adopted ${changed})\n      status: "draft" → "active"\n`);
      const writes = sim.requests().filter((r) => r.method === "POST" || (r.method === "PATCH" && JSON.stringify(r.body) !== "{}"));
      expect(writes.map((r) => [r.method, r.path, r.body])).toEqual([
        ["PATCH", `/api/v1/public/products/${changed}`, { status: "active" }],
      ]);
      const drift = await user.tool(["drift"]);
      expect(drift.code).toBe(0);
    });

    await step(
      "a second import of the same file: every id named as in the catalog already; only the one not found is read again",
      async () => {
        sim.clearRequests();
        const again = await user.tool(["import", "ids.csv"]);
        expect(again.stdout).toContain("import: 0 product(s) written into 0 file(s)");
        expect(again.stdout).toContain("left out (200):");
        expect(sim.requests("products.update").map((r) => r.path)).toEqual([`/api/v1/public/products/${MISSING}`]);
        expect(user.git("status", "--porcelain", "--", "catalog")).toBe("");
      },
    );

    await step("destroy gives every product back as found: the archived stay archived, none archived by it", async () => {
      // As found at adoption: the one whose status the adoption set (draft → active) goes back to draft.
      const before = new Map(sim.products().map((p) => [p.id, p.id === ids[2]!.id ? "draft" : p.status]));
      const destroy = await user.tool(["destroy", "--yes"]);
      expect(destroy.code).toBe(0);
      expect(new Map(sim.products().map((p) => [p.id, p.status]))).toEqual(before);
    });
  });
});
