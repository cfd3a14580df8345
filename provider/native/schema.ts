/**
 * The plugin's Pulumi package schema, generated from the same field tables (`lifecycle/*`,
 * `settings.ts`) and zod schemas the checks use — never written by hand — so `pulumi package
 * get-schema`, preview's checks and docs/resources.md agree (test/schema.test.ts).
 */
import { z } from "zod";
import { version } from "../../package.json";
import type { InputField, ResourceFields } from "../lifecycle/fields";
import { PRODUCT_FIELDS } from "../lifecycle/product";
import { SITE_FIELDS } from "../lifecycle/site";
import { TASK_FIELDS } from "../lifecycle/task";
import { SETTINGS } from "../settings";

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

/** The schema's type for a field, read from the JSON Schema zod gives for its schema. */
function jsonType(schema: z.ZodType): string {
  const json = z.toJSONSchema(schema, { unrepresentable: "any" }) as { type?: string | string[] };
  const types = (Array.isArray(json.type) ? json.type : [json.type]).filter((t) => t !== undefined && t !== "null");
  return types[0] ?? "string";
}

function inputProperty(resource: string, field: InputField): PropertySpec {
  return {
    type: jsonType(field.schema),
    description: field.replaces ? `${field.description} Changing it replaces the ${resource}.` : field.description,
    ...(field.replaces && { willReplaceOnChanges: true }),
  };
}

function resourceSpec(fields: ResourceFields<unknown>) {
  const inputs = Object.entries(fields.inputs as Record<string, InputField>);
  const inputProperties = Object.fromEntries(inputs.map(([name, field]) => [name, inputProperty(fields.resource, field)]));
  const outputProperties = Object.fromEntries(Object.entries(fields.outputs).map(([name, field]) => [name, { type: field.type, description: field.description }]));
  const requiredInputs = inputs.filter(([, field]) => field.required).map(([name]) => name);
  return {
    description: fields.description,
    inputProperties,
    requiredInputs,
    properties: { ...inputProperties, ...outputProperties },
    required: requiredInputs,
  };
}

const configVariables = Object.fromEntries(Object.entries(SETTINGS).map(([key, setting]) => [key, {
  type: setting.type,
  description: setting.env ? `${setting.description} Environment fallback: ${setting.env}.` : setting.description,
  ...(setting.secret && { secret: true }),
}]));

const projectInfo = {
  type: "object",
  properties: {
    id: { type: "string", description: "The project's id." },
    name: { type: "string", description: "The project's name; may be null (the API allows unnamed projects)." },
    workspaceId: { type: "string", description: "The workspace the project is in." },
  },
  required: ["id", "workspaceId"],
};

const siteInfo = {
  type: "object",
  properties: {
    id: { type: "string", description: "The site's id: the siteId of a Site." },
    name: { type: "string", description: "The site's current name; may be null." },
    subdomain: { type: "string", description: "The site's subdomain; may be null. Look a site up by it when a Site renames the site." },
    isDefault: { type: "boolean", description: "Whether it is the project's default site; may be null." },
  },
  required: ["id"],
};

const functions = {
  [typeToken("getProjects")]: {
    description: "The projects the token can act on (projects.list, every page).",
    inputs: { properties: { workspaceId: { type: "string", description: "Only projects of this workspace." } } },
    outputs: {
      properties: { workspaceId: { type: "string" }, projects: { type: "array", items: { $ref: `#/types/${typeToken("ProjectInfo")}` } } },
      required: ["projects"],
    },
  },
  [typeToken("getProject")]: {
    description: "Exactly one project, by name or id; zero or several matches fail, listing up to five candidates.",
    inputs: {
      properties: {
        name: { type: "string", description: "The project's name (exactly one of name and id)." },
        id: { type: "string", description: "The project's id (exactly one of name and id)." },
        workspaceId: { type: "string", description: "Narrows a name lookup to one workspace." },
      },
    },
    outputs: projectInfo,
  },
  [typeToken("getSites")]: {
    description: "The sites of one project (sites.list, every page).",
    inputs: { properties: { projectId: { type: "string", description: "The project." } }, required: ["projectId"] },
    outputs: {
      properties: { projectId: { type: "string" }, sites: { type: "array", items: { $ref: `#/types/${typeToken("SiteInfo")}` } } },
      required: ["projectId", "sites"],
    },
  },
  [typeToken("getSite")]: {
    description: "Exactly one site of a project, by name, subdomain or isDefault: true; zero or several matches fail, listing up to five candidates.",
    inputs: {
      properties: {
        projectId: { type: "string", description: "The project." },
        name: { type: "string", description: "The site's current name." },
        subdomain: { type: "string", description: "The site's subdomain (it survives a rename)." },
        isDefault: { type: "boolean", description: "true: the project's default site." },
      },
      required: ["projectId"],
    },
    outputs: siteInfo,
  },
};

/** The package schema, as `pulumi package get-schema` prints it. */
export function packageSchema(): Record<string, unknown> {
  return {
    name: PACKAGE,
    displayName: "Project/Site/Task/Product Service",
    version,
    description: "Products, site names and scheduled tasks of the Project/Site/Task/Product Service, as Pulumi resources.",
    keywords: ["pulumi", "serviceapi", "category/utility", "kind/native"],
    license: "Apache-2.0",
    config: { variables: configVariables },
    provider: {
      description: "The serviceapi provider. Each explicit provider resource has its own token and base URL.",
      inputProperties: configVariables,
    },
    resources: Object.fromEntries(Object.entries(RESOURCES).map(([name, fields]) => [typeToken(name), resourceSpec(fields)])),
    functions,
    types: { [typeToken("ProjectInfo")]: projectInfo, [typeToken("SiteInfo")]: siteInfo },
  };
}
