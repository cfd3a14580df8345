/**
 * A real run's `--json` against the schema committed for it (docs/schema/, `npm run schema`): what
 * Conftest, OPA or a team's CI step reads is what the schema promises them.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv, type ValidateFunction } from "ajv";
import { expect } from "vitest";
import { schemaFile, SCHEMA_TYPES } from "../../scripts/json-schema";
import { REPO } from "../../scripts/engine/driver";

const ajv = new Ajv({ allErrors: true });
const validators = new Map<keyof typeof SCHEMA_TYPES, ValidateFunction>();

/** Fails, naming the schema file and every place that does not match, unless `value` is a valid `name` document. */
export function expectSchema(name: keyof typeof SCHEMA_TYPES, value: unknown, label: string): void {
  let validate = validators.get(name);
  if (validate === undefined) {
    validate = ajv.compile(JSON.parse(readFileSync(join(REPO, schemaFile(name)), "utf8")) as object);
    validators.set(name, validate);
  }
  const valid = validate(value);
  expect(valid, `${label}: its --json is not what ${schemaFile(name)} says: ${ajv.errorsText(validate.errors)}`).toBe(true);
}
