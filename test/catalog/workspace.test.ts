/**
 * When the catalog's stacks have Pulumi compress their checkpoints (`checkpointCompression`): on a
 * PostgreSQL backend, with a CLI that reads zstd checkpoints, unless the user chose a compression.
 * test/engine/catalog-postgres-checkpoints.test.ts shows what it writes and that every reader reads it.
 */
import { describe, expect, it } from "vitest";
import { checkpointCompression } from "../../provider/catalog/workspace";

describe("checkpointCompression", () => {
  it("turns on zstd for a PostgreSQL backend with a CLI of 3.224 or later", () => {
    expect(checkpointCompression({}, true, "3.248.0")).toEqual({ PULUMI_DIY_BACKEND_ZSTD: "true" });
    expect(checkpointCompression({}, true, "3.224.0")).toEqual({ PULUMI_DIY_BACKEND_ZSTD: "true" });
    expect(checkpointCompression({}, true, "3.1000.0")).toEqual({ PULUMI_DIY_BACKEND_ZSTD: "true" });
  });

  it("leaves a file backend, an older or unknown CLI, and any compression the user set alone", () => {
    expect(checkpointCompression({}, false, "3.248.0")).toEqual({});
    expect(checkpointCompression({}, true, "3.223.1")).toEqual({});
    expect(checkpointCompression({}, true, "3.30.0")).toEqual({});
    expect(checkpointCompression({}, true, undefined)).toEqual({});
    for (const name of [
      "PULUMI_DIY_BACKEND_ZSTD",
      "PULUMI_SELF_MANAGED_STATE_ZSTD",
      "PULUMI_DIY_BACKEND_GZIP",
      "PULUMI_SELF_MANAGED_STATE_GZIP",
    ]) {
      expect(checkpointCompression({ [name]: "false" }, true, "3.248.0")).toEqual({});
    }
  });
});
