/**
 * The pull-request jobs' PostgreSQL role (issue 45): it reads the catalog's state and cannot write
 * it. An administrator runs examples/catalog-tool/read-only-role.sql as the docs say; the jobs'
 * PULUMI_BACKEND_READ_URL names that role. Proven here with a real server and the real CLI, in
 * order: the deploy (the owner's URL); a pull request's `preview` and the nightly `drift` through
 * the read role, which show what the owner's URL shows and leave the state table as it was; an `up`
 * with the read role, which fails at its first write to the state having changed nothing on the
 * service; each write a pull request's code could try with those credentials, refused by
 * PostgreSQL; and, after the deploy of the change, the read role's next preview sees it (the tool
 * refreshes the role's view of the state as it opens the backend).
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import { simulator } from "../helpers";
import { ENGINE_TIMEOUT_MS, pulumiCli, REPO } from "../../scripts/engine/driver";
import { reportLines, userWithCatalog } from "./catalog-support";
import { postgresForSuite } from "./postgres";
import { step } from "./suite";

const TABLE = "catalog_state";
const ROLE = "catalog_preview";
const SQL = join(REPO, "examples", "catalog-tool", "read-only-role.sql");
/** What the script's guard says of a change the role tries (after what it tried). */
const GUARD =
  "it reads the state (examples/catalog-tool/read-only-role.sql); if this is Pulumi opening the backend, check the URL's table parameter";

