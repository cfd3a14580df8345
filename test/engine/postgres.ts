/**
 * A real PostgreSQL server for the tests that keep Pulumi's state in it: `scripts/postgres.sh`
 * starts a throw-away cluster on loopback in a temporary directory (installing Debian's
 * `postgresql` package where it is missing) before the describe block, and stops and deletes it
 * after. Each stack gets a table of its own (`&table=`), so tests never see each other's state.
 */
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll } from "vitest";
import { REPO } from "../../scripts/engine/driver";

const run = promisify(execFile);
const SCRIPT = join(REPO, "scripts", "postgres.sh");

export interface Postgres {
  /** `postgres://…?sslmode=disable` of the running server. */
  url: () => string;
  /** The backend URL of a state table of its own, as `PULUMI_BACKEND_URL`. */
  backend: (table: string) => string;
  /** The same without the password, which then goes in `PGPASSWORD` (as docs/gitops.md advises). */
  backendWithoutPassword: (table: string) => string;
  password: () => string;
  /** Stops the server now (as a database that goes away mid-run); the suite's end then has nothing left to stop. */
  stop: () => Promise<void>;
  /** `psql <args>` as the superuser in the state's database, as an administrator runs it; its stdout. */
  admin: (...args: string[]) => Promise<string>;
}

export function postgresForSuite(): Postgres {
  // Under /tmp: the server runs as the `postgres` user when the tests run as root, and it must reach the directory.
  const dir = mkdtempSync("/tmp/serviceapi-pg-");
  let url: string | undefined;
  beforeAll(async () => {
    // An install (apt-get) can take a few minutes on a fresh machine; a start takes a second or two.
    url = (await run("bash", [SCRIPT, "start", dir], { encoding: "utf8", timeout: 15 * 60_000 })).stdout.trim();
    if (!/^postgres:\/\/[^ ]+\?sslmode=disable$/.test(url)) throw new Error(`scripts/postgres.sh start printed no URL`);
  }, 16 * 60_000);
  afterAll(async () => {
    await run("bash", [SCRIPT, "stop", dir], { timeout: 120_000 });
  }, 130_000);
  const current = () => {
    if (url === undefined) throw new Error("PostgreSQL is not running (beforeAll failed)");
    return url;
  };
  const password = () => /^postgres:\/\/[^:]+:([^@]+)@/.exec(current())![1]!;
  return {
    url: current,
    backend: (table) => `${current()}&table=${table}`,
    backendWithoutPassword: (table) => `${current().replace(`:${password()}@`, "@")}&table=${table}`,
    password,
    stop: async () => {
      await run("bash", [SCRIPT, "stop", dir], { timeout: 120_000 });
    },
    admin: async (...args) => (await run("bash", [SCRIPT, "psql", dir, ...args], { encoding: "utf8", timeout: 60_000 })).stdout,
  };
}
