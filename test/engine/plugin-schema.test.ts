/**
 * The plugin's schema, as `pulumi package get-schema` prints it with the real CLI, says what the
 * checks check and what docs/resources.md documents: the same inputs, the same required ones, the
 * same limits, the same "changing it replaces", the same settings with the token secret.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { LIMITS, NUMERIC_OPTIONS } from "../../src";
import { productInputFailures } from "../../src/provider/product";
import { PRODUCT_FIELDS } from "../../src/provider/product";
import { SITE_FIELDS } from "../../src/provider/site";
import { TASK_FIELDS } from "../../src/provider/task";
import { ENGINE_TIMEOUT_MS, REPO, pulumiCli } from "../../scripts/engine/driver";

interface Property { type: string; description: string; secret?: boolean; willReplaceOnChanges?: boolean }
interface Schema {
  name: string;
  config: { variables: Record<string, Property> };
  provider: { inputProperties: Record<string, Property> };
  resources: Record<string, { inputProperties: Record<string, Property>; requiredInputs: string[]; properties: Record<string, Property> }>;
  functions: Record<string, unknown>;
}

const docs = readFileSync(join(REPO, "docs", "resources.md"), "utf8");

/** The rows of the inputs table under `## \`<Type>\``: input name(s) → "Changing it" cell. */
function documentedInputs(type: string): Map<string, string> {
  const section = docs.slice(docs.indexOf(`## \`${type}\``)).split("\n## ")[0]!;
  const rows = new Map<string, string>();
  for (const line of section.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    if (!cells[1]?.startsWith("`") || cells[1] === "`Input`") continue;
    for (const name of cells[1].match(/`(\w+)`/g) ?? []) rows.set(name.replaceAll("`", ""), cells[3] ?? "");
  }
  return rows;
}

describe("the plugin schema", { timeout: ENGINE_TIMEOUT_MS }, () => {
  let schema: Schema;

  beforeAll(async () => {
    const { bin } = await pulumiCli();
    const launcher = join(REPO, "node_modules", "pulumi-serviceapi", "plugin", "pulumi-resource-serviceapi");
    const text = execFileSync(join(bin, "pulumi"), ["package", "get-schema", launcher], {
      encoding: "utf8", env: { ...process.env, PATH: `${bin}:${join(REPO, "node_modules", ".bin")}:${process.env.PATH}`, PULUMI_SKIP_UPDATE_CHECK: "true" },
    });
    schema = JSON.parse(text) as Schema;
  }, 30 * 60_000);

  it("lists the three resources and four functions under the serviceapi package", () => {
    expect(schema.name).toBe("serviceapi");
    expect(Object.keys(schema.resources).sort()).toEqual(["serviceapi:index:Product", "serviceapi:index:Site", "serviceapi:index:Task"]);
    expect(Object.keys(schema.functions).sort())
      .toEqual(["serviceapi:index:getProject", "serviceapi:index:getProjects", "serviceapi:index:getSite", "serviceapi:index:getSites"]);
  });

  it.each([["Product", PRODUCT_FIELDS], ["Site", SITE_FIELDS], ["Task", TASK_FIELDS]] as const)(
    "%s: the schema's inputs, required inputs and replacements are the field table's, and docs/resources.md lists each",
    (type, fields) => {
      const resource = schema.resources[`serviceapi:index:${type}`]!;
      const inputs = fields.inputs as Record<string, { required?: boolean; replaces?: boolean; description: string }>;
      expect(Object.keys(resource.inputProperties).sort()).toEqual(Object.keys(inputs).sort());
      expect([...resource.requiredInputs].sort()).toEqual(Object.entries(inputs).filter(([, f]) => f.required).map(([n]) => n).sort());
      const documented = documentedInputs(type);
      for (const [name, field] of Object.entries(inputs)) {
        const property = resource.inputProperties[name]!;
        expect(property.willReplaceOnChanges === true, `${type}.${name} replaces`).toBe(field.replaces === true);
        expect(property.description.endsWith(`Changing it replaces the ${type}.`), `${type}.${name} says it replaces`).toBe(field.replaces === true);
        expect(documented.has(name), `docs/resources.md lists ${type}.${name}`).toBe(true);
        expect(documented.get(name)!.startsWith("replace"), `docs say ${type}.${name} replaces`).toBe(field.replaces === true);
      }
      for (const name of Object.keys(fields.outputs)) expect(resource.properties[name], `${type} output ${name}`).toBeDefined();
    });

  it("the schema's limits are the checks' limits", () => {
    const product = schema.resources["serviceapi:index:Product"]!.inputProperties;
    expect(product.title!.description).toContain(`${LIMITS.productTitle.min} to ${LIMITS.productTitle.max} characters`);
    expect(product.description!.description).toContain(`Up to ${LIMITS.productDescription.max} characters`);
    expect(schema.resources["serviceapi:index:Site"]!.inputProperties.name!.description)
      .toContain(`${LIMITS.siteName.min} to ${LIMITS.siteName.max} characters`);
    // And the check refuses one past each limit with the same number.
    expect(productInputFailures({ projectId: "9326cccf-2faa-56aa-bc60-30d0b53b88a3", title: "x".repeat(LIMITS.productTitle.max + 1) }).map((f) => f.reason))
      .toEqual([`title must be ${LIMITS.productTitle.min} to ${LIMITS.productTitle.max} characters long (got ${LIMITS.productTitle.max + 1})`]);
  });

  it("settings: the token is secret; every numeric setting states its default and range; config and provider agree", () => {
    expect(schema.config.variables.token).toMatchObject({ type: "string", secret: true });
    expect(schema.provider.inputProperties).toEqual(schema.config.variables);
    for (const [key, spec] of Object.entries(NUMERIC_OPTIONS)) {
      if (key === "maxResponseBytes") continue; // a client option, not a setting
      expect(schema.config.variables[key], key).toMatchObject({ type: "integer" });
      expect(schema.config.variables[key]!.description).toContain(`Default ${spec.default}; ${spec.min} to ${spec.max}.`);
      expect(docs, `docs/resources.md documents serviceapi:${key}`).toContain(`| \`serviceapi:${key}\``);
    }
  });
});
