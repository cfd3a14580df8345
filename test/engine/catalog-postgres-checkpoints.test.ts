/**
 * On a PostgreSQL backend the catalog's stacks write zstd-compressed checkpoints (Pulumi's own
 * `PULUMI_DIY_BACKEND_ZSTD`, provider/catalog/workspace.ts `checkpointCompression`): each of the
 * many checkpoint writes of an `up` is then a small row instead of the whole state, which made the
 * first `up` at 2,500 products 1.03× the file backend's instead of 2.0× (docs/scale.md).
 *
 * What a team would check: the rows are compressed; the tool's next run reads them (a preview with
 * nothing to do); the team's own `pulumi stack export` reads them; and a compression setting of the
 * user's wins — `PULUMI_DIY_BACKEND_ZSTD=false` writes plain JSON again, with nothing created twice.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import { simulator } from "../helpers";
import { ENGINE_TIMEOUT_MS, pulumiCli } from "../../scripts/engine/driver";
import { userWithCatalog, type ToolRun } from "./catalog-support";
import { postgresForSuite } from "./postgres";

const FILES = ["a", "b"];
const PER_FILE = 3;
const TABLE = "checkpoints";
const STACKS = FILES.map((f) => `catalog-${f}.all`);

interface Report {
  results: { stack: string; status: string; changes: { op: string }[] }[];
}

describe("catalog checkpoints on PostgreSQL", { timeout: ENGINE_TIMEOUT_MS }, () => {
  const state = postgresForSuite();
  beforeAll(async () => {
    await pulumiCli();
  }, 30 * 60_000);

  /** The stacks' checkpoint keys in the backend's table (backups and history left out). */
  async function checkpointKeys(): Promise<string[]> {
    const client = new pg.Client({ connectionString: state.url() });
    await client.connect();
    try {
      const { rows } = await client.query<{ key: string }>(
        `SELECT key FROM ${TABLE} WHERE key LIKE '%.pulumi/stacks/%' AND key NOT LIKE '%.bak' ORDER BY key`,
      );
      // Pulumi keys them under its bucket's prefix; from ".pulumi/" on is the name the CLI gives them.
      return rows.map((r) => r.key.slice(r.key.indexOf(".pulumi/")));
    } finally {
      await client.end();
    }
  }

  function report(run: ToolRun): Report {
    expect(run.code, run.stdout + run.stderr).toBe(0);
    return JSON.parse(run.stdout) as Report;
  }

  it("writes compressed checkpoints that the tool and the CLI read; the user's setting wins", async () => {
    const sim = await simulator();
    const user = await userWithCatalog(sim, FILES, PER_FILE);
    const backend = { PULUMI_BACKEND_URL: state.backend(TABLE) };
    const before = sim.counts().products;

    const up = report(await user.tool(["up", "--json"], backend));
    expect(up.results.map((r) => `${r.stack}: ${r.status}, ${r.changes.filter((c) => c.op === "create").length} created`)).toEqual(
      STACKS.map((s) => `${s}: ok, ${PER_FILE} created`),
    );
    expect(await checkpointKeys()).toEqual(STACKS.map((s) => `.pulumi/stacks/serviceapi-catalog/${s}.json.zst`));

    // The tool's own reading of the backend (the plan) finds every product: nothing to do.
    const preview = report(await user.tool(["preview", "--json"], backend));
    expect(preview.results.map((r) => `${r.stack}: ${r.status}, ${r.changes.filter((c) => c.op !== "create").length} changes`)).toEqual(
      STACKS.map((s) => `${s}: ok, 0 changes`),
    );

    // The team's own CLI reads it.
    const exported = JSON.parse(
      execFileSync("pulumi", ["stack", "export", "--stack", `organization/serviceapi-catalog/${STACKS[0]}`, "--non-interactive"], {
        cwd: join(user.repo, ".serviceapi-catalog", "stacks", STACKS[0]!),
        env: { ...user.env, ...backend },
        encoding: "utf8",
      }),
    ) as { deployment: { resources: { urn: string }[] } };
    expect(
      exported.deployment.resources
        .map((r) => r.urn.split("::").pop())
        .filter((name) => /^a-\d$/.test(name ?? ""))
        .sort(),
    ).toEqual(["a-0", "a-1", "a-2"]);

    // A team that wants plain JSON says so, and gets it on the next up.
    const plain = report(await user.tool(["up", "--json"], { ...backend, PULUMI_DIY_BACKEND_ZSTD: "false" }));
    expect(plain.results.map((r) => `${r.stack}: ${r.status}, ${r.changes.filter((c) => c.op === "create").length} created`)).toEqual(
      STACKS.map((s) => `${s}: ok, 0 created`),
    );
    expect(await checkpointKeys()).toEqual(STACKS.map((s) => `.pulumi/stacks/serviceapi-catalog/${s}.json`));
    expect(sim.counts().products - before).toBe(FILES.length * PER_FILE);
  });
});
