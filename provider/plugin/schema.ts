/**
 * The plugin's Pulumi package schema, generated from the same field tables (`resources/*`,
 * `settings.ts`) and zod schemas the checks use — never written by hand — so `pulumi package
 * get-schema`, preview's checks and docs/resources.md agree (`test/engine/plugin-schema.test.ts`).
 */
import { z } from "zod";
import { version } from "../../package.json";
import { jsonType, type InputField, type ResourceFields } from "../resources/field-table";
import { PRODUCT_FIELDS } from "../resources/product";
import { SITE_FIELDS } from "../resources/site";
import { TASK_FIELDS } from "../resources/task";
import { LOOKUPS, ProjectInfo, SiteInfo } from "../resources/lookups";
import { SETTINGS } from "../resources/settings";

export const PACKAGE = "serviceapi";
export const RESOURCES = { Product: PRODUCT_FIELDS, Site: SITE_FIELDS, Task: TASK_FIELDS } as const;

/** `serviceapi:index:Product` and friends. */
export function typeToken(name: string): string {
  return `${PACKAGE}:index:${name}`;
}

interface PropertySpec {
  type?: string;
  items?: PropertySpec;
  $ref?: string;
  description?: string;
  secret?: boolean;
  willReplaceOnChanges?: boolean;
}

function inputProperty(resource: string, field: InputField): PropertySpec {
  const shown = field.shownToPeople
    ? " Invisible and direction-overriding characters (bidi overrides, zero-width spaces) are refused."
    : "";
  return {
    type: jsonType(field.schema),
    description: `${field.description}${shown}${field.replaces ? ` Changing it replaces the ${resource}.` : ""}`,
    ...(field.replaces && { willReplaceOnChanges: true }),
  };
}

function resourceSpec(fields: ResourceFields<unknown>) {
  const inputs = Object.entries(fields.inputs as Record<string, InputField>);
  const inputProperties = Object.fromEntries(inputs.map(([name, field]) => [name, inputProperty(fields.resource, field)]));
  const outputProperties = Object.fromEntries(
    Object.entries(fields.outputs).map(([name, field]) => [name, { type: field.type, description: field.description }]),
  );
  const requiredInputs = inputs.filter(([, field]) => field.required).map(([name]) => name);
  return {
    description: fields.description,
    inputProperties,
    requiredInputs,
    properties: { ...inputProperties, ...outputProperties },
    required: requiredInputs,
  };
}

const configVariables = Object.fromEntries(
  Object.entries(SETTINGS).map(([key, setting]) => [
    key,
    {
      type: setting.type,
      description: setting.env ? `${setting.description} Environment fallback: ${setting.env}.` : setting.description,
      ...(setting.secret && { secret: true }),
    },
  ]),
);

/** Lookup results with a name of their own in the schema's `types`. */
const NAMED_TYPES = new Map<z.ZodType, string>([
  [ProjectInfo, "ProjectInfo"],
  [SiteInfo, "SiteInfo"],
]);

/** A function's argument or result field, from its zod schema: type, description, and whether it may be absent. */
function fieldSpec(schema: z.ZodType): { spec: PropertySpec; required: boolean } {
  const description = schema.description;
  let inner = schema;
  let required = true;
  for (;;) {
    if (inner instanceof z.ZodOptional || inner instanceof z.ZodNullable) {
      required = false;
      inner = inner.unwrap() as z.ZodType;
    } else break;
  }
  const named = NAMED_TYPES.get(inner);
  let spec: PropertySpec;
  if (named !== undefined) spec = { $ref: `#/types/${typeToken(named)}` };
  else if (inner instanceof z.ZodArray) {
    // `items` is a type in Pulumi's schema, which has no description: the CLI drops one, so none is served.
    const { description: _element, ...items } = fieldSpec(inner.element as z.ZodType).spec;
    spec = { type: "array", items };
  } else if (inner instanceof z.ZodLiteral) spec = { type: typeof inner.value === "boolean" ? "boolean" : "string" };
  else spec = { type: jsonType(inner) };
  return { spec: { ...spec, ...(description !== undefined && { description }) }, required };
}

