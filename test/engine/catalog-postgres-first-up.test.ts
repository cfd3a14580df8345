/**
 * A team's first parallel `up` on a new PostgreSQL backend (found by the catalog bench, 1 run in 3):
 * Pulumi's PostgreSQL backend runs `CREATE TABLE IF NOT EXISTS` in every process that opens it, and
 * two first processes at once both try — one of them then fails (`duplicate key value violates unique
 * constraint "pg_type_typname_nsp_index"`), and the catalog lost that stack. The tool now opens the
 * backend in one process before its stacks run side by side (Workspaces.openBackend), and the
runners of a deploy matrix that open the same new database at once try once more.
 *
 * The race is made certain rather than waited for: the test holds the same CREATE TABLE open in a
 * transaction of its own, so every process that opens the backend waits on it; it counts the
 * waiters, then rolls back. Without the fix the four stacks' processes all wait, and all but one fail
 * once it is released; with it, one process of each runner waits and the stacks start after it.
 */
import pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { simulator } from "../helpers";
import { ENGINE_TIMEOUT_MS, pulumiCli } from "../../scripts/engine/driver";
import { userWithCatalog, type CatalogUser, type ToolRun } from "./catalog-support";
import { postgresForSuite } from "./postgres";

const FILES = ["a", "b", "c", "d"];
const PER_FILE = 3;
/**
 * How long the test watches for another waiter after the last new one came: four CLI processes
 * started by one pool reach the database within milliseconds of each other, but a second runner (a
 * tool process of its own, then its CLI) can take seconds more on a busy machine — so each new
 * waiter starts the watch again. An observation window on a real server, not a timing of ours.
 */
const WATCH_MS = 3000;

describe("the first parallel up on a new PostgreSQL backend", { timeout: ENGINE_TIMEOUT_MS }, () => {
  const state = postgresForSuite();
  beforeAll(async () => {
    await pulumiCli();
  }, 30 * 60_000);

  /** A runner: a work folder, PULUMI_HOME and process tree of its own, with the catalog of FILES. */
  async function runner(sim: Simulator): Promise<CatalogUser> {
    return userWithCatalog(sim, FILES, PER_FILE);
  }

  /**
   * Holds `CREATE TABLE table` open while the tools `start` starts open the backend, counts the sessions
   * waiting on it (from a session of its own: inside the holder's transaction, pg_stat_activity would
   * stay as it first read it), then rolls back and waits for the tools.
   */
  async function raceOn(table: string, start: () => ReturnType<CatalogUser["start"]>[]): Promise<{ most: number; runs: ToolRun[] }> {
    const holder = new pg.Client({ connectionString: state.url() });
    const watcher = new pg.Client({ connectionString: state.url() });
    await holder.connect();
    await watcher.connect();
    try {
      await holder.query(`BEGIN; CREATE TABLE ${table} (key TEXT PRIMARY KEY)`);
      const tools = start();
      let exited = false;
      void Promise.race(tools.map((t) => t.run)).finally(() => (exited = true));
      let most = 0;
      const started = performance.now();
      for (let last: number | undefined; !exited && (last === undefined || performance.now() - last < WATCH_MS);) {
        if (last === undefined && performance.now() - started > 60_000)
          throw new Error(`no process waited on the table in 60 s:\n${tools.map((t) => t.stderr()).join("\n")}`);
        const n = Number(
          (
            await watcher.query<{ n: string }>(
              "SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
            )
          ).rows[0]!.n,
        );
        if (n > most) last = performance.now();
        most = Math.max(most, n);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      for (const tool of tools) expect(tool.stderr()).not.toMatch(/^catalog-/m);
      await holder.query("ROLLBACK");
      return { most, runs: await Promise.all(tools.map((t) => t.run)) };
    } finally {
      await holder.end();
      await watcher.end();
    }
  }

  function stacksOf(run: ToolRun): string[] {
    expect(run.code, run.stdout + run.stderr).toBe(0);
    return (JSON.parse(run.stdout) as { results: { stack: string; status: string }[] }).results.map((r) => `${r.stack}: ${r.status}`);
  }

  it("opens the backend once before four stacks start at once: every stack made, every product created once", async () => {
    const sim = await simulator();
    const user = await runner(sim);
    const before = sim.counts().products;
    const { most, runs } = await raceOn("first_up", () => [
      user.start(["up", "--parallel", String(FILES.length), "--json"], { PULUMI_BACKEND_URL: state.backend("first_up") }),
    ]);
    // One process opened the backend while the stacks waited for it (four, without the fix).
    expect(most).toBe(1);
    expect(stacksOf(runs[0]!).sort()).toEqual(FILES.map((f) => `catalog-${f}.all: ok`));
    expect(sim.counts().products - before).toBe(FILES.length * PER_FILE);
  });

  it("two runners of a matrix opening the same new database at once: the one that loses tries again, both finish", async () => {
    const sim = await simulator();
    const users = [await runner(sim), await runner(sim)];
    const before = sim.counts().products;
    const halves = [FILES.slice(0, 2), FILES.slice(2)].map((files) => files.map((f) => `catalog-${f}.all`).join(","));
    const { most, runs } = await raceOn("first_up_matrix", () =>
      users.map((user, n) =>
        user.start(["up", "--stack", halves[n]!, "--parallel", "2", "--json"], { PULUMI_BACKEND_URL: state.backend("first_up_matrix") }),
      ),
    );
    // Each runner's one opening process; once released, one of the two meets the other's table half made.
    expect(most).toBe(2);
    expect(runs.flatMap(stacksOf).sort()).toEqual(FILES.map((f) => `catalog-${f}.all: ok`));
    expect(sim.counts().products - before).toBe(FILES.length * PER_FILE);
  });
});
