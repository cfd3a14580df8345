/**
 * The import lint (eslint.config.mjs, docs/architecture.md) fires on what it forbids and passes what
 * it allows: each rule is tried on snippets linted as if they were files at the forbidden place,
 * which must draw exactly that rule's report, beside an allowed neighbour that must draw none. The
 * table below is checked against the config itself, so a rule added without a test fails here.
 */
import { ESLint } from "eslint";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const root = join(__dirname, "..", "..");
const eslint = new ESLint({ cwd: root, overrideConfig: { rules: { "@typescript-eslint/no-unused-vars": "off" } } });

// The messages, as eslint.config.mjs words them.
const LAYER = "imports go downward only, and to a layer's public face: see docs/architecture.md";
const NO_PULUMI = "this layer knows nothing of Pulumi";
const TYPES_ONLY = "the provider process loads no Pulumi SDK code from here: types only (each face brings its own)";
const PROTO_ONLY = "the plugin speaks the wire protocol (@pulumi/pulumi/proto/*); the program-side SDK stays out of its bundle";
const BESIDE_ENTRY =
  "only the package entry (provider/index.ts) sits above the faces: a file beside it imports contract, client and resources only";
const PRODUCT = "product code must not import test code";
const SCRIPTS = "scripts and the bench import no test code (the engine driver lives in scripts/engine/)";
const SIMULATOR_SOURCE = "tests import the simulator as pulumi-serviceapi-simulator (its source): the folder resolves to its build";
const CATALOG =
  "nothing imports the catalog tool (provider/catalog/): it sits on top of the package and loads the Automation API; see docs/architecture.md";

type Refused = [path: string, code: string, message: string];
type Allowed = [path: string, code: string];
interface RuleCases {
  /** The rule as configured: `@typescript-eslint/no-restricted-imports` or ESLint's own. */
  rule: string;
  refused: Refused[];
  allowed: Allowed[];
}

const TS_RULE = "@typescript-eslint/no-restricted-imports";
const CORE_RULE = "no-restricted-imports";

