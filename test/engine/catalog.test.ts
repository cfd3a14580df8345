/**
 * `serviceapi-catalog` end to end, as a platform team runs it (issue 27's "Done when"): the
 * installed bin as a child process, the real Pulumi CLI, a file backend, a git repository for
 * `--base`, and the simulator in this process counting what reaches the service. One scenario of
 * ordered steps (terraform-provider-tfe's acceptance-test style) on one catalog of 60 products:
 * first deploy over 4 stacks, a 2-product pull request previewed and deployed in its stacks only,
 * drift found from a clean runner, a split with `pulumi state move` and 0 requests, a failed stack
 * resumed alone, refusals that stop before any stack, destroy.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServiceApiClient } from "../../provider";
import type { Simulator } from "../../simulator";
import { DEFAULT_IDS } from "../../simulator/seed";
import { simulator } from "../helpers";
import { ENGINE_TIMEOUT_MS, pulumiCli } from "../support/engine";
import { CatalogUser, byRoute, progressLines, reportLines, type Entry } from "./catalog-support";
import { step } from "./suite";

const TOKEN_CHECK = "GET /v1/projects?limit=1";
/** The program's lookup of "Acme Web" by name: one per stack the command runs (4 projects fit one page). */
const LOOKUP = "GET /v1/projects?limit=100";
const CREATE = "POST /api/v1/public/products";
const UPDATE = "PATCH /api/v1/public/products/:id";
const FIRST_STACKS = ["catalog-00", "catalog-01", "catalog-10", "catalog-11"];
const SPLIT_STACKS = [
  "catalog-000",
  "catalog-001",
  "catalog-010",
  "catalog-011",
  "catalog-100",
  "catalog-101",
  "catalog-110",
  "catalog-111",
];
const PRODUCT_FIELDS = "project, projectId, title, slug, description, status, externalCheckoutUrl, onDelete, adoptId";

function product(n: number): Entry {
  return { project: "Acme Web", title: `Product ${n}`, slug: `product-${n}` };
}

/** 60 products, p00 … p59, 20 to a file. */
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

