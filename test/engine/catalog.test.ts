/**
 * `serviceapi-catalog` end to end, as a platform team lives with it (issues 27 and 32): the
 * installed bin as a child process, the real Pulumi CLI, a file backend, a git repository for
 * `--base`, and the simulator in this process counting what reaches the service. Ordered steps
 * (terraform-provider-tfe's acceptance-test style) on one catalog of three files: the first deploy,
 * a pull request whose report shows every field old → new, a pull request adding 20 products in one
 * file (its stacks only), drift found and fixed from the tool both ways (`up --refresh`, `refresh`,
 * `drift --write`), an entry moved to another file (a state move, 0 requests), a failed stack
 * resumed alone with its log named, refusals that stop before any stack, destroy.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ServiceApiClient } from "../../provider";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { DEFAULT_IDS } from "../../simulator/seed";
import { ENGINE_TIMEOUT_MS } from "../../scripts/engine/driver";
import { catalogUserFor, type CatalogUser, byRoute, progressLines, reportLines, withoutPlanning, type Entry } from "./catalog-support";
import { step } from "./suite";
import { expectSchema } from "./json-schema";

/** The tool's one listing of the projects (its token check too): one per run. */
const LISTING = "GET /v1/projects?limit=100";
const CREATE = "POST /api/v1/public/products";
const UPDATE = "PATCH /api/v1/public/products/:id";
const STACKS = ["catalog-a.all", "catalog-b.all", "catalog-c.all"];

function product(n: number): Entry {
  return { project: "Acme Web", title: `Product ${n}`, slug: `product-${n}` };
}

/** 60 products, p00 … p59, 20 to a file: a.yaml, b.yaml, c.yaml (three groups). */
function sixtyProducts(): Record<string, Record<string, Entry>> {
  const files: Record<string, Record<string, Entry>> = {};
  for (const [f, file] of ["a.yaml", "b.yaml", "c.yaml"].entries()) {
    files[file] = Object.fromEntries(
      Array.from({ length: 20 }, (_, i) => f * 20 + i).map((n) => [`p${String(n).padStart(2, "0")}`, product(n)]),
    );
  }
  return files;
}

/** The `METHOD path` → body of every request with a body other than `{}` (the empty PATCH is a read). */
function writes(sim: Simulator): [string, unknown][] {
  return sim
    .requests()
    .filter((r) => r.operation !== null && r.body !== null && Object.keys(r.body as object).length > 0)
    .map((r): [string, unknown] => [`${r.method} ${r.path}`, r.body])
    .sort(([a], [b]) => (a < b ? -1 : 1));
}

async function changeOnTheService(sim: Simulator, id: string, body: Record<string, unknown>): Promise<void> {
  const client = new ServiceApiClient({ baseUrl: sim.url, token: sim.token });
  try {
    await client.updateProduct(id, body);
  } finally {
    await client.close();
  }
}

