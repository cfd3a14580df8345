/**
 * Where the runners of one deploy share the service's rate limit: the jobs of a CI matrix run on
 * separate machines, so the pacer on one runner's loopback (`startSharedPacer`) paces only that
 * runner. They all reach the state backend, though, and a PostgreSQL backend is a database that
 * can hold one more row: the pacer's state (`PaceState`), read and written in one transaction per
 * batch of attempts, on the database's clock (`internal/stored-pacer.ts` says what it costs).
 *
 * Which store (`SERVICEAPI_RATE_LIMIT_STORE`): unset — the state backend's database when the backend
 * is `postgres://`, else none (each runner paces alone); `off` — none; a `postgres://` URL — that
 * database (a backend of another kind, or a database of its own). The row is the bucket's
 * (`SERVICEAPI_RATE_LIMIT_KEY`, default: the service's URL), in the table `serviceapi_rate_limit`,
 * created when missing. No token, and nothing derived from one, is stored.
 *
 * Nothing here may stop a deploy: a store that cannot be reached or written leaves the runner pacing
 * alone, with one warning (here when it fails at the start; the pacer's when it fails later).
 */
import type { Pool, PoolClient } from "pg";
import { z } from "zod";
import { describeFailure, openPostgresPool, postgresTarget, type PostgresTarget } from "../backend";
import type { PaceState, PaceStore } from "../client/shared-pacer";
import { CatalogError } from "./errors";

export const RATE_LIMIT_STORE_ENV = "SERVICEAPI_RATE_LIMIT_STORE";
export const RATE_LIMIT_KEY_ENV = "SERVICEAPI_RATE_LIMIT_KEY";
export const RATE_LIMIT_TABLE = "serviceapi_rate_limit";

/**
 * A store that does not answer within this long is taken as gone: the runner paces alone rather
 * than hold every request (a lock another runner holds is released within one transaction).
 */
const STORE_TIMEOUT_MS = 5_000;
/** CREATE TABLE IF NOT EXISTS of two runners at once: one of them may meet the other's table (or type) half made. */
const DUPLICATE = new Set(["23505", "42P07"]);

/** Which store, decided before anything runs; a bad setting is refused in one line. */
export type StoreChoice =
  { kind: "none"; why: string } | { kind: "postgres"; target: PostgresTarget; where: string; setting: string; bucket: string };

export interface StoreInputs {
  env: NodeJS.ProcessEnv;
  /** The state backend's database, when the backend is PostgreSQL. */
  backend: PostgresTarget | undefined;
  /** The service's URL: the default bucket. */
  baseUrl: string;
}

export function chooseStore({ env, backend, baseUrl }: StoreInputs): StoreChoice {
  const setting = env[RATE_LIMIT_STORE_ENV]?.trim() ?? "";
  const bucket = env[RATE_LIMIT_KEY_ENV]?.trim() || baseUrl.replace(/\/+$/, "");
  if (bucket.length > 200) throw new CatalogError(`${RATE_LIMIT_KEY_ENV} is longer than 200 characters: give a shorter name`);
  if (setting === "off") return { kind: "none", why: `${RATE_LIMIT_STORE_ENV}=off` };
  if (setting === "") {
    if (!backend) return { kind: "none", why: "the state backend is not PostgreSQL" };
    return { kind: "postgres", target: backend, where: describeTarget(backend), setting: "the state backend's database", bucket };
  }
  if (!/^postgres(ql)?:\/\//i.test(setting)) {
    throw new CatalogError(
      `${RATE_LIMIT_STORE_ENV} must be off or a postgres:// URL (unset: the state backend's database, if it is PostgreSQL)`,
    );
  }
  let target: PostgresTarget;
  try {
    target = postgresTarget(setting, env);
  } catch (error) {
    throw new CatalogError(`${RATE_LIMIT_STORE_ENV}: ${(error as Error).message}`);
  }
  return { kind: "postgres", target, where: describeTarget(target), setting: RATE_LIMIT_STORE_ENV, bucket };
}

/**
 * The store, its table made if missing; undefined (and one warning) when the database cannot be
 * reached or refuses the table — the runner then paces alone.
 */
