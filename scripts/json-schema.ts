/**
 * The JSON Schemas of the catalog tool's `--json` output, committed under docs/schema/ for the
 * engines that read it — Conftest, OPA, a CI step of a team's own — and derived from the TypeScript
 * types the tool writes (`PlanReport`, `RunReport` in provider/catalog/report.ts), so that they
 * cannot say other than the code does (ts-json-schema-generator, the JSDoc comments as descriptions).
 *
 *   npm run schema            # writes docs/schema/plan-v2.json and docs/schema/report-v2.json
 *
 * The number is REPORT_VERSION: a field that changes meaning or goes bumps it, and the files of the
 * earlier version stay beside the new ones. test/catalog/json-schema.test.ts keeps the committed files equal
 * to what this writes, and the engine tests check every `plan --json`, `preview --json` and
 * `up --json` they run against them.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPORT_VERSION } from "../provider/catalog/report";
import { POLICY_INPUT_VERSION } from "../provider/catalog/policy";
import { repository } from "../package.json";

const ROOT = join(__dirname, "..");

/**
 * The documents, by the type they describe: what `plan --json` prints, what preview, up, drift,
 * refresh and destroy print, and what a policy reads as `input` (provider/catalog/policy.ts).
 */
export const SCHEMA_TYPES = { plan: "PlanReport", report: "RunReport", "policy-input": "PolicyInput" } as const;

/** Each document's version: the reports' REPORT_VERSION, the policy input's own. */
const VERSIONS: Record<keyof typeof SCHEMA_TYPES, number> = {
  plan: REPORT_VERSION,
  report: REPORT_VERSION,
  "policy-input": POLICY_INPUT_VERSION,
};

/** Where a document is committed, relative to the repository. */
export function schemaFile(name: keyof typeof SCHEMA_TYPES, version = VERSIONS[name]): string {
  return `docs/schema/${name}-v${version}.json`;
}

/** The schemas as the types say today, each as its committed text. */
export async function jsonSchemas(): Promise<Record<keyof typeof SCHEMA_TYPES, string>> {
  // Loaded here, not with the file: it brings the TypeScript compiler, which the file's other readers (tests checking output) do not need.
  const { createGenerator } = await import("ts-json-schema-generator");
  const generator = createGenerator({
    path: join(ROOT, "provider/catalog/{report,policy}.ts"),
    tsconfig: join(ROOT, "tsconfig.json"),
    // The build type-checks the sources; here only their shapes are read.
    skipTypeCheck: true,
    // A version may add fields: a reader of this one must let them pass.
    additionalProperties: true,
    sortProps: true,
  });
  const base = repository.url.replace(/^git\+/, "").replace(/\.git$/, "");
  const out = {} as Record<keyof typeof SCHEMA_TYPES, string>;
  for (const [name, type] of Object.entries(SCHEMA_TYPES) as [keyof typeof SCHEMA_TYPES, string][]) {
    const schema = generator.createSchema(type);
    const document = { $id: `${base}/blob/main/${schemaFile(name)}`, ...schema };
    out[name] = `${JSON.stringify(document, null, 2)}\n`;
  }
  return out;
}

if (require.main === module) {
  void jsonSchemas().then((schemas) => {
    for (const [name, text] of Object.entries(schemas) as [keyof typeof SCHEMA_TYPES, string][]) {
      writeFileSync(join(ROOT, schemaFile(name)), text);
      console.log(`wrote ${schemaFile(name)}`);
    }
  });
}