describe("serviceapi-catalog end to end: three files, the GitOps loop", { timeout: ENGINE_TIMEOUT_MS * 3 }, () => {
  let sim: Simulator;
  let user: CatalogUser;
  catalogUserFor((made) => ({ sim, user } = made));

  it("deploy, review with values, drift fixed both ways, moves, resume, refusals, destroy", async () => {
    const ok = (stacks: string[]) => stacks.map((s) => `${s}: ok`);
    let ids = new Map<string, { stack: string; id: string }>();
    const idOf = (key: string) => ids.get(key)!.id;

    await step("1. plan, then the first up: each file its own stack", async () => {
      Object.assign(user.files, sixtyProducts());
      user.writeCatalog();

      const plan = await user.tool(["plan", "--json", "--stack-size", "20", "--batch-size", "2"]);
      expect([plan.code, plan.stderr]).toEqual([0, ""]);
      expectSchema("plan", JSON.parse(plan.stdout), "the first plan");
      expect(JSON.parse(plan.stdout)).toMatchObject({
        stacks: STACKS,
        matrix: { stack: STACKS },
        any: true,
        batches: { deploy: ["catalog-a.all,catalog-b.all", "catalog-c.all"], preview: ["catalog-a.all,catalog-b.all", "catalog-c.all"] },
        splits: [],
        moves: [],
        blocked: [],
        change: null,
        layout: { stacks: 3, products: 60, fresh: true },
      });
      expect(byRoute(sim)).toEqual({});

      const up = await user.tool(["up", "--stack-size", "20", "--parallel", "3"]);
      expect(up.code, up.stdout + up.stderr).toBe(0);
      const lines = reportLines(up.stdout);
      expect(lines[0]).toBe("serviceapi-catalog up: 3 of 3 stack(s)");
      expect(lines.filter((l) => /^catalog-/.test(l))).toEqual(STACKS.map((s) => `${s} (20 products): 20 created; 20 request(s), N s`));
      // Each create with the values it sets, as `pulumi preview --diff` shows a new resource.
      const p00 = lines.indexOf("  + p00");
      expect(lines.slice(p00, p00 + 3)).toEqual(["  + p00", '      title: "Product 0"', '      slug: "product-0"']);
      expect(lines.at(-1)).toBe(
        "Total: 60 created, 0 adopted, 0 updated, 0 replaced, 0 removed; 61 request(s) sent (the project listing included); 0 stack(s) failed",
      );
      expect(progressLines(up.stderr)).toEqual(ok(STACKS));
      expect(byRoute(sim)).toEqual({ [LISTING]: 1, [CREATE]: 60 });
      expect(user.stacks()).toEqual(STACKS);
      ids = user.products();
      expect([...ids].map(([key, { stack }]) => `${key} ${stack}`).sort()).toEqual(
        Object.entries(user.files)
          .flatMap(([file, entries]) => Object.keys(entries).map((key) => `${key} catalog-${file.replace(".yaml", "")}.all`))
          .sort(),
      );
      // Each create's line reached stderr as it came (the trace of a killed run's log): key and id as the state has them.
      const created = up.stderr
        .split("\n")
        .filter((line) => line.includes(": created Product "))
        .sort();
      expect(created).toEqual([...ids].map(([key, { stack, id }]) => `${stack}: created Product "${key}" ${id}`).sort());
    });

    await step(
      "2. a pull request changing 3 fields of one product and a slug of another: values old → new, archiving called out",
      async () => {
        user.git("add", "catalog");
        user.git("commit", "--quiet", "-m", "60 products");
        user.files["a.yaml"]!.p08 = { project: "Acme Web", title: "Product Eight", slug: "product-8", status: "archived" };
        user.files["b.yaml"]!.p33!.slug = "product-thirty-three";
        user.files["a.yaml"]!.p02!.description = "d".repeat(80);
        user.writeCatalog();
        // p08 loses its slug? No: it keeps it; its description is cleared below, on the service, to show a cleared field too.
        await changeOnTheService(sim, idOf("p08"), { description: "Set in the UI" });
        await user.tool(["refresh", "--stack", "catalog-a.all"]);
        sim.clearRequests();

        const plan = await user.tool(["plan", "--base", "HEAD", "--json", "--stack-size", "20"]);
        expectSchema("plan", JSON.parse(plan.stdout), "a plan of a change (--base)");
        expect([plan.code, plan.stderr]).toEqual([0, ""]);
        expect(JSON.parse(plan.stdout)).toMatchObject({
          stacks: ["catalog-a.all", "catalog-b.all"],
          change: { added: [], changed: ["p02", "p08", "p33"], removed: [] },
        });
        expect(byRoute(sim)).toEqual({});

        // A preview writes nothing to the backend: a pull request's job can hold read-only backend credentials.
        const backend = user.backendDigest();
        const preview = await user.tool(["preview", "--base", "HEAD", "--stack-size", "20", "--parallel", "2"]);
        expect(preview.code, preview.stdout + preview.stderr).toBe(0);
        expect(user.backendDigest()).toBe(backend);
        expect(reportLines(preview.stdout)).toEqual([
          "serviceapi-catalog preview: 2 of 3 stack(s) (changed since HEAD: 0 added, 3 changed, 0 removed)",
          "catalog-a.all (20 products): 2 to update (1 to archive); 0 request(s), N s",
          "  ~ p02",
          `      description: null → "${"d".repeat(59)}…" (80 characters)`,
          "  ~ p08",
          '      title: "Product 8" → "Product Eight"',
          '      description: "Set in the UI" → null   (cleared)',
          '      status: "draft" → "archived"   ← archives it',
          "catalog-b.all (20 products): 1 to update; 0 request(s), N s",
          "  ~ p33",
          '      slug: "product-33" → "product-thirty-three"',
          "Total: 0 to create, 0 to adopt, 3 to update (1 to archive), 0 to replace, 0 to remove; 1 request(s) sent (the project listing included); 0 stack(s) failed",
        ]);
        // The JSON report (a CI matrix's, for the PR comment) carries the same values.
        const json = await user.tool(["preview", "--base", "HEAD", "--stack-size", "20", "--json"]);
        const results = JSON.parse(json.stdout).results as { stack: string; changes: { key: string; fields: unknown[] }[] }[];
        expect(results.find((r) => r.stack === "catalog-a.all")!.changes.find((u) => u.key === "p08")!.fields).toEqual([
          { field: "title", from: "Product 8", to: "Product Eight" },
          { field: "description", from: "Set in the UI", to: null },
          { field: "status", from: "draft", to: "archived" },
        ]);
        // No write and no read of a product: the project listing of each run only.
        expect(byRoute(sim)).toEqual({ [LISTING]: 2 });

        sim.clearRequests();
        const up = await user.tool(["up", "--base", "HEAD", "--stack-size", "20", "--parallel", "2"]);
        expect(up.code, up.stdout + up.stderr).toBe(0);
        expect(reportLines(up.stdout)[1]).toBe("catalog-a.all (20 products): 2 updated (1 archived); 2 request(s), N s");
        expect(writes(sim)).toEqual(
          [
            [`PATCH /api/v1/public/products/${idOf("p02")}`, { description: "d".repeat(80) }],
            [`PATCH /api/v1/public/products/${idOf("p08")}`, { title: "Product Eight", description: null, status: "archived" }],
            [`PATCH /api/v1/public/products/${idOf("p33")}`, { slug: "product-thirty-three" }],
          ].sort(([a], [b]) => (a! < b! ? -1 : 1)),
        );
        user.git("add", "catalog");
        user.git("commit", "--quiet", "-m", "p02, p08 and p33");
      },
    );

    await step("3. a pull request adding 20 products in one file previews that file's stack only; the deploy splits it", async () => {
      for (let n = 60; n < 80; n++) user.files["c.yaml"]![`p${n}`] = product(n);
      user.writeCatalog();
      sim.clearRequests();
      const plan = await user.tool(["plan", "--base", "HEAD", "--json", "--stack-size", "20"]);
      const planned = JSON.parse(plan.stdout) as {
        preview: { matrix: { stack: string[] } };
        matrix: { stack: string[] };
        splits: unknown[];
      };
      expect(planned.preview.matrix.stack).toEqual(["catalog-c.all"]);
      // The deploy runs the file's stacks after its split (40 products at 20 a stack: up to 40 ÷ 20 + 1), no other file's.
      expect(planned.matrix.stack.every((s) => s.startsWith("catalog-c."))).toBe(true);
      expect(planned.matrix.stack.length).toBeLessThanOrEqual(3);
      expect(planned.splits).toEqual([{ from: "catalog-c.all", into: planned.matrix.stack, interrupted: false }]);

      const preview = await user.tool(["preview", "--base", "HEAD", "--stack-size", "20"]);
      expect(preview.code, preview.stdout + preview.stderr).toBe(0);
      // The preview runs the stack as it is, with the split's moves due (made by the up, before it deploys).
      expect(reportLines(preview.stdout)[1]).toBe("catalog-c.all (40 products): 20 to create, 20 to move; 0 request(s), N s");
      expect(progressLines(preview.stderr)).toEqual(["catalog-c.all: ok"]);

      sim.clearRequests();
      const up = await user.tool(["up", "--base", "HEAD", "--stack-size", "20"]);
      expect(up.code, up.stdout + up.stderr).toBe(0);
      // The split moved state only: the 20 creates and the listing are all the service saw.
      expect(byRoute(sim)).toEqual({ [LISTING]: 1, [CREATE]: 20 });
      // Each product moved is named by the stack it reached (20 in all), and the old stack is gone.
      const moved = reportLines(up.stdout).filter((line) => / moved from catalog-c\.all to catalog-c\.[01]+ /.test(line));
      expect(moved.length).toBe(planned.matrix.stack.length);
      expect(reportLines(up.stdout)).toContain("  ! removed catalog-c.all: its products moved, and the layout no longer has it");
      const after = user.products();
      for (const [key, { id }] of ids) expect([key, after.get(key)?.id]).toEqual([key, id]);
      expect(after.size).toBe(80);
      expect(user.stacks()).toEqual(["catalog-a.all", "catalog-b.all", ...planned.matrix.stack].sort());
      ids = after;
      user.git("add", "catalog");
      user.git("commit", "--quiet", "-m", "20 more products");
    });

    await step("4. drift from a clean runner: named with values and the fix; drift --write makes it a catalog change", async () => {
      await changeOnTheService(sim, idOf("p00"), { title: "Changed by hand" });
      user.cleanRunner();
      sim.clearRequests();

      const drift = await user.tool(["drift", "--stack-size", "20"]);
      expect(drift.code, drift.stdout + drift.stderr).toBe(7);
      const lines = reportLines(drift.stdout);
      expect(lines.slice(0, 4)).toEqual([
        `serviceapi-catalog drift: ${user.stacks().length} of ${user.stacks().length} stack(s)`,
        "catalog-a.all (20 products): 1 drifted; 20 request(s), N s",
        "  ~ p00",
        '      title: "Product 0" → "Changed by hand"',
      ]);
      expect(lines.slice(-3)).toEqual([
        "Total: 1 drifted; 81 request(s) sent (the project listing included); 0 stack(s) failed",
        "To set them back as the catalog declares: serviceapi-catalog up --refresh --stack catalog-a.all",
        "To keep the service's values: serviceapi-catalog drift --write --stack catalog-a.all (writes them into the catalog files for a pull request), " +
          "or serviceapi-catalog refresh --stack catalog-a.all (only into the stacks' state: the next up sets them back unless the catalog changes)",
      ]);
      // One read of each product (the API's read is an empty PATCH), nothing written.
      expect(byRoute(sim)).toEqual({ [LISTING]: 1, [UPDATE]: 80 });
      expect(writes(sim)).toEqual([]);

      const write = await user.tool(["drift", "--write", "--stack", "catalog-a.all", "--stack-size", "20"]);
      expect(write.code).toBe(7);
      const diff = user
        .git("diff", "--", "catalog")
        .split("\n")
        .filter((line) => /^[-+]/.test(line));
      expect(diff).toEqual(["--- a/catalog/a.yaml", "+++ b/catalog/a.yaml", "-  title: Product 0", "+  title: Changed by hand"]);
      user.git("checkout", "--", "catalog");
    });

    await step("5. up --refresh sets it back with exactly the drifted field; the next drift exits 0", async () => {
      sim.clearRequests();
      const up = await user.tool(["up", "--refresh", "--stack", "catalog-a.all", "--stack-size", "20"]);
      expect(up.code, up.stdout + up.stderr).toBe(0);
      expect(reportLines(up.stdout).slice(0, 4)).toEqual([
        `serviceapi-catalog up --refresh: 1 of ${user.stacks().length} stack(s) (--stack catalog-a.all)`,
        "catalog-a.all (20 products): 1 updated; 21 request(s), N s",
        "  ~ p00",
        '      title: "Changed by hand" → "Product 0"',
      ]);
      expect(writes(sim)).toEqual([[`PATCH /api/v1/public/products/${idOf("p00")}`, { title: "Product 0" }]]);
      const drift = await user.tool(["drift", "--stack-size", "20"]);
      expect(drift.code, drift.stdout).toBe(0);
    });

    await step(
      "6. refresh accepts the service's value into the state: drift exits 0, the live value kept; preview shows the catalog's",
      async () => {
        await changeOnTheService(sim, idOf("p21"), { slug: "set-in-the-ui" });
        sim.clearRequests();
        const refresh = await user.tool(["refresh", "--stack", "catalog-b.all", "--stack-size", "20"]);
        expect(refresh.code, refresh.stdout + refresh.stderr).toBe(0);
        expect(reportLines(refresh.stdout).slice(1, 4)).toEqual([
          "catalog-b.all (20 products): 1 accepted; 20 request(s), N s",
          "  ~ p21",
          '      slug: "product-21" → "set-in-the-ui"',
        ]);
        expect(writes(sim)).toEqual([]);
        const drift = await user.tool(["drift", "--stack-size", "20"]);
        expect(drift.code, drift.stdout).toBe(0);
        expect(sim.products().find((p) => p.id === idOf("p21"))?.slug).toBe("set-in-the-ui");
        const preview = await user.tool(["preview", "--stack", "catalog-b.all", "--stack-size", "20"]);
        expect(reportLines(preview.stdout).slice(1, 4)).toEqual([
          "catalog-b.all (20 products): 1 to update; 0 request(s), N s",
          "  ~ p21",
          '      slug: "set-in-the-ui" → "product-21"',
        ]);
        await user.tool(["up", "--stack", "catalog-b.all", "--stack-size", "20"]);
      },
    );

    await step(
      "7. an entry moved to a new file moves to that file's stack: a state move, 0 requests, nothing created or archived",
      async () => {
        const moved = user.files["a.yaml"]!.p05!;
        delete user.files["a.yaml"]!.p05;
        user.files["d.yaml"] = { p05: moved };
        user.writeCatalog();
        const where = await user.tool(["where", "p05", "--stack-size", "20"]);
        expect(where.stdout.trim()).toBe(
          `p05: d.yaml (group d); in catalog-a.all (id ${idOf("p05")}); moves to catalog-d.all at the next split or up`,
        );
        const preview = await user.tool(["preview", "--stack-size", "20"]);
        expect(preview.code).toBe(0);
        expect(reportLines(preview.stdout).filter((l) => l.includes("p05"))).toEqual([
          "  > p05 moves to catalog-d.all (their file's stack) at the next split or up: pulumi state move, no request to the service",
        ]);
        sim.clearRequests();
        const split = await user.tool(["split", "--stack-size", "20"]);
        expect([split.code, split.stdout.trim()]).toEqual([
          0,
          "moved 1 product(s) from catalog-a.all into catalog-d.all (1) with pulumi state move, no request to the service",
        ]);
        expect(sim.requests()).toEqual([]);
        expect(user.products().get("p05")).toEqual({ stack: "catalog-d.all", id: idOf("p05") });
        const up = await user.tool(["up", "--stack-size", "20"]);
        expect(up.code, up.stdout).toBe(0);
        expect(reportLines(up.stdout).at(-1)).toBe(
          "Total: 0 created, 0 adopted, 0 updated, 0 replaced, 0 removed; 1 request(s) sent (the project listing included); 0 stack(s) failed",
        );
        ids = user.products();
      },
    );

    await step("8. a stack fails (the service answers 503): its log is named; the re-run runs it alone", async () => {
      user.files["a.yaml"]!.p80 = product(80);
      user.writeCatalog();
      sim.addFault({ operation: "products.create", kind: "error", status: 503, times: 4 });
      sim.clearRequests();
      const failed = await user.tool(["up", "--stack-size", "20", "--config", "serviceapi:maxRetries=3"]);
      expect(failed.code, failed.stdout + failed.stderr).toBe(1);
      const log = join(user.repo, ".serviceapi-catalog", "logs", "up", "catalog-a.all.log");
      const lines = reportLines(failed.stdout);
      expect(lines[1]).toBe(`catalog-a.all (20 products): nothing done; 4 request(s), N s — FAILED (log: ${log})`);
      expect(lines[2]).toMatch(/^ {2}error: p80: products\.create failed: 503 service_unavailable/);
      expect(existsSync(log) && readFileSync(log, "utf8")).toContain("products.create failed: 503");

      const resumed = await user.tool(["up", "--stack-size", "20", "--config", "serviceapi:maxRetries=3"]);
      expect(resumed.code, resumed.stdout).toBe(0);
      expect(reportLines(resumed.stdout).filter((l) => /^catalog-/.test(l))).toEqual([
        "catalog-a.all (20 products): 1 created; 1 request(s), N s",
        ...user
          .stacks()
          .filter((s) => s !== "catalog-a.all")
          .map((s) => `${s}: skipped, done in the run before with the same products and settings (--all runs it again)`),
      ]);
      expect(sim.requests("products.create").map((r) => r.body)).toEqual(
        Array.from({ length: 5 }, () => ({ projectId: DEFAULT_IDS.acmeWeb, title: "Product 80", slug: "product-80" })),
      );
      ids = user.products();
    });

    await step("9. refused before any stack: a bad catalog, a misspelt project, another team's stacks, a bad token", async () => {
      const backend = user.backendDigest();
      const good = structuredClone(user.files);

      user.files["b.yaml"]!["long-title"] = { project: "Acme Web", title: "x".repeat(1025) };
      user.writeCatalog();
      sim.clearRequests();
      const bad = await user.tool(["up", "--stack-size", "20"]);
      expect(bad).toEqual({
        code: 2,
        stdout: "",
        stderr:
          "serviceapi-catalog: the catalog has 1 problem(s); nothing was run:\n  b.yaml: long-title: title must be 1 to 1024 characters long (got 1025)\n",
      });
      expect(sim.requests()).toEqual([]);

      user.files["b.yaml"] = { ...good["b.yaml"]!, typo: { project: "Acme Wbe", title: "Typo" } };
      user.writeCatalog();
      const typo = await user.tool(["preview", "--stack-size", "20"]);
      expect(typo).toEqual({
        code: 2,
        stdout: "",
        stderr:
          "serviceapi-catalog: the catalog has 1 problem(s) with its projects; nothing was run:\n" +
          '  b.yaml: typo: project "Acme Wbe" is not a project this token can see (4 listed); the closest: "Acme Web". Check the name, or give projectId\n',
      });
      expect(byRoute(sim)).toEqual({ [LISTING]: 1 });

      // A second team's catalog in the same backend, its --stack-prefix left out: this catalog's stacks are not its removed files.
      for (const file of Object.keys(good)) {
        delete user.files[file];
        rmSync(join(user.repo, "catalog", file));
      }
      user.files["docs-team.yaml"] = { guide: { project: "Acme Web", title: "Guide" } };
      user.writeCatalog();
      sim.clearRequests();
      for (const command of ["plan", "up"]) {
        const foreign = await user.tool([command, "--stack-size", "20"]);
        expect([foreign.code, foreign.stdout]).toEqual([2, ""]);
        expect(withoutPlanning(foreign.stderr, "up")).toMatch(
          /^serviceapi-catalog: the backend's stacks under --stack-prefix "catalog-" \(catalog-a\.all, [^)]*; \d+ products\) hold none of this catalog's products, and none of its files has a stack there: .* Give this catalog a prefix of its own \(--stack-prefix, the same in every run\) or another --project; [^\n]*\n$/,
        );
      }
      expect(writes(sim)).toEqual([]);
      delete user.files["docs-team.yaml"];
      rmSync(join(user.repo, "catalog", "docs-team.yaml"));

      for (const file of Object.keys(good)) user.files[file] = good[file]!;
      user.writeCatalog();
      sim.clearRequests();
      const refused = await user.tool(["up", "--stack-size", "20"], { SERVICEAPI_TOKEN: "sim_revoked_token_0001" });
      expect([refused.code, refused.stdout]).toEqual([2, ""]);
      expect(withoutPlanning(refused.stderr, "up")).toMatch(
        /^serviceapi-catalog: no stack was run: projects\.list failed: 401 unauthorized: invalid public API token [^\n]*\n$/,
      );
      expect(refused.stderr).not.toContain("sim_revoked_token_0001");
      // One refused request for the whole run, not one per stack.
      expect(sim.requests().map((r) => [r.method, r.path, r.status])).toEqual([["GET", "/v1/projects?limit=100", 401]]);

      sim.clearRequests();
      const malformed = await user.tool(["up", "--stack-size", "20"], { SERVICEAPI_TOKEN: "short" });
      expect(malformed).toEqual({
        code: 2,
        stdout: "",
        stderr: "serviceapi-catalog: token is too short (5 characters; at least 8): check SERVICEAPI_TOKEN or serviceapi:token\n",
      });
      expect(sim.requests()).toEqual([]);
      expect(user.backendDigest()).toBe(backend);
    });

    await step("10. destroy: every product archived, one PATCH each; every catalog stack removed", async () => {
      sim.clearRequests();
      const refused = await user.tool(["destroy", "--stack-size", "20"]);
      expect(refused).toEqual({
        code: 2,
        stdout: "",
        stderr:
          "serviceapi-catalog: destroy archives every product the catalog's stacks created (or gives back those they took over) and removes the stacks: run it again with --yes\n",
      });
      expect(sim.requests()).toEqual([]);
      const destroy = await user.tool(["destroy", "--yes", "--stack-size", "20"]);
      expect(destroy.code, destroy.stdout + destroy.stderr).toBe(0);
      expect(reportLines(destroy.stdout).at(-1)).toBe(
        `Total: 0 created, 0 adopted, 0 updated, 0 replaced, ${ids.size} removed (${ids.size} archived); ${ids.size + 1} request(s) sent (the project listing included); 0 stack(s) failed`,
      );
      expect(byRoute(sim)).toEqual({ [LISTING]: 1, [UPDATE]: ids.size });
      expect(writes(sim)).toEqual(
        [...ids.values()]
          .map(({ id }): [string, unknown] => [`PATCH /api/v1/public/products/${id}`, { status: "archived" }])
          .sort(([a], [b]) => (a < b ? -1 : 1)),
      );
      expect(sim.products().filter((p) => p.status !== "archived")).toEqual([]);
      expect(user.stacks()).toEqual([]);
    });
  });
});