/** Keyed by the config block's `files`. */
const RULES: Record<string, RuleCases> = {
  "provider/contract/**/*.ts": {
    rule: TS_RULE,
    refused: [
      ["provider/contract/x.ts", 'import { ServiceApiClient } from "../client";', LAYER],
      ["provider/contract/x.ts", 'import { product } from "../resources/product";', LAYER],
      ["provider/contract/x.ts", 'import * as pulumi from "@pulumi/pulumi";', NO_PULUMI],
      ["provider/contract/x.ts", 'import { readCatalog } from "../catalog/catalog";', CATALOG],
      ["provider/contract/x.ts", 'import { openStateBackend } from "../backend";', LAYER],
    ],
    allowed: [
      ["provider/contract/x.ts", 'import { formatIssues } from "./issues";'],
      ["provider/contract/x.ts", 'import { z } from "zod";'],
    ],
  },
  "provider/client/**/*.ts": {
    rule: TS_RULE,
    refused: [
      ["provider/client/x.ts", 'import { product } from "../resources/product";', LAYER],
      ["provider/client/x.ts", 'import { Product } from "../index";', LAYER],
      ["provider/client/internal/x.ts", 'import { ServiceApiClient } from "../index";', LAYER],
      ["provider/client/internal/x.ts", 'import { Product } from "../../index";', LAYER],
      ["provider/client/x.ts", 'import * as pulumi from "@pulumi/pulumi";', NO_PULUMI],
      ["provider/client/internal/x.ts", 'import { runStacks } from "../../catalog/tool";', CATALOG],
      ["provider/client/x.ts", 'import { openStateBackend } from "../backend/index";', LAYER],
    ],
    allowed: [
      ["provider/client/x.ts", 'import { OPERATIONS } from "../contract/schemas";'],
      ["provider/client/x.ts", 'import { Transport } from "./internal/transport";'],
      ["provider/client/internal/x.ts", 'import { checkNumber } from "../config";'],
    ],
  },
  "provider/backend/**/*.ts": {
    rule: TS_RULE,
    // A layer of its own: nothing of the package's other layers, nor of Pulumi's SDK.
    refused: [
      ["provider/backend/x.ts", 'import { ServiceApiClient } from "../client";', LAYER],
      ["provider/backend/x.ts", 'import { OPERATIONS } from "../contract/schemas";', LAYER],
      ["provider/backend/x.ts", 'import { readSettings } from "../resources/settings";', LAYER],
      ["provider/backend/x.ts", 'import { Product } from "../index";', LAYER],
      ["provider/backend/x.ts", 'import { LocalWorkspace } from "@pulumi/pulumi/automation";', NO_PULUMI],
      ["provider/backend/x.ts", 'import { stackName } from "../catalog/shards";', CATALOG],
    ],
    allowed: [
      ["provider/backend/x.ts", 'import { fullName } from "./model";\nimport { Pool } from "pg";\nimport { gunzip } from "node:zlib";'],
    ],
  },
  "provider/resources/**/*.ts": {
    rule: TS_RULE,
    refused: [
      ["provider/resources/x.ts", 'import "../dynamic/adapter";', LAYER],
      ["provider/resources/x.ts", 'import { Product } from "../program/product";', LAYER],
      ["provider/resources/x.ts", 'import { Transport } from "../client/internal/transport";', LAYER],
      ["provider/resources/x.ts", 'import { Product } from "../index";', LAYER],
      // A lifecycle split into a folder is one level deeper, and held to the same.
      ["provider/resources/product/x.ts", 'import { Transport } from "../../client/internal/transport";', LAYER],
      ["provider/resources/product/x.ts", 'import { Product } from "../../index";', LAYER],
      ["provider/resources/product/x.ts", 'import "../../dynamic/adapter";', LAYER],
      ["provider/resources/x.ts", 'import * as log from "@pulumi/pulumi/log";', TYPES_ONLY],
      ["provider/resources/x.ts", 'import { Output } from "@pulumi/pulumi";', TYPES_ONLY],
      ["provider/resources/x.ts", 'import { CatalogError } from "../catalog/errors";', CATALOG],
      ["provider/resources/product/x.ts", 'import { keyBits } from "../../catalog/shards";', CATALOG],
      ["provider/resources/x.ts", 'import { openPostgresBucket } from "../backend/postgres";', LAYER],
      ["provider/resources/product/x.ts", 'import { checkpointState } from "../../backend/checkpoint";', LAYER],
    ],
    allowed: [
      ["provider/resources/x.ts", 'import { ServiceApiClient } from "../client";'],
      ["provider/resources/x.ts", 'import type * as pulumi from "@pulumi/pulumi";'],
      ["provider/resources/x.ts", 'import { type Output } from "@pulumi/pulumi";'],
      [
        "provider/resources/product/x.ts",
        'import { ServiceApiClient } from "../../client";\nimport { checkFields } from "../field-table";',
      ],
      // The state-backend reader, through its index.
      ["provider/resources/x.ts", 'import { openStateBackend } from "../backend";\nimport type { StackRef } from "../backend/index";'],
    ],
  },
  "provider/dynamic/**/*.ts": {
    rule: TS_RULE,
    refused: [
      ["provider/dynamic/x.ts", 'import "../plugin/server";', LAYER],
      ["provider/dynamic/x.ts", 'import { Product } from "../program/product";', LAYER],
      ["provider/dynamic/x.ts", 'import { Transport } from "../client/internal/transport";', LAYER],
      ["provider/dynamic/x.ts", 'import "../index";', LAYER],
      ["provider/dynamic/x.ts", 'import { keyBits } from "../catalog/shards";', CATALOG],
      ["provider/dynamic/x.ts", 'import { DiyBackend } from "../backend/diy";', LAYER],
    ],
    allowed: [
      ["provider/dynamic/x.ts", 'import { product } from "../resources/product";'],
      ["provider/dynamic/x.ts", 'import * as log from "@pulumi/pulumi/log";'],
      ["provider/dynamic/x.ts", 'import "./node-version";'],
    ],
  },
  "provider/plugin/**/*.ts": {
    rule: TS_RULE,
    refused: [
      ["provider/plugin/x.ts", 'import "../dynamic/product";', LAYER],
      ["provider/plugin/x.ts", 'import { Product } from "../program/product";', LAYER],
      ["provider/plugin/x.ts", 'import { unknownValue } from "@pulumi/pulumi/runtime";', PROTO_ONLY],
      ["provider/plugin/x.ts", 'import * as pulumi from "@pulumi/pulumi";', PROTO_ONLY],
      ["provider/plugin/x.ts", 'import { readCatalog } from "../catalog/catalog";', CATALOG],
      ["provider/plugin/x.ts", 'import { fileRoot } from "../backend/file";', LAYER],
    ],
    allowed: [
      ["provider/plugin/x.ts", 'import * as proto from "@pulumi/pulumi/proto/provider_pb";'],
      ["provider/plugin/x.ts", 'import { ProviderContext } from "../resources/context";'],
    ],
  },
  "provider/program/**/*.ts": {
    rule: TS_RULE,
    refused: [
      ["provider/program/x.ts", 'import "../plugin/schema";', LAYER],
      ["provider/program/x.ts", 'import { Transport } from "../client/internal/transport";', LAYER],
      ["provider/program/x.ts", 'import "../index";', LAYER],
      ["provider/program/x.ts", 'import { readCatalog } from "../catalog/catalog";', CATALOG],
      ["provider/program/x.ts", 'import { maskUrl } from "../backend/errors";', LAYER],
    ],
    allowed: [
      ["provider/program/x.ts", 'import * as provider from "../dynamic/product";'],
      ["provider/program/x.ts", 'import { ServiceApiClient } from "../client";'],
    ],
  },
  "provider/*.ts": {
    rule: TS_RULE,
    refused: [
      // The hole this rule closes: dynamic/product.ts → ../node-version → ./dynamic/expected-prints.
      ["provider/node-version.ts", 'import { expectPrintOf } from "./dynamic/expected-prints";', BESIDE_ENTRY],
      ["provider/x.ts", 'import { schema } from "./plugin/schema";', BESIDE_ENTRY],
      ["provider/x.ts", 'import { Product } from "./program/product";', BESIDE_ENTRY],
      ["provider/x.ts", 'import { Transport } from "./client/internal/transport";', BESIDE_ENTRY],
      ["provider/x.ts", 'import { main } from "./catalog/cli";', CATALOG],
      ["provider/x.ts", 'import { postgresTarget } from "./backend/postgres";', BESIDE_ENTRY],
    ],
    allowed: [
      ["provider/x.ts", 'import { engines } from "../package.json";\nimport { ServiceApiClient } from "./client";'],
      ["provider/x.ts", 'import { product } from "./resources/product";'],
      // The package entry is the one file above the faces.
      ["provider/index.ts", 'import "./dynamic/node-version";\nexport { Product } from "./program/product";'],
    ],
  },
  "provider/index.ts": {
    rule: TS_RULE,
    // The catalog's program imports the entry: the entry importing the catalog would load the Automation API into every program.
    refused: [["provider/index.ts", 'export { main } from "./catalog/cli";', CATALOG]],
    allowed: [
      [
        "provider/index.ts",
        'import "./dynamic/node-version";\nexport { Product } from "./program/product";\nexport { ServiceApiClient } from "./client";',
      ],
    ],
  },
  "provider/catalog/**/*.ts": {
    rule: TS_RULE,
    refused: [
      ["provider/catalog/x.ts", 'import { Product } from "../program/product";', LAYER],
      ["provider/catalog/x.ts", 'import { guardStrings } from "../program/unicode-guard";', LAYER],
      ["provider/catalog/x.ts", 'import type { ProductArgs } from "../program/product";', LAYER],
      ["provider/catalog/x.ts", 'import "../dynamic/product";', LAYER],
      ["provider/catalog/x.ts", 'import { schema } from "../plugin/schema";', LAYER],
      ["provider/catalog/x.ts", 'import { Transport } from "../client/internal/transport";', LAYER],
      ["provider/catalog/x.ts", 'import { CliBackend } from "../backend/cli";', LAYER],
      ["provider/catalog/x.ts", 'import { StateBackendError } from "../backend/errors";', LAYER],
    ],
    allowed: [
      // Its neighbours: the package entry (the resources' classes), the client's index, the resources, the Automation API, its own files.
      ["provider/catalog/x.ts", 'import { Product, getProjectOutput } from "../index";\nimport { ServiceApiClient } from "../client";'],
      // The shared pacer's face (not in the client's index, which user programs load), beside the client's internals refused above.
      ["provider/catalog/x.ts", 'import { startSharedPacer, type PaceStore } from "../client/shared-pacer";'],
      [
        "provider/catalog/x.ts",
        'import { readSettings } from "../resources/settings";\nimport { productInputFailures } from "../resources/product";',
      ],
      ["provider/catalog/x.ts", 'import { LocalWorkspace } from "@pulumi/pulumi/automation";\nimport { keyBits } from "./shards";'],
      // The stacks' program declares the program layer's LightResource, the one face module it may import.
      ["provider/catalog/x.ts", 'import { LightResource } from "../program/light-resource";'],
      [
        "provider/catalog/x.ts",
        'import { openStateBackend, type StackRef } from "../backend";\nimport { fullName } from "../backend/index";',
      ],
    ],
  },
  "simulator/**/*.ts": {
    rule: TS_RULE,
    refused: [
      ["simulator/x.ts", 'import { MIN_TOKEN_LENGTH } from "../provider/client";', LAYER],
      ["simulator/x.ts", 'import { product } from "../provider/resources/product";', LAYER],
      ["simulator/x.ts", 'import { ServiceApiClient } from "pulumi-serviceapi";', LAYER],
      ["simulator/x.ts", 'import * as pulumi from "@pulumi/pulumi";', NO_PULUMI],
    ],
    allowed: [
      ["simulator/x.ts", 'import { OPERATIONS } from "../provider/contract/schemas";'],
      ["simulator/x.ts", 'import { Simulator } from "pulumi-serviceapi-simulator";'],
    ],
  },
  "provider/** simulator/** examples/** plugin/**": {
    rule: CORE_RULE,
    refused: [
      ["provider/x.ts", 'import { simulator } from "../test/helpers";', PRODUCT],
      ["provider/resources/x.ts", 'import { VirtualClock } from "../../test/helpers";', PRODUCT],
      ["simulator/x.ts", 'import { simulator } from "../test/helpers";', PRODUCT],
      ["examples/quickstart/x.ts", 'import { simulator } from "../../test/helpers";', PRODUCT],
      ["plugin/x.ts", 'import { simulator } from "../test/helpers";', PRODUCT],
    ],
    allowed: [
      ["provider/x.ts", 'import { ServiceApiClient } from "./client";'],
      ["examples/quickstart/x.ts", 'import { Product } from "pulumi-serviceapi";'],
      ["simulator/x.ts", 'import { OPERATIONS } from "../provider/contract/schemas";'],
    ],
  },
  "test/**": {
    rule: CORE_RULE,
    refused: [
      ["test/x.test.ts", 'import { startSimulator } from "../simulator";', SIMULATOR_SOURCE],
      ["test/resources/x.test.ts", 'import type { Simulator } from "../../simulator";', SIMULATOR_SOURCE],
      ["test/engine/x.test.ts", 'import { startSimulator } from "../../simulator/dist/simulator";', SIMULATOR_SOURCE],
    ],
    allowed: [
      ["test/resources/x.test.ts", 'import { startSimulator, type Simulator } from "pulumi-serviceapi-simulator";'],
      ["test/resources/x.test.ts", 'import { DEFAULT_IDS } from "../../simulator/seed";'],
    ],
  },
  "scripts/** bench/**": {
    rule: CORE_RULE,
    refused: [
      ["bench/x.ts", 'import { simulator } from "../test/helpers";', SCRIPTS],
      ["scripts/x.ts", 'import { simulator } from "../test/helpers";', SCRIPTS],
      ["scripts/x.ts", 'import { engineSuite } from "../test/engine/suite";', SCRIPTS],
      ["bench/x.ts", 'import { VirtualClock } from "../test/support/virtual-clock";', SCRIPTS],
      ["scripts/engine/driver.ts", 'import { simulator } from "../../test/helpers";', SCRIPTS],
      ["scripts/engine/driver.ts", 'import { daysAhead } from "../../test/support/time";', SCRIPTS],
    ],
    allowed: [
      ["bench/x.ts", 'import { EngineStack } from "../scripts/engine/driver";'],
      ["scripts/x.ts", 'import { EngineStack } from "./engine/driver";'],
      ["bench/x.ts", 'import { REPO } from "../scripts/repo";'],
      ["scripts/engine/driver.ts", 'import type { ProductInputs } from "../../provider/resources/product";'],
    ],
  },
};

