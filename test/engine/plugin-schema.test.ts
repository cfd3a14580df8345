/**
 * The plugin's schema, as `pulumi package get-schema` prints it with the real CLI, against what a
 * user is promised elsewhere — spelled out here, not read from the resources' tables the schema is
 * generated from (only the API's fields are read from the contract's tables, each of which
 * test/resources/field-table.test.ts walks field by field): the inputs and which are required, which
 * replace, the limits in the descriptions, the four functions and their arguments, the settings with
 * the token secret; and docs/resources.md says the same.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { fieldNames, propertyName, type FieldSpecs } from "../../provider/contract/fields";
import { PRODUCT_FIELD_NAMES, PRODUCT_FIELD_SPECS, SITE_FIELD_SPECS, TASK_FIELD_SPECS } from "../../provider/contract/schemas";
import { ENGINE_TIMEOUT_MS, REPO, pulumiCli } from "../../scripts/engine/driver";
import { documentedInputs } from "../helpers";

interface Property {
  type?: string;
  $ref?: string;
  items?: Property;
  description?: string;
  secret?: boolean;
  willReplaceOnChanges?: boolean;
}
interface ObjectSpec {
  properties: Record<string, Property>;
  required?: string[];
}
interface Schema {
  name: string;
  config: { variables: Record<string, Property> };
  provider: { inputProperties: Record<string, Property> };
  resources: Record<string, { inputProperties: Record<string, Property>; requiredInputs: string[]; properties: Record<string, Property> }>;
  functions: Record<string, { inputs: ObjectSpec; outputs: ObjectSpec }>;
  types: Record<string, ObjectSpec & { type: string }>;
}

/** The fields of a contract table `which` picks (each walked by test/resources/field-table.test.ts), by the resources' names. */
function fieldsOf(specs: FieldSpecs, which: (spec: FieldSpecs[string]) => boolean): string[] {
  return fieldNames(specs)
    .filter((field) => which(specs[field]!))
    .map(propertyName);
}
const sent = (spec: FieldSpecs[string]) => spec.value !== undefined;

/** What users are promised, per resource: every input, the required ones, the ones whose change replaces. */
const PROMISED = {
  // The API's fields are the contract's tables; the rest are each resource's own.
  Product: {
    inputs: ["adoptId", "onDelete", "projectId", ...PRODUCT_FIELD_NAMES].sort(),
    required: ["projectId", ...PRODUCT_FIELD_NAMES.filter((field) => PRODUCT_FIELD_SPECS[field].create === "required")].sort(),
    replaces: ["projectId"],
    outputs: ["type"],
  },
  Site: {
    inputs: ["projectId", "restoreNameOnDelete", "siteId", ...fieldsOf(SITE_FIELD_SPECS, sent)].sort(),
    required: ["projectId", "siteId", ...fieldsOf(SITE_FIELD_SPECS, (spec) => sent(spec) && spec.create === "required")].sort(),
    replaces: ["projectId", "siteId"],
    // What only the service sets, and what each field a take-over changes was before it (`originalName`).
    outputs: [
      ...fieldsOf(SITE_FIELD_SPECS, (spec) => !sent(spec)),
      ...fieldsOf(SITE_FIELD_SPECS, (spec) => spec.change === "update").map((name) => `original${name[0]!.toUpperCase()}${name.slice(1)}`),
    ].sort(),
  },
  Task: {
    inputs: ["adoptId", "projectId", ...fieldsOf(TASK_FIELD_SPECS, sent)].sort(),
    required: ["projectId", ...fieldsOf(TASK_FIELD_SPECS, (spec) => sent(spec) && spec.create === "required")].sort(),
    // The API cannot update a task: every field a create takes replaces it.
    replaces: ["projectId", ...fieldsOf(TASK_FIELD_SPECS, sent)].sort(),
    outputs: fieldsOf(TASK_FIELD_SPECS, (spec) => !sent(spec)).sort(),
  },
};

