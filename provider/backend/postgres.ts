/**
 * A `postgres://` backend's table as a Bucket, read with node-postgres (`pg`). Pulumi's PostgreSQL
 * store (v3.248.0, `pkg/backend/diy/postgres/bucket.go`) keeps each blob as a row of
 * `<table>(key TEXT PRIMARY KEY, data JSON, updated_at TIMESTAMPTZ)`, `data` being
 * `{"data": "<base64 of the blob>"}`; the table is the URL's `table` parameter (default
 * `pulumi_state`), which is Pulumi's and is taken out before the URL reaches the driver; and every
 * key starts with the URL's path (the database name) and a slash, as Pulumi's DIY backend prefixes
 * a bucket with the URL's path (`backend.go`, `blob.PrefixedBucket`).
 *
 * The connection is libpq's, as Pulumi's driver (lib/pq) makes it: the URL's parameters (`sslmode`,
 * `sslrootcert`, `connect_timeout`, `application_name`, …) with libpq's meanings, and the PG*
 * variables of the given environment (PGPASSWORD, PGUSER, PGHOST, PGPORT, PGDATABASE, PGSSLMODE,
 * PGAPPNAME, PGOPTIONS, PGCONNECT_TIMEOUT) for what the URL leaves out. Without `sslmode` (or with
 * `prefer`, `allow`), TLS is used when the server offers it, as lib/pq and libpq do.
 *
 * Reads cannot hang on each other: each is one query on a pooled connection, given back before
 * anything else is asked for (Pulumi's own store deadlocks when its listing workers each hold a
 * connection and wait for another: provider/catalog/workspace.ts); the pool is small (two
 * connections, whatever the number of reads waiting), a connection attempt gives up after
 * `connect_timeout` (10 s unless set), and a query after 60 s.
 */
import { connect } from "node:net";
import type { Pool, PoolConfig } from "pg";
import { parse } from "pg-connection-string";
import type { Blob, Bucket } from "./diy";
import type { PostgresTarget } from "./model";

export type { PostgresTarget } from "./model";

/** Two connections: a listing and a read may overlap; more buys a reader of this size nothing. */
const POOL_SIZE = 2;
const DEFAULT_CONNECT_TIMEOUT_S = 10;
const QUERY_TIMEOUT_MS = 60_000;
/** PostgreSQL's `undefined_table`: Pulumi creates its table on first use, so a backend without one has no stacks yet. */
const UNDEFINED_TABLE = "42P01";
/** A table name Pulumi can use: it writes the name into its SQL as it is (and `<name>_key_prefix_idx`). */
const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Where and how to connect, from the backend URL and the environment; throws a one-line Error on a bad URL. */
export function postgresTarget(url: string, env: NodeJS.ProcessEnv): PostgresTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error("the URL does not parse");
  }
  const table = parsed.searchParams.get("table") || "pulumi_state";
  if (!PLAIN_NAME.test(table)) throw new Error("the URL's `table` parameter is not a plain SQL name (letters, digits, `_`)");
  parsed.searchParams.delete("table");
  const path = decodeURIComponent(parsed.pathname).replace(/^\/+/, "");
  const prefix = path === "" || path.endsWith("/") ? path : `${path}/`;

  const sslmode = parsed.searchParams.get("sslmode") ?? env.PGSSLMODE ?? "prefer";
  const negotiate = sslmode === "prefer" || sslmode === "allow";
  if (negotiate) parsed.searchParams.delete("sslmode");
  else parsed.searchParams.set("sslmode", sslmode);
  const options = parse(parsed.toString(), { useLibpqCompat: true });
  const fromEnv: Record<string, string | undefined> = {
    host: env.PGHOST,
    port: env.PGPORT,
    user: env.PGUSER,
    password: env.PGPASSWORD,
    database: env.PGDATABASE,
    application_name: env.PGAPPNAME,
    options: env.PGOPTIONS,
  };
  for (const [key, value] of Object.entries(fromEnv)) if (!options[key] && value) options[key] = value;
  const connectTimeout = Number(options.connect_timeout ?? env.PGCONNECT_TIMEOUT) || DEFAULT_CONNECT_TIMEOUT_S;
  const config: PoolConfig = {
    ...(options as PoolConfig),
    port: options.port ? Number(options.port) : undefined,
    connectionTimeoutMillis: connectTimeout * 1000,
    query_timeout: QUERY_TIMEOUT_MS,
    max: POOL_SIZE,
    idleTimeoutMillis: 10_000,
    // A reader left open must not keep the process alive.
    allowExitOnIdle: true,
  };
  return { table, prefix, config, tls: negotiate ? "negotiate" : "as-configured" };
}

/**
 * The table's bucket: connects (one query, which also proves the connection), or throws the driver's error.
 * When the table is a materialized view — a read-only role's (examples/catalog-tool/read-only-role.sql) —
 * it is refreshed first, so that this run and the `pulumi` processes it starts read the state as it is now.
 */
