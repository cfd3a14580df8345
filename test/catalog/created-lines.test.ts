/**
 * The line the tool prints for each completed create, and its reading back from a CI log
 * (`provider/catalog/created-lines.ts`): `recover --created-log FILE` takes a killed run's creates in
 * by the ids these lines name. A log line may carry a timestamp before it; other lines are skipped.
 */
import { describe, expect, it } from "vitest";
import { createdLine, parseCreatedLines } from "../../provider/catalog/created-lines";

const ID = "0b3f2a8e-5b7c-4f1e-9a6d-2c4e8f0a1b3d";

describe("created lines", () => {
  it("written and read back, keys with quotes and unicode included", () => {
    const lines = [
      { stack: "catalog-plans.all", key: "pro", id: ID },
      { stack: "catalog-a.01", key: 'odd"key', id: ID.replace("0b", "1c") },
      { stack: "catalog-web.all", key: "digest", id: ID.replace("0b", "2d"), resource: "Task" as const },
    ];
    expect(lines.map(createdLine)).toEqual([
      `catalog-plans.all: created Product "pro" ${ID}`,
      `catalog-a.01: created Product "odd\\"key" ${ID.replace("0b", "1c")}`,
      `catalog-web.all: created Task "digest" ${ID.replace("0b", "2d")}`,
    ]);
    expect(parseCreatedLines(lines.map(createdLine).join("\n"))).toEqual(lines);
  });

  it("from a CI log: timestamps before a line, other lines and a line cut short skipped; a provider's own line (no catalog stack) matches no stack", () => {
    const log = [
      `2026-11-27T03:02:01.1234567Z catalog-plans.all: created Product "pro" ${ID}`,
      "catalog-plans.all: ok (12.3 s)",
      `catalog-plans.all: created Product "starter" 7229f68d-ad8f-405b`,
      `info: [runtime] serviceapi: created Product "team" ${ID}`,
    ].join("\n");
    expect(parseCreatedLines(log)).toEqual([
      { stack: "catalog-plans.all", key: "pro", id: ID },
      // Pulumi's print of the provider's line: "serviceapi" is no stack of a catalog, so recover finds nothing under it.
      { stack: "serviceapi", key: "team", id: ID },
    ]);
  });
});