describe("the plugin schema", { timeout: ENGINE_TIMEOUT_MS }, () => {
  let schema: Schema;

  beforeAll(async () => {
    const { bin } = await pulumiCli();
    const launcher = join(REPO, "node_modules", "pulumi-serviceapi", "plugin", "pulumi-resource-serviceapi");
    const text = execFileSync(join(bin, "pulumi"), ["package", "get-schema", launcher], {
      encoding: "utf8",
      env: { ...process.env, PATH: `${bin}:${join(REPO, "node_modules", ".bin")}:${process.env.PATH}`, PULUMI_SKIP_UPDATE_CHECK: "true" },
    });
    schema = JSON.parse(text) as Schema;
  }, 30 * 60_000);

  it("is the schema committed for review (schema.json), field for field", () => {
    // The CLI re-encodes what the plugin serves (its own key order, `<` as \u003c), so the two compare as values.
    expect(schema).toEqual(JSON.parse(readFileSync(join(REPO, "schema.json"), "utf8")));
  });

  it("lists the three resources and four functions under the serviceapi package", () => {
    expect(schema.name).toBe("serviceapi");
    expect(Object.keys(schema.resources).sort()).toEqual(["serviceapi:index:Product", "serviceapi:index:Site", "serviceapi:index:Task"]);
    expect(Object.keys(schema.functions).sort()).toEqual([
      "serviceapi:index:getProject",
      "serviceapi:index:getProjects",
      "serviceapi:index:getSite",
      "serviceapi:index:getSites",
    ]);
  });

  it.each(Object.entries(PROMISED))(
    "%s: inputs, required inputs, replacements and outputs as promised; docs/resources.md lists each",
    (type, promised) => {
      const resource = schema.resources[`serviceapi:index:${type}`]!;
      expect(Object.keys(resource.inputProperties).sort()).toEqual(promised.inputs);
      expect([...resource.requiredInputs].sort()).toEqual(promised.required);
      const replacing = Object.entries(resource.inputProperties)
        .filter(([, p]) => p.willReplaceOnChanges)
        .map(([name]) => name)
        .sort();
      expect(replacing).toEqual(promised.replaces);
      for (const name of promised.replaces)
        expect(resource.inputProperties[name]!.description).toMatch(new RegExp(`Changing it replaces the ${type}\\.$`));
      for (const name of promised.outputs) expect(resource.properties[name], `${type} output ${name}`).toBeDefined();
      const documented = documentedInputs(type);
      for (const name of promised.inputs) {
        expect(documented.has(name), `docs/resources.md lists ${type}.${name}`).toBe(true);
        expect(documented.get(name)!.startsWith("replace"), `docs say ${type}.${name} replaces`).toBe(
          (promised.replaces as readonly string[]).includes(name),
        );
      }
    },
  );

  it("descriptions state the API's limits and the refusals", () => {
    const product = schema.resources["serviceapi:index:Product"]!.inputProperties;
    expect(product.title!.description).toBe(
      "The title: 1 to 1024 characters. Invisible and direction-overriding characters (bidi overrides, " +
        "zero-width spaces) are refused.",
    );
    expect(product.description!.description).toBe(
      "Up to 10000 characters. Leaving it out (or null) means no description: removing it clears it.",
    );
    expect(product.slug!.description).toMatch(/^1 to 1024 characters\. /);
    expect(schema.resources["serviceapi:index:Site"]!.inputProperties.name!.description).toMatch(
      /^The site's name: 1 to 255 characters\. /,
    );
    expect(schema.resources["serviceapi:index:Task"]!.inputProperties.scheduledAt!.description).toBe(
      "The first run: an RFC 3339 date-time with an offset, e.g. 2026-12-01T09:00:00Z. A one-off time in the past is refused. Changing it replaces the Task.",
    );
  });

  it("functions: arguments and results as the data sources take and give them", () => {
    const fn = (name: string) => schema.functions[`serviceapi:index:${name}`]!;
    expect(Object.keys(fn("getProject").inputs.properties).sort()).toEqual(["id", "name", "workspaceId"]);
    expect(fn("getProject").inputs.required).toBeUndefined();
    expect(Object.keys(fn("getSite").inputs.properties).sort()).toEqual(["isDefault", "name", "projectId", "subdomain"]);
    expect(fn("getSite").inputs.required).toEqual(["projectId"]);
    expect(fn("getSite").inputs.properties.isDefault).toMatchObject({ type: "boolean" });
    expect(fn("getProjects").outputs.properties.projects).toEqual({
      type: "array",
      items: { $ref: "#/types/serviceapi:index:ProjectInfo" },
      description: expect.stringMatching(/^Every project the token can act on/),
    });
    expect(fn("getSites").outputs.required).toEqual(["projectId", "sites"]);
    // A project's name may be null (the API allows unnamed projects), so it is not required.
    expect(schema.types["serviceapi:index:ProjectInfo"]).toMatchObject({ type: "object", required: ["id", "workspaceId"] });
    // A site as the lookups give it: its id and every field of the contract's site table.
    expect(Object.keys(schema.types["serviceapi:index:SiteInfo"]!.properties).sort()).toEqual(
      ["id", ...fieldNames(SITE_FIELD_SPECS).map(propertyName)].sort(),
    );
  });

  it("settings: the token is secret; numeric settings state their default and range; config and provider agree", () => {
    expect(schema.config.variables.token).toMatchObject({ type: "string", secret: true });
    expect(schema.provider.inputProperties).toEqual(schema.config.variables);
    expect(Object.keys(schema.config.variables).sort()).toEqual([
      "adoptManaged",
      "baseUrl",
      "initialRetryDelayMs",
      "maxRateLimitRetries",
      "maxRetries",
      "maxRetryAfterMs",
      "maxRetryDelayMs",
      "minRateLimitDelayMs",
      "productRefresh",
      "publicBaseUrl",
      "rateLimitBudgetMs",
      "timeoutMs",
      "token",
    ]);
    expect(schema.config.variables.timeoutMs!.description).toBe(
      "Per-attempt timeout covering the whole response, in ms. Default 30000; 1 to 3600000.",
    );
    expect(schema.config.variables.minRateLimitDelayMs!.description).toMatch(/ Default 250; 10 to 60000\.$/);
    expect(schema.config.variables.baseUrl!.description).toMatch(/ Environment fallback: SERVICEAPI_BASE_URL\.$/);
  });
});
