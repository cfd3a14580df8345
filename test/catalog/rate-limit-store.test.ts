/**
 * Which store the runners of a deploy share the rate limit through (`provider/catalog/rate-limit-store.ts`):
 * decided from SERVICEAPI_RATE_LIMIT_STORE and the state backend before any request; a bad setting is
 * one line naming it. The PostgreSQL store itself: test/engine/catalog-shared-limit.test.ts.
 */
import { describe, expect, it } from "vitest";
import { postgresTarget } from "../../provider/backend";
import { CatalogError } from "../../provider/catalog/errors";
import { chooseStore, openRateLimitStore } from "../../provider/catalog/rate-limit-store";
import { deadPort } from "../helpers";

const baseUrl = "https://api.example.com/";
const backend = postgresTarget("postgres://pulumi:s3cret-pw@db.internal:5433/state?sslmode=disable&table=pulumi_state", {});

describe("the shared rate limit's store", () => {
  it("unset: the state backend's database when it is PostgreSQL, the service's URL as the bucket; else none", () => {
    expect(chooseStore({ env: {}, backend, baseUrl })).toMatchObject({
      kind: "postgres",
      where: "db.internal:5433/state",
      setting: "the state backend's database",
      bucket: "https://api.example.com",
    });
    expect(chooseStore({ env: {}, backend: undefined, baseUrl })).toEqual({ kind: "none", why: "the state backend is not PostgreSQL" });
  });

  it("off turns it off; a postgres:// URL names another database; SERVICEAPI_RATE_LIMIT_KEY names the bucket", () => {
    expect(chooseStore({ env: { SERVICEAPI_RATE_LIMIT_STORE: "off" }, backend, baseUrl })).toEqual({
      kind: "none",
      why: "SERVICEAPI_RATE_LIMIT_STORE=off",
    });
    const other = chooseStore({
      env: { SERVICEAPI_RATE_LIMIT_STORE: "postgresql://limits:pw@pacing.internal/limits", SERVICEAPI_RATE_LIMIT_KEY: "team-a" },
      backend: undefined,
      baseUrl,
    });
    expect(other).toMatchObject({
      kind: "postgres",
      where: "pacing.internal:5432/limits",
      setting: "SERVICEAPI_RATE_LIMIT_STORE",
      bucket: "team-a",
    });
    // Where it is said never carries the password.
    expect(JSON.stringify({ ...other, target: undefined })).not.toContain("pw");
  });

  it("anything else is refused in one line naming the setting and what it takes", () => {
    expect(() => chooseStore({ env: { SERVICEAPI_RATE_LIMIT_STORE: "redis://cache:6379" }, backend, baseUrl })).toThrow(
      new CatalogError(
        "SERVICEAPI_RATE_LIMIT_STORE must be off or a postgres:// URL (unset: the state backend's database, if it is PostgreSQL)",
      ),
    );
    expect(() => chooseStore({ env: { SERVICEAPI_RATE_LIMIT_KEY: "k".repeat(201) }, backend, baseUrl })).toThrow(
      new CatalogError("SERVICEAPI_RATE_LIMIT_KEY is longer than 200 characters: give a shorter name"),
    );
  });

  it("a database that cannot be reached: no store, one warning naming it (never the password) and the way to go without it", async () => {
    const port = await deadPort();
    const choice = chooseStore({
      env: { SERVICEAPI_RATE_LIMIT_STORE: `postgres://limits:hunter2-pw@127.0.0.1:${port}/limits` },
      backend,
      baseUrl,
    });
    if (choice.kind !== "postgres") throw new Error("expected a PostgreSQL store");
    const warnings: string[] = [];
    expect(await openRateLimitStore(choice, (m) => warnings.push(m))).toBeUndefined();
    expect(warnings).toEqual([
      `the shared rate limit in PostgreSQL at 127.0.0.1:${port}/limits (SERVICEAPI_RATE_LIMIT_STORE) is not available: connect ECONNREFUSED 127.0.0.1:${port}; ` +
        "this runner paces its requests alone. To share it, check that this runner reaches the database; to go without it and this warning, " +
        "set SERVICEAPI_RATE_LIMIT_STORE=off.",
    ]);
  });
});
