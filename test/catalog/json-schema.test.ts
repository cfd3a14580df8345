/**
 * The JSON Schemas of `--json` (docs/schema/, for Conftest, OPA and a team's own CI steps) are what
 * `npm run schema` derives from the types the tool writes today: a field added to `PlanReport`,
 * `RunReport` or `PolicyInput` (what a policy reads) without `npm run schema` fails here. That real runs' output matches them is checked
 * where real runs are made (`expectSchema`, test/engine/json-schema.ts: every parity step, the catalog's plans).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { POLICY_INPUT_VERSION } from "../../provider/catalog/policy";
import { REPORT_VERSION } from "../../provider/catalog/report";
import { jsonSchemas, schemaFile, SCHEMA_TYPES } from "../../scripts/json-schema";

const REPO = join(__dirname, "..", "..");

describe("docs/schema", () => {
  // Building the TypeScript program of the tool's sources takes seconds; more on a busy machine.
  it("holds, for this report version, what `npm run schema` writes from the types", { timeout: 120_000 }, async () => {
    const generated = await jsonSchemas();
    for (const name of Object.keys(SCHEMA_TYPES) as (keyof typeof SCHEMA_TYPES)[]) {
      const file = schemaFile(name);
      expect(file).toBe(`docs/schema/${name}-v${name === "policy-input" ? POLICY_INPUT_VERSION : REPORT_VERSION}.json`);
      expect(readFileSync(join(REPO, file), "utf8") === generated[name], `${file} is stale: run \`npm run schema\``).toBe(true);
    }
    // The plan's version is this version, not any number: a reader can tell a plan of another version.
    expect(JSON.parse(generated.plan).definitions.PlanReport.properties.version).toEqual({
      type: "number",
      const: REPORT_VERSION,
      description: "The version of this shape (REPORT_VERSION).",
    });
  });
});
