/**
 * A team's first parallel `up` on a new PostgreSQL backend (found by the catalog bench, 1 run in 3):
 * Pulumi's PostgreSQL backend runs `CREATE TABLE IF NOT EXISTS` in every process that opens it, and
 * two first processes at once both try — one of them then fails (`duplicate key value violates unique
 * constraint "pg_type_typname_nsp_index"`), and the catalog lost that stack. The tool now opens the
 * backend in one process before its stacks run side by side (Workspaces.openBackend).
 *
 * The race is made certain rather than waited for: the test holds the same CREATE TABLE open in a
 * transaction of its own, so every process that opens the backend waits on it; it counts the
 * waiters, then rolls back. Without the fix the four stacks' processes all wait, and all but one fail
 * once it is released; with it, one process waits and the stacks start after it.
 */
import pg from "pg";
import { beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { simulator } from "../helpers";
import { ENGINE_TIMEOUT_MS, pulumiCli } from "../../scripts/engine/driver";
import { CatalogUser, type Entry } from "./catalog-support";
import { postgresForSuite } from "./postgres";

const FILES = ["a", "b", "c", "d"];
const PER_FILE = 3;
const TABLE = "first_up";
/**
 * How long the test watches the waiters once the first has come: four CLI processes started by one
 * pool reach the database within milliseconds of each other, so a second waiter, if any, comes well
 * within it. An observation window on a real server, not a timing of ours.
 */
const WATCH_MS = 3000;

describe("the first parallel up on a new PostgreSQL backend", { timeout: ENGINE_TIMEOUT_MS }, () => {
  const state = postgresForSuite();
  beforeAll(async () => {
    await pulumiCli();
  }, 30 * 60_000);

  it("opens the backend once before four stacks start at once: every stack made, every product created once", async () => {
    const sim = await simulator();
    const user = await CatalogUser.create(sim);
    onTestFinished(() => user.dispose());
    for (const file of FILES) {
      user.files[`${file}.yaml`] = Object.fromEntries(
        Array.from({ length: PER_FILE }, (_, i): [string, Entry] => [`${file}-${i}`, { project: "Acme Web", title: `${file} ${i}` }]),
      );
    }
    user.writeCatalog();
    const holder = new pg.Client({ connectionString: state.url() });
    await holder.connect();
    // Watched from a session of its own: inside the holder's transaction, pg_stat_activity would stay as it first read it.
    const watcher = new pg.Client({ connectionString: state.url() });
    await watcher.connect();
    const waiters = async () =>
      Number(
        (
          await watcher.query<{ n: string }>(
            "SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
          )
        ).rows[0]!.n,
      );
    try {
      await holder.query(`BEGIN; CREATE TABLE ${TABLE} (key TEXT PRIMARY KEY)`);
      const before = sim.counts().products;
      const tool = user.start(["up", "--parallel", String(FILES.length), "--json"], { PULUMI_BACKEND_URL: state.backend(TABLE) });
      let exited = false;
      void tool.run.finally(() => (exited = true));
      let most = 0;
      const started = performance.now();
      for (let first: number | undefined; !exited && (first === undefined || performance.now() - first < WATCH_MS);) {
        if (first === undefined && performance.now() - started > 60_000)
          throw new Error(`no process waited on the table in 60 s:\n${tool.stderr()}`);
        const n = await waiters();
        most = Math.max(most, n);
        if (n > 0) first ??= performance.now();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // One process opened the backend while the stacks waited for it (four, without the fix).
      expect(most).toBe(1);
      expect(tool.stderr()).not.toMatch(/^catalog-/m);
      await holder.query("ROLLBACK");

      const run = await tool.run;
      expect(run.code, run.stdout + run.stderr).toBe(0);
      const report = JSON.parse(run.stdout) as { results: { stack: string; status: string }[] };
      expect(report.results.map((r) => `${r.stack}: ${r.status}`).sort()).toEqual(FILES.map((f) => `catalog-${f}.all: ok`));
      expect(sim.counts().products - before).toBe(FILES.length * PER_FILE);
    } finally {
      await holder.end();
      await watcher.end();
    }
  });
});