describe("a read-only PostgreSQL role for the pull-request jobs", { timeout: ENGINE_TIMEOUT_MS }, () => {
  const state = postgresForSuite();
  beforeAll(async () => {
    await pulumiCli();
  }, 30 * 60_000);

  /** The read role's URL: the owner's, with the role's name (the server trusts loopback: no password). */
  const readUrl = () => state.backend(TABLE).replace(/^postgres:\/\/[^@]+@/, `postgres://${ROLE}@`);

  /** Every row of the state table, as the superuser reads it: what must not change. */
  const stateDigest = () =>
    state.admin(
      "-At",
      "-c",
      `SELECT count(*) || ' ' || md5(coalesce(string_agg(key || data::text || updated_at::text, ',' ORDER BY key), '')) FROM public.${TABLE}`,
    );

  it("preview and drift read through it; up and every direct write fail; the next preview sees the deploy", async () => {
    const sim = await simulator();
    const user = await userWithCatalog(sim, ["a", "b"], 3);
    const owner = { PULUMI_BACKEND_URL: state.backend(TABLE) };
    const reader = { PULUMI_BACKEND_URL: readUrl() };

    await step("1. the deploy (owner's URL), then the administrator's script for the read role", async () => {
      const up = await user.tool(["up"], owner);
      expect(up.code, up.stdout + up.stderr).toBe(0);
      await state.admin("-v", `role=${ROLE}`, "-v", `table=${TABLE}`, "-f", SQL);
    });

    const before = await stateDigest();
    let shown: string[] = [];
    await step("2. a pull request's preview through the read role: what the owner's URL shows, and the state as it was", async () => {
      user.files["a.yaml"]!["a-0"]!.title = "a 0, renamed";
      user.files["a.yaml"]!["a-9"] = { project: "Acme Web", title: "a 9" };
      user.writeCatalog();
      const asOwner = await user.tool(["preview"], owner);
      expect(asOwner.code, asOwner.stdout + asOwner.stderr).toBe(0);
      sim.clearRequests();
      const preview = await user.tool(["preview"], reader);
      expect(preview.code, preview.stdout + preview.stderr).toBe(0);
      shown = reportLines(preview.stdout);
      // The deploy's shared rate limit (public.serviceapi_rate_limit): the role's runs pace with it, no warning.
      expect(preview.stderr).toContain("rate limit: shared with the other runners through PostgreSQL at ");
      expect(preview.stderr).not.toContain("warning");
      expect(shown).toEqual(reportLines(asOwner.stdout));
      expect(shown.slice(1, 6)).toEqual([
        "catalog-a.all (4 products): 1 to create, 1 to update; 0 request(s), N s",
        "  + a-9",
        '      title: "a 9"',
        "  ~ a-0",
        '      title: "a 0" → "a 0, renamed"',
      ]);
      expect(sim.requests().filter((r) => r.method === "POST" || (r.method === "PATCH" && Object.keys(r.body ?? {}).length > 0))).toEqual(
        [],
      );
      expect(await stateDigest()).toBe(before);
    });

    await step("3. the nightly drift through the read role: nothing drifted, the state as it was", async () => {
      const drift = await user.tool(["drift"], reader);
      expect(drift.code, drift.stdout + drift.stderr).toBe(0);
      expect(await stateDigest()).toBe(before);
    });

    await step("4. an up with the read role is refused before any request; the bare CLI's writes fail", async () => {
      sim.clearRequests();
      const up = await user.tool(["up"], reader);
      expect([up.code, up.stdout, up.stderr.trim().split("\n").at(-1)]).toEqual([
        2,
        "",
        `serviceapi-catalog: up: PULUMI_BACKEND_URL (${readUrl()}) is a read-only role's view of the state (its \`${TABLE}\` is a ` +
          "materialized view), which up would write to: run it with the deploy's backend URL (preview, plan, drift and report read through this one)",
      ]);
      expect(sim.requests()).toEqual([]);
      // A pull request's code that runs Pulumi itself with the job's credentials: deleting a stack is refused by PostgreSQL.
      const stack = "organization/serviceapi-catalog/catalog-b.all";
      let removal = "";
      try {
        execFileSync("pulumi", ["stack", "rm", stack, "--force", "--yes", "--non-interactive"], {
          cwd: join(user.repo, ".serviceapi-catalog", "stacks", "catalog-b.all"),
          env: { ...user.env, ...reader },
          encoding: "utf8",
          stdio: "pipe",
        });
      } catch (error) {
        removal = String((error as { stderr?: string }).stderr);
      }
      expect(removal).toContain(`cannot change materialized view "${TABLE}"`);
      expect(await stateDigest()).toBe(before);
    });

    await step("5. every write a pull request's code could try with the role's credentials is refused by PostgreSQL", async () => {
      const client = new pg.Client({ connectionString: readUrl().replace(/&table=.*$/, "") });
      await client.connect();
      try {
        const refusal = async (sql: string) => {
          try {
            await client.query(sql);
            return "done";
          } catch (error) {
            return (error as Error).message;
          }
        };
        const writes = {
          [`INSERT INTO ${TABLE} (key, data) VALUES ('x', '{}')`]: `cannot change materialized view "${TABLE}"`,
          [`INSERT INTO public.${TABLE} (key, data) VALUES ('x', '{}')`]: `permission denied for table ${TABLE}`,
          [`UPDATE public.${TABLE} SET data = '{}'`]: `permission denied for table ${TABLE}`,
          [`DELETE FROM public.${TABLE}`]: `permission denied for table ${TABLE}`,
          [`TRUNCATE public.${TABLE}`]: `permission denied for table ${TABLE}`,
          [`DROP TABLE public.${TABLE} CASCADE`]: `must be owner of table ${TABLE}`,
          [`ALTER TABLE public.${TABLE} RENAME TO gone`]: `must be owner of table ${TABLE}`,
          [`CREATE TABLE public.${TABLE}_copy (key text)`]: "permission denied for schema public",
          // Its own view, which it owns: dropped and replaced by a table of its making, later runs would read that as the state.
          [`DROP MATERIALIZED VIEW ${TABLE}`]: `${ROLE} may not drop anything: it reads the state (examples/catalog-tool/read-only-role.sql)`,
          [`CREATE TABLE ${ROLE}.fake (key text)`]: `${ROLE} may not CREATE TABLE ${ROLE}.fake: ${GUARD}`,
          [`CREATE TEMP TABLE fake (key text)`]: `${ROLE} may not CREATE TABLE pg_temp.fake: ${GUARD}`,
          [`ALTER MATERIALIZED VIEW ${TABLE} RENAME TO gone`]: `${ROLE} may not ALTER MATERIALIZED VIEW ${ROLE}.gone: ${GUARD}`,
          [`CREATE INDEX ON ${TABLE} (updated_at)`]: `${ROLE} may not CREATE INDEX ${ROLE}.${TABLE}_updated_at_idx: ${GUARD}`,
          [`GRANT SELECT ON ${TABLE} TO PUBLIC`]: `${ROLE} may not GRANT : ${GUARD}`,
        };
        const answers: Record<string, string> = {};
        for (const sql of Object.keys(writes)) answers[sql] = await refusal(sql);
        expect(answers).toEqual(writes);
      } finally {
        await client.end();
      }
      expect(await stateDigest()).toBe(before);
    });

    await step(
      "5b. a read URL whose table parameter is mistyped: refused in one line naming the role's view, not read as an empty backend",
      async () => {
        const typo = await user.tool(["preview"], { PULUMI_BACKEND_URL: readUrl().replace(`table=${TABLE}`, "table=catalog_stat") });
        expect([typo.code, typo.stdout, typo.stderr.trim().split("\n").at(-1)]).toEqual([
          2,
          "",
          `serviceapi-catalog: the state backend ${readUrl().replace(`table=${TABLE}`, "table=catalog_stat")} cannot be read: its table ` +
            `\`catalog_stat\` does not exist, and this role reads the state through the materialized view \`${TABLE}\`: set the URL's ` +
            `table parameter to it (table=${TABLE}) (check PULUMI_BACKEND_URL)`,
        ]);
      },
    );

    await step("6. the change deployed (owner's URL): the read role's next preview sees it, nothing to do", async () => {
      const up = await user.tool(["up"], owner);
      expect(up.code, up.stdout + up.stderr).toBe(0);
      const preview = await user.tool(["preview", "--json"], reader);
      expect(preview.code, preview.stdout + preview.stderr).toBe(0);
      const report = JSON.parse(preview.stdout) as { results: { stack: string; changes: unknown[] }[] };
      expect(report.results.map((r) => `${r.stack}: ${r.changes.length}`)).toEqual(["catalog-a.all: 0", "catalog-b.all: 0"]);
    });
  });
});