export async function openPostgresBucket(target: PostgresTarget): Promise<{ bucket: Bucket; materializedView: boolean }> {
  const pool = await openPostgresPool(target);
  const bucket = new PostgresBucket(pool, target.table, target.prefix);
  try {
    const { rows } = await pool.query<{ relkind: string }>("SELECT relkind FROM pg_class WHERE oid = to_regclass($1)", [target.table]);
    const materializedView = rows[0]?.relkind === "m";
    if (materializedView) await pool.query(`REFRESH MATERIALIZED VIEW ${target.table}`);
    // No such table, where a read-only role keeps its view of the state under another name: a mistyped
    // `table` parameter, which would otherwise read as a backend with no stacks (everything "to create").
    if (rows.length === 0) {
      const views = await pool.query<{ name: string }>(
        "SELECT relname AS name FROM pg_class WHERE relkind = 'm' AND relnamespace = to_regnamespace(current_schema()) ORDER BY relname",
      );
      if (views.rows.length > 0)
        throw new Error(
          `its table \`${target.table}\` does not exist, and this role reads the state through the materialized view ` +
            `${views.rows.map((v) => `\`${v.name}\``).join(", ")}: set the URL's table parameter to it (table=${views.rows[0]!.name})`,
        );
    }
    await bucket.read([]);
    return { bucket, materializedView };
  } catch (error) {
    await bucket.close();
    throw error;
  }
}

/**
 * A pool connecting as Pulumi's driver would (TLS negotiated as `sslmode` says), `overrides` on top.
 * Nothing is connected yet; an idle connection the server drops is replaced by the next query.
 */
export async function openPostgresPool(target: PostgresTarget, overrides: PoolConfig = {}): Promise<Pool> {
  const { Pool } = await import("pg");
  const config = { ...target.config, ...overrides };
  if (target.tls === "negotiate") {
    const host = config.host || "localhost";
    const offered = !host.startsWith("/") && (await offersTls(host, config.port || 5432, config.connectionTimeoutMillis!));
    // Encrypted, not verified: what `prefer` means (certificate files the URL names still apply).
    config.ssl = offered ? { ...(typeof config.ssl === "object" ? config.ssl : {}), rejectUnauthorized: false } : false;
  }
  const pool = new Pool(config);
  // An idle connection the server drops (a restart) is replaced by the next query; it must not crash the process.
  pool.on("error", () => {});
  return pool;
}

class PostgresBucket implements Bucket {
  constructor(
    private readonly pool: Pool,
    private readonly table: string,
    private readonly prefix: string,
  ) {}

  async list(prefix: string, read: readonly string[]): Promise<{ keys: string[]; blobs: Blob[] }> {
    const rows = await this.#query(
      `SELECT key, CASE WHEN key = ANY($2) THEN data->>'data' END AS data, updated_at FROM ${this.table} WHERE key LIKE $1 ESCAPE '\\' OR key = ANY($2)`,
      [`${likePrefix(this.prefix + prefix)}%`, read.map((key) => this.prefix + key)],
    );
    const keys = rows.map((row) => this.#key(row.key)).filter((key) => key.startsWith(prefix));
    const wanted = new Set(read);
    const blobs = rows.filter((row) => wanted.has(this.#key(row.key)) && row.data !== null).map((row) => this.#blob(row));
    return { keys, blobs };
  }

  async read(keys: readonly string[]): Promise<Blob[]> {
    const rows = await this.#query(`SELECT key, data->>'data' AS data, updated_at FROM ${this.table} WHERE key = ANY($1)`, [
      keys.map((key) => this.prefix + key),
    ]);
    return rows.map((row) => this.#blob(row));
  }

  async readUnder(prefix: string): Promise<Blob[]> {
    const rows = await this.#query(`SELECT key, data->>'data' AS data, updated_at FROM ${this.table} WHERE key LIKE $1 ESCAPE '\\'`, [
      `${likePrefix(this.prefix + prefix)}%`,
    ]);
    return rows.filter((row) => !this.#key(row.key).slice(prefix.length).includes("/")).map((row) => this.#blob(row));
  }

  close(): Promise<void> {
    return this.pool.end();
  }

  async #query(sql: string, values: unknown[]): Promise<Row[]> {
    try {
      return (await this.pool.query<Row>(sql, values)).rows;
    } catch (error) {
      if ((error as { code?: unknown }).code === UNDEFINED_TABLE) return [];
      throw error;
    }
  }

  #key(stored: string): string {
    return stored.slice(this.prefix.length);
  }

  #blob(row: Row): Blob {
    return { key: this.#key(row.key), data: Buffer.from(row.data ?? "", "base64"), modified: row.updated_at.getTime() };
  }
}

interface Row {
  key: string;
  data: string | null;
  updated_at: Date;
}

/** `text` as the literal start of a LIKE pattern (escape character `\`). */
function likePrefix(text: string): string {
  return text.replace(/[\\%_]/g, "\\$&");
}

/**
 * Whether the server takes TLS: libpq's SSLRequest (length 8, code 80877103), answered by one
 * byte, `S` or `N`. A connection that fails fails here, with the error the driver would give.
 */
function offersTls(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    socket.setTimeout(timeoutMs, () => socket.destroy(Object.assign(new Error("timeout expired"), { code: "ETIMEDOUT" })));
    socket.once("connect", () => socket.write(Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f])));
    socket.once("data", (answer: Buffer) => {
      socket.destroy();
      resolve(answer[0] === 0x53);
    });
    socket.once("error", reject);
    socket.once("close", () => reject(new Error("the server closed the connection")));
  });
}