export async function openRateLimitStore(
  choice: Extract<StoreChoice, { kind: "postgres" }>,
  warn: (message: string) => void,
): Promise<PaceStore | undefined> {
  const name = `PostgreSQL at ${choice.where} (${choice.setting})`;
  let pool: Pool | undefined;
  try {
    // Opening it may connect already (to ask whether the server offers TLS): a dead URL fails here.
    pool = await openPostgresPool(choice.target, {
      max: 1,
      connectionTimeoutMillis: Math.min(choice.target.config.connectionTimeoutMillis ?? STORE_TIMEOUT_MS, STORE_TIMEOUT_MS),
      query_timeout: STORE_TIMEOUT_MS,
    });
    await createTable(pool);
  } catch (error) {
    await pool?.end().catch(() => undefined);
    // PostgreSQL's insufficient_privilege: the role may not make the table; anything else is the connection.
    const fix =
      (error as { code?: unknown }).code === "42501"
        ? `create the table ${RATE_LIMIT_TABLE} once as the database's owner and grant this role SELECT, INSERT, UPDATE on it (docs/catalog.md)`
        : "check that this runner reaches the database";
    warn(
      `the shared rate limit in ${name} is not available: ${describeFailure(error).split("\n")[0]}; this runner paces its requests alone. ` +
        `To share it, ${fix}; to go without it and this warning, set ${RATE_LIMIT_STORE_ENV}=off.`,
    );
    return undefined;
  }
  return new PostgresPaceStore(pool, choice.bucket, name);
}

async function createTable(pool: Pool): Promise<void> {
  // Looked up first: a role that may use the table but not create tables is refused even `CREATE TABLE IF NOT EXISTS`.
  const found = await pool.query<{ table: string | null }>(`SELECT to_regclass('${RATE_LIMIT_TABLE}')::text AS table`);
  if (found.rows[0]?.table) return;
  const sql = `CREATE TABLE IF NOT EXISTS ${RATE_LIMIT_TABLE} (bucket TEXT PRIMARY KEY, state JSONB NOT NULL, updated_at TIMESTAMPTZ NOT NULL DEFAULT now())`;
  try {
    await pool.query(sql);
  } catch (error) {
    if (!DUPLICATE.has((error as { code?: string }).code ?? "")) throw error;
    await pool.query(sql);
  }
}

/** What a row holds; a row this version cannot read (another version's, edited by hand) starts the bucket afresh. */
const StoredState = z.object({
  episode: z.number().int(),
  passed: z.array(z.number()).max(10_000),
  pausedUntil: z.number(),
  intervalMs: z.number().min(0),
  nextSlot: z.number(),
  lastLimitedAt: z.number().nullable(),
  // Added in 0.1 after the first shared stores: a row without them is read as a pace never eased.
  baseIntervalMs: z.number().min(0).default(0),
  lastHeldAt: z.number().nullable().default(null),
  easedAt: z.number().nullable().default(null),
});

class PostgresPaceStore implements PaceStore {
  constructor(
    private readonly pool: Pool,
    private readonly bucket: string,
    readonly name: string,
  ) {}

  async update<T>(
    change: (state: PaceState | undefined, now: number) => { state: PaceState; result: T },
  ): Promise<{ result: T; now: number }> {
    const client = await this.pool.connect();
    // A connection the server ends between two of this transaction's queries (the database stopped,
    // an administrator's command) is reported as an 'error' event of the client, which the pool
    // listens for only while the client is idle (pg-pool removes its listener at checkout): unheard,
    // it would end the tool with a stack trace. The query after it fails, and the catch below closes
    // the connection; the pacer then goes on alone, with one warning.
    const unheard = (): void => {};
    client.on("error", unheard);
    try {
      await client.query("BEGIN");
      // The row's lock keeps the other runners' transactions out until COMMIT; the clock is the database's, the one all runners share.
      const read = await client.query<{ state: unknown; now: number }>(
        `SELECT state, (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS now FROM ${RATE_LIMIT_TABLE} WHERE bucket = $1 FOR UPDATE`,
        [this.bucket],
      );
      const now = read.rows[0]?.now ?? (await clockOf(client));
      const stored = StoredState.safeParse(read.rows[0]?.state);
      const { state, result } = change(stored.success ? stored.data : undefined, now);
      await client.query(
        `INSERT INTO ${RATE_LIMIT_TABLE} (bucket, state, updated_at) VALUES ($1, $2, now()) ` +
          "ON CONFLICT (bucket) DO UPDATE SET state = EXCLUDED.state, updated_at = EXCLUDED.updated_at",
        [this.bucket, JSON.stringify(state)],
      );
      await client.query("COMMIT");
      client.release();
      return { result, now };
    } catch (error) {
      // A connection that failed mid-transaction is not given back to the pool: it is closed.
      client.release(error instanceof Error ? error : new Error(String(error)));
      throw error;
    } finally {
      client.off("error", unheard);
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

async function clockOf(client: PoolClient): Promise<number> {
  return (await client.query<{ now: number }>("SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS now")).rows[0]!.now;
}

/** `host:port/database`: where, without user or password. */
function describeTarget(target: PostgresTarget): string {
  const { host, port, database } = target.config;
  return `${host || "localhost"}:${port || 5432}/${database ?? ""}`;
}
