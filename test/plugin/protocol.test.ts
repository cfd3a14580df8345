/**
 * The wire protocol's constants the provider side writes out instead of loading the program-side SDK
 * into the plugin (its runtime pulls in the TypeScript compiler): each equals the SDK's own.
 */
import { describe, expect, it } from "vitest";
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";
import { unknownValue } from "@pulumi/pulumi/runtime";
import { UNKNOWN } from "../../provider/resources/checks";
import { SECRET_SIG, SECRET_SIG_KEY } from "../../provider/plugin/wire";

describe("protocol constants", () => {
  it("the unknown-value sentinel and the secret signature are the SDK's", () => {
    expect(UNKNOWN).toBe(unknownValue);
    expect(SECRET_SIG_KEY).toBe(specialSigKey);
    expect(SECRET_SIG).toBe(specialSecretSig);
  });
});