/** An object's properties and required list, in the schema's form. */
function objectSpec(schema: z.ZodType): { properties: Record<string, PropertySpec>; required?: string[] } {
  if (!(schema instanceof z.ZodObject)) throw new Error("a function's arguments and results are objects");
  const fields = Object.entries(schema.shape as Record<string, z.ZodType>).map(([name, field]) => [name, fieldSpec(field)] as const);
  const required = fields.filter(([, f]) => f.required).map(([name]) => name);
  return { properties: Object.fromEntries(fields.map(([name, f]) => [name, f.spec])), ...(required.length > 0 && { required }) };
}

const functions = Object.fromEntries(
  Object.entries(LOOKUPS).map(([name, fn]) => [
    typeToken(name),
    {
      description: fn.description,
      inputs: objectSpec(fn.args),
      outputs: objectSpec(fn.result),
    },
  ]),
);

const types = Object.fromEntries(
  [...NAMED_TYPES].map(([schema, name]) => [
    typeToken(name),
    {
      type: "object",
      ...(schema.description !== undefined && { description: schema.description }),
      ...objectSpec(schema),
    },
  ]),
);

const REPOSITORY = "https://github.com/pulumi-serviceapi/pulumi-serviceapi";

/**
 * Names and paths of the SDKs generated from this schema (`npm run gen-sdk`, docs/sdks.md). Each
 * generator reads its own entry; `respectSchemaVersion` makes every SDK carry this package's
 * version, so an SDK asks the engine for exactly the plugin it was generated from.
 */
const language = {
  nodejs: {
    packageName: "@pulumi-serviceapi/serviceapi",
    packageDescription: "Typed Pulumi SDK for the serviceapi plugin: Product, Site, Task and the getProject(s)/getSite(s) functions.",
    // The user's @pulumi/pulumi, shared as every Pulumi provider SDK does (a caret range).
    dependencies: { "@pulumi/pulumi": "^3.248.0" },
    // The compiler this repository builds with (package.json), so the SDK builds with what is installed.
    typescriptVersion: "5.9.3",
    respectSchemaVersion: true,
  },
  go: {
    importBasePath: "github.com/pulumi-serviceapi/pulumi-serviceapi/sdk/go/serviceapi",
    generateResourceContainerTypes: true,
    respectSchemaVersion: true,
  },
  python: {
    packageName: "pulumi_serviceapi",
    requires: { pulumi: ">=3.248.0,<4.0.0" },
    pyproject: { enabled: true },
    respectSchemaVersion: true,
  },
};

/**
 * Where Pulumi downloads the plugin archive (`pulumi-resource-serviceapi-v<version>-<os>-<arch>.tar.gz`)
 * when a program needs the plugin and none is installed: the SDKs carry it (the Node.js SDK as
 * `pulumi.server` in its package.json and as the default `pluginDownloadURL` of its resources), so
 * a program gets the plugin without `pulumi plugin install`. The default is this repository's GitHub
 * release `v<version>`; a team that hosts the archives elsewhere gives its URL to `npm run release
 * -- --plugin-url`, which publishes an SDK carrying it (docs/release.md).
 */
export const PLUGIN_DOWNLOAD_URL = "github://api.github.com/pulumi-serviceapi/pulumi-serviceapi";

/** The package schema, as `pulumi package get-schema` prints it (with `pluginDownloadURL`, as an SDK generated for a release carries it). */
export function packageSchema(options: { pluginDownloadURL?: string } = {}): Record<string, unknown> {
  return {
    name: PACKAGE,
    displayName: "Project/Site/Task/Product Service",
    version,
    description: "Products, site names and scheduled tasks of the Project/Site/Task/Product Service, as Pulumi resources.",
    keywords: ["pulumi", "serviceapi", "category/utility", "kind/native"],
    license: "Apache-2.0",
    homepage: REPOSITORY,
    repository: REPOSITORY,
    publisher: "pulumi-serviceapi",
    pluginDownloadURL: options.pluginDownloadURL ?? PLUGIN_DOWNLOAD_URL,
    language,
    config: { variables: configVariables },
    provider: {
      description: "The serviceapi provider. Each explicit provider resource has its own token and base URL.",
      inputProperties: configVariables,
    },
    resources: Object.fromEntries(Object.entries(RESOURCES).map(([name, fields]) => [typeToken(name), resourceSpec(fields)])),
    functions,
    types,
  };
}
