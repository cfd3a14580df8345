/**
 * The layering lint (eslint.config.mjs, docs/architecture.md) fires on what it forbids — checked on
 * snippets placed in each layer, so the rules are not vacuous — and passes what is allowed.
 */
import { ESLint } from "eslint";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const eslint = new ESLint({ cwd: join(__dirname, "..", ".."), overrideConfig: { rules: { "@typescript-eslint/no-unused-vars": "off" } } });

/** The restricted-import messages for `code` as if it were the file `path`. */
async function refused(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path });
  return result!.messages.filter((m) => m.ruleId === "@typescript-eslint/no-restricted-imports").map((m) => m.message);
}

describe("the layering lint", () => {
  it.each([
    ["src/client/x.ts", 'import "../provider/product";'],
    ["src/client/x.ts", 'import * as pulumi from "@pulumi/pulumi";'],
    ["src/contract/x.ts", 'import { ServiceApiClient } from "../client";'],
    ["src/provider/x.ts", 'import { Product } from "../program/product";'],
    ["src/provider/x.ts", 'import "../dynamic/adapter";'],
    ["src/provider/x.ts", 'import { Transport } from "../client/internal/transport";'],
    ["src/provider/x.ts", 'import * as log from "@pulumi/pulumi/log";'],
    ["src/plugin/x.ts", 'import { unknownValue } from "@pulumi/pulumi/runtime";'],
    ["src/plugin/x.ts", 'import "../dynamic/product";'],
    ["src/dynamic/x.ts", 'import "../plugin/server";'],
    ["src/program/x.ts", 'import "../plugin/schema";'],
    ["simulator/x.ts", 'import { MIN_TOKEN_LENGTH } from "../src/client";'],
    ["simulator/x.ts", 'import { product } from "../src/provider/product";'],
  ])("%s may not %s", async (path, code) => {
    expect(await refused(path, code)).toHaveLength(1);
  });

  it.each([
    ["src/provider/x.ts", 'import { ServiceApiClient } from "../client";'],
    ["src/provider/x.ts", 'import type * as pulumi from "@pulumi/pulumi";'],
    ["src/plugin/x.ts", 'import * as proto from "@pulumi/pulumi/proto/provider_pb";'],
    ["src/dynamic/x.ts", 'import * as log from "@pulumi/pulumi/log";'],
    ["src/program/x.ts", 'import * as provider from "../dynamic/product";'],
    ["simulator/x.ts", 'import { OPERATIONS } from "../src/contract/schemas";'],
  ])("%s may %s", async (path, code) => {
    expect(await refused(path, code)).toEqual([]);
  });
});