/** Every message eslint gives `code` as if it were the file `path`, as `rule: message`. */
async function lint(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path });
  return result!.messages.map((m) => `${m.ruleId}: ${m.message}`);
}

const refusals = Object.values(RULES).flatMap(({ rule, refused }) =>
  refused.map(([path, code, message]) => ({ rule, path, code, message })),
);
const allowances = Object.values(RULES).flatMap(({ allowed }) => allowed.map(([path, code]) => ({ path, code })));

describe("the import lint", () => {
  it.each(refusals)("$path may not $code", async ({ rule, path, code, message }) => {
    const specifier = /"([^"]+)"/.exec(code)![1];
    expect(await lint(path, code)).toEqual([`${rule}: '${specifier}' import is restricted from being used by a pattern. ${message}`]);
  });

  // No message at all: a snippet that failed to parse would draw a report, not pass quietly.
  it.each(allowances)("$path may $code", async ({ path, code }) => {
    expect(await lint(path, code)).toEqual([]);
  });

  it("has a test for every rule: each restricted-import block of the config, each of its messages refused and something allowed", async () => {
    type Block = { files?: string[]; rules?: Record<string, unknown> };
    const config = (await import(pathToFileURL(join(root, "eslint.config.mjs")).href)).default as Block[];
    const configured: Record<string, { rule: string; messages: string[] }> = {};
    for (const block of config) {
      for (const [rule, setting] of Object.entries(block.rules ?? {})) {
        if (rule !== TS_RULE && rule !== CORE_RULE) continue;
        const patterns = (setting as [string, { patterns: { message: string }[] }])[1].patterns;
        configured[block.files!.join(" ")] = { rule, messages: [...new Set(patterns.map((p) => p.message))].sort() };
      }
    }
    const tested = Object.fromEntries(
      Object.entries(RULES).map(([files, cases]) => [
        files,
        { rule: cases.rule, messages: [...new Set(cases.refused.map(([, , message]) => message))].sort() },
      ]),
    );
    expect(tested).toEqual(configured);
    for (const cases of Object.values(RULES)) expect(cases.allowed.length).toBeGreaterThan(0);
  });

  it("tries each refusal in the block it is listed under: the file falls under that block's patterns", async () => {
    const config = (await import(pathToFileURL(join(root, "eslint.config.mjs")).href)).default as {
      files?: string[];
      rules?: Record<string, [string, unknown]>;
    }[];
    for (const [files, { rule, refused }] of Object.entries(RULES)) {
      const block = config.find((b) => b.files?.join(" ") === files && b.rules?.[rule]);
      for (const [path] of refused) {
        const effective = (await eslint.calculateConfigForFile(path)) as { rules: Record<string, [unknown, unknown]> };
        expect(effective.rules[rule]?.[1], `${path} under ${files}`).toEqual(block!.rules![rule]![1]);
      }
    }
  });
});
