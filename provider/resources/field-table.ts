/**
 * A resource's fields as data: one table per resource drives its preview checks (`checks.ts`),
 * how its inputs are read back from the engine's values (`stored-state.ts`), the plugin's schema
 * (`plugin/schema.ts`) and the reference in docs/resources.md (kept in step by
 * `test/engine/plugin-schema.test.ts`), so none can say something different.
 */
import { z } from "zod";

export interface InputField {
  /** The value's schema: the client's own, limits included. Its JSON Schema gives the plugin schema's type. */
  schema: z.ZodType;
  /** Checked as one of these values, and the failure lists them. */
  oneOf?: readonly (string | boolean)[];
  required?: boolean;
  /** Changing it replaces the record (the plugin schema and the docs say so). */
  replaces?: boolean;
  /** For users: what it is, its limits, what leaving it out does. */
  description: string;
  /** Added to a failure's reason. */
  hint?: string;
  /**
   * A name people read on the service (a title, a slug, a site name): invisible and
   * direction-overriding characters are refused too (`checks.ts`).
   */
  shownToPeople?: boolean;
}

export interface OutputField {
  type: "string" | "boolean" | "integer" | "number";
  nullable?: boolean;
  description: string;
}

/** `Inputs` ties the table to the resource's input type: every input has exactly one entry. */
export interface ResourceFields<Inputs = Record<string, unknown>> {
  /** `Product`, `Site`, `Task`: the type name in messages and tokens. */
  resource: string;
  description: string;
  inputs: { [K in keyof Inputs]-?: InputField };
  /** Outputs that are not inputs: set by the service or by the provider. */
  outputs: Record<string, OutputField>;
}

/** The inputs whose change replaces the record (the table's `replaces`) that differ between two sets of inputs, in the table's order. */
export function replacedInputs<I>(fields: ResourceFields<I>, olds: object, news: object): string[] {
  const value = (values: object, key: string) => (values as Record<string, unknown>)[key];
  return Object.entries(fields.inputs as Record<string, InputField>)
    .filter(([key, field]) => field.replaces && value(news, key) !== value(olds, key))
    .map(([key]) => key);
}

/** Every property of the resource (inputs first), for the resource class. */
export function propertyNames<I>(fields: ResourceFields<I>): string[] {
  return [...Object.keys(fields.inputs), ...Object.keys(fields.outputs)];
}

/**
 * A field's type as the wire carries it (`string`, `integer`, `boolean`, …), read from the JSON Schema
 * zod gives for its schema; `null` is left out, as a nullable field is given as `anyOf: [<type>, null]`.
 */
export function jsonType(schema: z.ZodType): string {
  type Json = { type?: string | string[]; anyOf?: Json[] };
  const types = (json: Json): string[] => [
    ...(json.type === undefined ? [] : Array.isArray(json.type) ? json.type : [json.type]),
    ...(json.anyOf ?? []).flatMap(types),
  ];
  return types(z.toJSONSchema(schema, { unrepresentable: "any" }) as Json).find((t) => t !== "null") ?? "string";
}
