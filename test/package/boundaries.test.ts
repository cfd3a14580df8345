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
    ["provider/client/x.ts", 'import "../provider/product";'],
    ["provider/client/x.ts", 'import * as pulumi from "@pulumi/pulumi";'],
    ["provider/contract/x.ts", 'import { ServiceApiClient } from "../client";'],
    ["provider/resources/x.ts", 'import { Product } from "../program/product";'],
    ["provider/resources/x.ts", 'import "../dynamic/adapter";'],
    ["provider/resources/x.ts", 'import { Transport } from "../client/internal/transport";'],
    ["provider/resources/x.ts", 'import * as log from "@pulumi/pulumi/log";'],
    ["provider/plugin/x.ts", 'import { unknownValue } from "@pulumi/pulumi/runtime";'],
    ["provider/plugin/x.ts", 'import "../dynamic/product";'],
    ["provider/dynamic/x.ts", 'import "../plugin/server";'],
    ["provider/program/x.ts", 'import "../plugin/schema";'],
    ["simulator/x.ts", 'import { MIN_TOKEN_LENGTH } from "../provider/client";'],
    ["simulator/x.ts", 'import { product } from "../provider/resources/product";'],
  ])("%s may not %s", async (path, code) => {
    expect(await refused(path, code)).toHaveLength(1);
  });

  it.each([
    ["provider/resources/x.ts", 'import { ServiceApiClient } from "../client";'],
    ["provider/resources/x.ts", 'import type * as pulumi from "@pulumi/pulumi";'],
    ["provider/plugin/x.ts", 'import * as proto from "@pulumi/pulumi/proto/provider_pb";'],
    ["provider/dynamic/x.ts", 'import * as log from "@pulumi/pulumi/log";'],
    ["provider/program/x.ts", 'import * as provider from "../dynamic/product";'],
    ["simulator/x.ts", 'import { OPERATIONS } from "../provider/contract/schemas";'],
  ])("%s may %s", async (path, code) => {
    expect(await refused(path, code)).toEqual([]);
  });
});
