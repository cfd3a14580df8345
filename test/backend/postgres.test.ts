/**
 * A `postgres://` backend's URL as the reader takes it (`provider/backend/postgres.ts`): Pulumi's
 * `table` parameter out of what reaches the driver, the database name as the keys' prefix, libpq's
 * parameters and the PG* variables of the given environment; and a backend that cannot be reached,
 * reported in one line with its password masked — in the error and in `url`. Reading a real
 * PostgreSQL that the CLI wrote is test/engine/state-backend.test.ts.
 */
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { StateBackendError, openStateBackend } from "../../provider/backend";
import { postgresTarget } from "../../provider/backend/postgres";
import { rejectionOf } from "../../scripts/engine/async";

/** A loopback port nothing listens on: taken from the kernel, then let go. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("the URL", () => {
  it("`table` names the table and is not the driver's; the path is the database and the keys' prefix", () => {
    const target = postgresTarget("postgres://pulumi:pw@db.internal:5433/pulumi?sslmode=disable&table=team_state", {});
    expect(target.table).toBe("team_state");
    expect(target.prefix).toBe("pulumi/");
    expect(target.tls).toBe("as-configured");
    expect(target.config).toMatchObject({
      host: "db.internal",
      port: 5433,
      database: "pulumi",
      user: "pulumi",
      password: "pw",
      ssl: false,
    });
    expect(target.config).not.toHaveProperty("table");
    expect(postgresTarget("postgres://pulumi@db.internal/pulumi", {}).table).toBe("pulumi_state");
  });

  it("what the URL leaves out comes from the given environment's PG* variables; the URL wins where it says", () => {
    const env = { PGPASSWORD: "from-env", PGUSER: "env-user", PGPORT: "6543", PGAPPNAME: "catalog" };
    expect(postgresTarget("postgres://db.internal/pulumi?sslmode=disable", env).config).toMatchObject({
      user: "env-user",
      password: "from-env",
      port: 6543,
      application_name: "catalog",
    });
    expect(postgresTarget("postgres://pulumi:in-url@db.internal:5432/pulumi?sslmode=disable", env).config).toMatchObject({
      user: "pulumi",
      password: "in-url",
      port: 5432,
    });
  });

  it("sslmode as libpq means it: absent, prefer or allow → TLS if offered; require → TLS unverified; disable → none; PGSSLMODE when absent", () => {
    expect(postgresTarget("postgres://db.internal/pulumi", {}).tls).toBe("negotiate");
    expect(postgresTarget("postgres://db.internal/pulumi?sslmode=prefer", {}).tls).toBe("negotiate");
    expect(postgresTarget("postgres://db.internal/pulumi?sslmode=require", {})).toMatchObject({
      tls: "as-configured",
      config: { ssl: { rejectUnauthorized: false } },
    });
    expect(postgresTarget("postgres://db.internal/pulumi", { PGSSLMODE: "disable" }).config.ssl).toBe(false);
    expect(postgresTarget("postgres://db.internal/pulumi?sslmode=verify-full", { PGSSLMODE: "disable" }).config.ssl).toEqual({});
  });

  it("connect_timeout bounds a connection attempt (10 s when unset); a query gives up after 60 s; two connections at most", () => {
    expect(postgresTarget("postgres://db.internal/pulumi?connect_timeout=3", {}).config).toMatchObject({
      connectionTimeoutMillis: 3000,
      query_timeout: 60_000,
      max: 2,
    });
    expect(postgresTarget("postgres://db.internal/pulumi", {}).config.connectionTimeoutMillis).toBe(10_000);
    expect(postgresTarget("postgres://db.internal/pulumi", { PGCONNECT_TIMEOUT: "5" }).config.connectionTimeoutMillis).toBe(5000);
  });
});

describe("a backend that cannot be reached or read: one line naming it, the password masked", () => {
  it("nothing listening: refused at open, with the driver's reason (TLS negotiated or not)", async () => {
    const port = await closedPort();
    for (const query of ["?sslmode=disable&table=team_state", ""]) {
      const error = await rejectionOf(
        openStateBackend({ url: `postgres://pulumi:s3cr%40t@127.0.0.1:${port}/pulumi${query}` }),
        StateBackendError,
      );
      expect(error.message).toBe(
        `the state backend postgres://pulumi:****@127.0.0.1:${port}/pulumi${query} cannot be read: connect ECONNREFUSED 127.0.0.1:${port}`,
      );
      expect(error.url).toBe(`postgres://pulumi:****@127.0.0.1:${port}/pulumi${query}`);
    }
  });

  it("a table name Pulumi could not use either", async () => {
    const error = await rejectionOf(
      openStateBackend({ url: "postgres://pulumi:s3cret@127.0.0.1:1/pulumi?table=state;drop" }),
      StateBackendError,
    );
    expect(error.message).toBe(
      "the state backend postgres://pulumi:****@127.0.0.1:1/pulumi?table=state;drop cannot be read: the URL's `table` parameter is not a plain SQL name (letters, digits, `_`)",
    );
  });

  it("`url` masks the password even where nothing is read yet (the CLI's backends)", async () => {
    const backend = await openStateBackend({ url: "postgres://pulumi:s3cret@127.0.0.1:1/pulumi?sslmode=disable", via: "cli" });
    expect({ url: backend.url, via: backend.via }).toEqual({
      url: "postgres://pulumi:****@127.0.0.1:1/pulumi?sslmode=disable",
      via: "cli",
    });
    await backend.close();
  });
});