describe("serviceapi-catalog end to end: 60 products over 4 stacks, then 8", { timeout: ENGINE_TIMEOUT_MS * 3 }, () => {
  let sim: Simulator;
  let user: CatalogUser;

  beforeAll(async () => {
    // A CLI build can take minutes: outside the test's timeout.
    await pulumiCli();
    sim = await simulator();
    user = await CatalogUser.create(sim);
  }, 30 * 60_000);

  afterAll(() => user?.dispose());

  it("plan, up, a 2-product change in its stacks only, drift, split with 0 requests, resume, refusals, destroy", async () => {
    const stderrOk = (stacks: string[]) => stacks.map((s) => `${s}: ok`);
    let ids = new Map<string, { stack: string; id: string }>();

    await step("1. plan, then the first up of 60 products in 3 files", async () => {
      Object.assign(user.files, sixtyProducts());
      user.writeCatalog();

      const plan = await user.tool(["plan", "--json", "--stack-size", "20"]);
      expect([plan.code, plan.stderr]).toEqual([0, ""]);
      expect(JSON.parse(plan.stdout)).toMatchObject({
        stacks: FIRST_STACKS,
        matrix: { stack: FIRST_STACKS },
        any: true,
        splits: [],
        change: null,
        layout: { stacks: 4, products: 60, fresh: true },
      });
      expect(byRoute(sim)).toEqual({});

      const up = await user.tool(["up", "--stack-size", "20", "--parallel", "4"]);
      expect(up.code, up.stdout + up.stderr).toBe(0);
      const lines = reportLines(up.stdout);
      expect(lines[0]).toBe("serviceapi-catalog up: 4 of 4 stack(s)");
      expect(lines.filter((l) => /^catalog-/.test(l))).toEqual([
        "catalog-00 (14 products): 14 created; 15 request(s), N s",
        "catalog-01 (12 products): 12 created; 13 request(s), N s",
        "catalog-10 (16 products): 16 created; 17 request(s), N s",
        "catalog-11 (18 products): 18 created; 19 request(s), N s",
      ]);
      // Per stack, every request its processes sent (its program's lookup included, counted by the shared pacer); the total adds the token check.
      expect(lines.at(-1)).toBe(
        "Total: 60 created, 0 updated, 0 replaced, 0 deleted; 65 request(s) sent (the token check included); 0 stack(s) failed",
      );
      expect(progressLines(up.stderr)).toEqual(stderrOk(FIRST_STACKS));
      expect(byRoute(sim)).toEqual({ [TOKEN_CHECK]: 1, [LOOKUP]: 4, [CREATE]: 60 });
      expect(
        sim
          .requests("products.create")
          .map((r) => r.body)
          .sort((a, b) => ((a as { title: string }).title < (b as { title: string }).title ? -1 : 1)),
      ).toEqual(
        Array.from({ length: 60 }, (_, n) => ({ projectId: DEFAULT_IDS.acmeWeb, title: `Product ${n}`, slug: `product-${n}` })).sort(
          (a, b) => (a.title < b.title ? -1 : 1),
        ),
      );

      expect(user.stacks()).toEqual(FIRST_STACKS);
      ids = user.products();
      expect([...ids.keys()].sort()).toEqual(
        Object.values(user.files)
          .flatMap((entries) => Object.keys(entries))
          .sort(),
      );
      // Each create's line reached stderr as it came (the trace a killed run leaves, docs/recovery.md): key and id as the state has them.
      const createdLines = up.stderr
        .split("\n")
        .filter((line) => line.includes("serviceapi: created"))
        .sort();
      expect(createdLines).toEqual([...ids].map(([key, { stack, id }]) => `${stack}: serviceapi: created Product "${key}" ${id}`).sort());
      // Each stack's state holds exactly the products the report listed as created in it.
      const created = new Map<string, string>();
      let stack = "";
      for (const line of lines) {
        if (/^catalog-/.test(line)) stack = line.split(" ")[0]!;
        else if (line.startsWith("  + ")) created.set(line.slice(4), stack);
      }
      expect(new Map([...ids].map(([key, { stack }]) => [key, stack]))).toEqual(created);
      expect(sim.products().filter((p) => p.status !== "archived")).toHaveLength(60);
    });

    await step("2. a pull request changing 2 products: plan, preview and up touch only their stacks", async () => {
      user.git("add", "catalog");
      user.git("commit", "--quiet", "-m", "60 products");
      user.files["a.yaml"]!.p08!.title = "Product Eight";
      user.files["a.yaml"]!.p13!.slug = "product-thirteen";
      user.writeCatalog();
      sim.clearRequests();

      const plan = await user.tool(["plan", "--base", "HEAD", "--json", "--stack-size", "20"]);
      expect([plan.code, plan.stderr]).toEqual([0, ""]);
      expect(JSON.parse(plan.stdout)).toMatchObject({
        stacks: ["catalog-00", "catalog-11"],
        matrix: { stack: ["catalog-00", "catalog-11"] },
        change: { added: [], changed: ["p08", "p13"], removed: [] },
        layout: { stacks: 4, products: 60, fresh: false },
      });
      expect(byRoute(sim)).toEqual({});

      const preview = await user.tool(["preview", "--base", "HEAD", "--stack-size", "20", "--parallel", "4"]);
      expect(preview.code, preview.stdout + preview.stderr).toBe(0);
      expect(reportLines(preview.stdout)).toEqual([
        "serviceapi-catalog preview: 2 of 4 stack(s) (changed since HEAD: 0 added, 2 changed, 0 removed)",
        "catalog-00 (14 products): 1 to update; 1 request(s), N s",
        "  ~ p08: title",
        "catalog-11 (18 products): 1 to update; 1 request(s), N s",
        "  ~ p13: slug",
        "Total: 0 to create, 2 to update, 0 to replace, 0 to delete; 3 request(s) sent (the token check included); 0 stack(s) failed",
      ]);
      expect(progressLines(preview.stderr)).toEqual(stderrOk(["catalog-00", "catalog-11"]));
      // No write and no read of a product: the token check, and the project lookup of the 2 stacks that ran.
      expect(byRoute(sim)).toEqual({ [TOKEN_CHECK]: 1, [LOOKUP]: 2 });

      sim.clearRequests();
      const up = await user.tool(["up", "--base", "HEAD", "--stack-size", "20", "--parallel", "4"]);
      expect(up.code, up.stdout + up.stderr).toBe(0);
      expect(reportLines(up.stdout)).toEqual([
        "serviceapi-catalog up: 2 of 4 stack(s) (changed since HEAD: 0 added, 2 changed, 0 removed)",
        "catalog-00 (14 products): 1 updated; 2 request(s), N s",
        "  ~ p08: title",
        "catalog-11 (18 products): 1 updated; 2 request(s), N s",
        "  ~ p13: slug",
        "Total: 0 created, 2 updated, 0 replaced, 0 deleted; 5 request(s) sent (the token check included); 0 stack(s) failed",
      ]);
      expect(byRoute(sim)).toEqual({ [TOKEN_CHECK]: 1, [LOOKUP]: 2, [UPDATE]: 2 });
      expect(writes(sim)).toEqual(
        [
          [`PATCH /api/v1/public/products/${ids.get("p08")!.id}`, { title: "Product Eight" }],
          [`PATCH /api/v1/public/products/${ids.get("p13")!.id}`, { slug: "product-thirteen" }],
        ].sort(([a], [b]) => (a! < b! ? -1 : 1)),
      );
    });

    await step("3. drift from a clean runner: exit 7, the field named in its stack only", async () => {
      user.git("add", "catalog");
      user.git("commit", "--quiet", "-m", "p08 and p13");
      // Changed in the service's UI: behind Pulumi's back.
      const client = new ServiceApiClient({ baseUrl: sim.url, token: sim.token });
      try {
        await client.updateProduct(ids.get("p08")!.id, { title: "Changed by hand" });
      } finally {
        await client.close();
      }
      user.cleanRunner();
      sim.clearRequests();

      const drift = await user.tool(["drift", "--stack-size", "20", "--parallel", "4"]);
      expect(drift.code, drift.stdout + drift.stderr).toBe(7);
      expect(reportLines(drift.stdout)).toEqual([
        "serviceapi-catalog drift: 4 of 4 stack(s)",
        "catalog-00 (14 products): 1 drifted; 15 request(s), N s",
        "  ~ p08: title",
        "catalog-01 (12 products): no drift; 13 request(s), N s",
        "catalog-10 (16 products): no drift; 17 request(s), N s",
        "catalog-11 (18 products): no drift; 19 request(s), N s",
        "Total: 0 to create, 1 drifted, 0 to replace, 0 to delete; 65 request(s) sent (the token check included); 0 stack(s) failed",
      ]);
      // One read of each product (the API's read is an empty PATCH), nothing written.
      expect(byRoute(sim)).toEqual({ [TOKEN_CHECK]: 1, [LOOKUP]: 4, [UPDATE]: 60 });
      expect(writes(sim)).toEqual([]);
      expect(new Set(sim.requests("products.update").map((r) => r.path)).size).toBe(60);
      expect(sim.products().find((p) => p.id === ids.get("p08")!.id)?.title).toBe("Changed by hand");
    });

    await step("4. split to stacks of 10 with pulumi state move: 0 requests, the same records, no changes after", async () => {
      sim.clearRequests();
      const plan = await user.tool(["plan", "--stack-size", "10"]);
      expect(plan.code, plan.stdout + plan.stderr).toBe(0);
      const due = plan.stdout.split("\n").filter((l) => l.startsWith("split due:"));
      expect(due.map((l) => l.replace(/ \(.*; no request to the service\)$/, ""))).toEqual([
        "split due: catalog-00 → catalog-000, catalog-001",
        "split due: catalog-01 → catalog-010, catalog-011",
        "split due: catalog-10 → catalog-100, catalog-101",
        "split due: catalog-11 → catalog-110, catalog-111",
      ]);

      const split = await user.tool(["split", "--stack-size", "10"]);
      expect(split.code, split.stdout + split.stderr).toBe(0);
      expect(split.stdout.trimEnd().split("\n")).toEqual([
        "split catalog-00 into catalog-000 (8), catalog-001 (6): moved with pulumi state move, no request to the service",
        "split catalog-01 into catalog-010 (5), catalog-011 (7): moved with pulumi state move, no request to the service",
        "split catalog-10 into catalog-100 (7), catalog-101 (9): moved with pulumi state move, no request to the service",
        "split catalog-11 into catalog-110 (10), catalog-111 (8): moved with pulumi state move, no request to the service",
      ]);
      expect(sim.requests()).toEqual([]);

      expect(user.stacks()).toEqual(SPLIT_STACKS);
      const after = user.products();
      // The same 60 records under the same keys, each moved only into a half of the stack that held it.
      expect(new Map([...after].map(([key, { id }]) => [key, id]))).toEqual(new Map([...ids].map(([key, { id }]) => [key, id])));
      for (const [key, { stack }] of after) expect([key, stack.slice(0, -1)]).toEqual([key, ids.get(key)!.stack]);
      ids = after;

      const preview = await user.tool(["preview", "--stack-size", "10", "--parallel", "4"]);
      expect(preview.code, preview.stdout + preview.stderr).toBe(0);
      expect(reportLines(preview.stdout)).toEqual([
        "serviceapi-catalog preview: 8 of 8 stack(s)",
        "catalog-000 (8 products): no changes; 1 request(s), N s",
        "catalog-001 (6 products): no changes; 1 request(s), N s",
        "catalog-010 (5 products): no changes; 1 request(s), N s",
        "catalog-011 (7 products): no changes; 1 request(s), N s",
        "catalog-100 (7 products): no changes; 1 request(s), N s",
        "catalog-101 (9 products): no changes; 1 request(s), N s",
        "catalog-110 (10 products): no changes; 1 request(s), N s",
        "catalog-111 (8 products): no changes; 1 request(s), N s",
        "Total: 0 to create, 0 to update, 0 to replace, 0 to delete; 9 request(s) sent (the token check included); 0 stack(s) failed",
      ]);
      expect(byRoute(sim)).toEqual({ [TOKEN_CHECK]: 1, [LOOKUP]: 8 });
      expect(sim.products()).toHaveLength(60);
      expect(sim.products().filter((p) => p.status === "archived")).toEqual([]);
    });

    await step("5. one stack fails (a project that does not exist); the re-run runs only that stack", async () => {
      // p60's hash puts it in catalog-000 (8 products, room for one more at --stack-size 10).
      user.files["c.yaml"]!.p60 = { ...product(60), project: "No Such Project" };
      user.writeCatalog();
      sim.clearRequests();

      const failed = await user.tool(["up", "--stack-size", "10", "--parallel", "4"]);
      expect(failed.code, failed.stdout + failed.stderr).toBe(1);
      const lines = reportLines(failed.stdout);
      expect(lines.slice(0, 3)).toEqual([
        "serviceapi-catalog up: 8 of 8 stack(s)",
        "catalog-000 (9 products): nothing done; 2 request(s), N s — FAILED",
        expect.any(String),
      ]);
      expect(lines[2]).toMatch(
        /^ {2}error: getProjectOutput: no project is named "No Such Project" \(4 projects listed, none with a close name\)\. Check the name \(it is matched exactly, case included\), or pass id\.$/,
      );
      expect(lines.slice(3)).toEqual([
        "catalog-001 (6 products): no changes; 1 request(s), N s",
        "catalog-010 (5 products): no changes; 1 request(s), N s",
        "catalog-011 (7 products): no changes; 1 request(s), N s",
        "catalog-100 (7 products): no changes; 1 request(s), N s",
        "catalog-101 (9 products): no changes; 1 request(s), N s",
        "catalog-110 (10 products): no changes; 1 request(s), N s",
        "catalog-111 (8 products): no changes; 1 request(s), N s",
        "Total: 0 created, 0 updated, 0 replaced, 0 deleted; 10 request(s) sent (the token check included); 1 stack(s) failed",
      ]);
      expect(progressLines(failed.stderr)).toEqual(["catalog-000: failed", ...stderrOk(SPLIT_STACKS.slice(1))]);
      expect(byRoute(sim)).toEqual({ [TOKEN_CHECK]: 1, [LOOKUP]: 9 });

      user.files["c.yaml"]!.p60 = product(60);
      user.writeCatalog();
      sim.clearRequests();
      const resumed = await user.tool(["up", "--stack-size", "10", "--parallel", "4"]);
      expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
      expect(reportLines(resumed.stdout)).toEqual([
        "serviceapi-catalog up: 1 of 8 stack(s)",
        "catalog-000 (9 products): 1 created; 2 request(s), N s",
        "  + p60",
        ...SPLIT_STACKS.slice(1).map((s) => `${s}: skipped, done in the run before with the same products (--all runs it again)`),
        "Total: 1 created, 0 updated, 0 replaced, 0 deleted; 3 request(s) sent (the token check included); 0 stack(s) failed, 7 skipped",
      ]);
      expect(progressLines(resumed.stderr)).toEqual(stderrOk(["catalog-000"]));
      expect(byRoute(sim)).toEqual({ [TOKEN_CHECK]: 1, [LOOKUP]: 1, [CREATE]: 1 });
      expect(sim.requests("products.create").map((r) => r.body)).toEqual([
        { projectId: DEFAULT_IDS.acmeWeb, title: "Product 60", slug: "product-60" },
      ]);
      ids = user.products();
      expect(ids.size).toBe(61);
      expect(ids.get("p60")?.stack).toBe("catalog-000");
    });

    await step("6. refusals stop before any stack: a bad catalog, a refused token, a malformed token", async () => {
      const backend = user.backendDigest();
      const good = structuredClone(user.files);

      user.files["b.yaml"]!["long-title"] = { project: "Acme Web", title: "x".repeat(1025) };
      user.files["c.yaml"]!.colourful = { project: "Acme Web", title: "Colourful", colour: "red" };
      user.writeCatalog();
      sim.clearRequests();
      const bad = await user.tool(["up", "--stack-size", "10", "--parallel", "4"]);
      expect(bad).toEqual({
        code: 2,
        stdout: "",
        stderr:
          "serviceapi-catalog: the catalog has 2 problem(s); nothing was run:\n" +
          "  b.yaml: long-title: title must be 1 to 1024 characters long (got 1025)\n" +
          `  c.yaml: colourful: colour is not a catalog field (one of ${PRODUCT_FIELDS})\n`,
      });
      expect(sim.requests()).toEqual([]);
      expect(user.backendDigest()).toBe(backend);

      for (const file of Object.keys(good)) user.files[file] = good[file]!;
      user.writeCatalog();
      const refused = await user.tool(["up", "--stack-size", "10", "--parallel", "4"], { SERVICEAPI_TOKEN: "sim_revoked_token_0001" });
      expect([refused.code, refused.stdout]).toEqual([2, ""]);
      expect(refused.stderr).toMatch(
        /^serviceapi-catalog: no stack was run: projects\.list failed: 401 unauthorized: invalid public API token [^\n]*\n$/,
      );
      expect(refused.stderr).not.toContain("sim_revoked_token_0001");
      // One refused request for the whole run, not one per stack.
      expect(sim.requests().map((r) => [r.method, r.path, r.status])).toEqual([["GET", "/v1/projects?limit=1", 401]]);
      expect(user.backendDigest()).toBe(backend);

      sim.clearRequests();
      const malformed = await user.tool(["up", "--stack-size", "10"], { SERVICEAPI_TOKEN: "short" });
      expect(malformed).toEqual({
        code: 2,
        stdout: "",
        stderr: "serviceapi-catalog: token is too short (5 characters; at least 8): check SERVICEAPI_TOKEN or serviceapi:token\n",
      });
      expect(sim.requests()).toEqual([]);
      expect(user.backendDigest()).toBe(backend);
    });

    await step("7. destroy: every product archived, one PATCH each; every catalog stack removed", async () => {
      sim.clearRequests();
      const destroy = await user.tool(["destroy", "--stack-size", "10", "--parallel", "4"]);
      expect(destroy.code, destroy.stdout + destroy.stderr).toBe(0);
      const lines = reportLines(destroy.stdout);
      expect(lines[0]).toBe("serviceapi-catalog destroy: 8 of 8 stack(s)");
      expect(lines.at(-1)).toBe(
        "Total: 0 created, 0 updated, 0 replaced, 61 deleted; 62 request(s) sent (the token check included); 0 stack(s) failed",
      );
      expect(progressLines(destroy.stderr)).toEqual(stderrOk(SPLIT_STACKS));
      expect(byRoute(sim)).toEqual({ [TOKEN_CHECK]: 1, [UPDATE]: 61 });
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
