/**
 * How a resource's inputs are read back from the values the engine hands over, what the state
 * keeps besides the record's fields, and the rules for turning a live record back into inputs at
 * refresh.
 */
import { z } from "zod";
import { parseWithIssues } from "../contract/issues";
import { UNKNOWN } from "./checks";
import { ProviderError } from "./errors";
import { jsonType, type ResourceFields } from "./field-table";
import type { Values } from "./lifecycle";

/**
 * The resource's logical name (the name in the program and the URN) as the dynamic face keeps it:
 * a hidden input the program's resource class adds (`program/resource-props.ts`) and a hidden
 * output the face adds, because a dynamic provider is told nothing else about the resource at read
 * and delete. The plugin has the URN on every request and stores no name; state it wrote before
 * may carry one, which is ignored. Messages name records by it and by id, never by a field value.
 */
export const NAME_KEY = "__logicalName";

/** The logical name kept in `values`, if any (state written before names were kept has none). */
export function nameIn(values: object | undefined): string | undefined {
  const name = (values as Record<string, unknown> | undefined)?.[NAME_KEY];
  return typeof name === "string" ? name : undefined;
}

/** `values` with the logical name kept beside them (the dynamic face's state). */
export function withName<T extends object>(values: T, name: string | undefined): T {
  return name === undefined ? values : { ...values, [NAME_KEY]: name };
}

/** `values` without the logical name: what a lifecycle sees of a state that carries one. */
export function withoutName(values: Values): Values {
  const { [NAME_KEY]: _name, ...rest } = values;
  return rest;
}

/** Inputs as stored: for every nullable field "absent" and "null" both mean "no value", kept as absent. */
export type Stored<T> = { [K in keyof T]: Exclude<T[K], null> };

/**
 * A resource's inputs read from the engine's values with a zod schema built from its field table,
 * in one place — `withDefaults`, as each request arrives, before any lifecycle code sees them (no
 * lifecycle casts the engine's values): the engine's own keys (`__provider`, the logical name) are dropped, and
 * `null` too, so a program that switches between `null` and leaving a field out shows no diff.
 *
 * The schema checks each field's type and presence, not its limits: limits are `check`'s (with
 * messages naming the field), and inputs the state holds — written by an older version, or taken
 * from the live record at refresh or import — must stay readable when a limit is added. A value not
 * known yet (preview) is Pulumi's sentinel string, which a boolean field accepts too.
 */
export interface InputCodec<I> {
  /** Inputs that passed `check`: every required field is present. */
  decode(values: Values): I;
  /** Inputs as a state may hold them (a refresh compares against these; an import may lack a field). */
  decodePartial(values: Values): Partial<I>;
  /** The known fields of `values`, `null` dropped, types unchecked: the inputs of a `check` that failed. */
  pick(values: Values): Values;
}

/** `I` is the stored-inputs type of the table's resource (`Stored<ProductInputs>`, …). */
export function inputCodec<I>(fields: ResourceFields<I>): InputCodec<I> {
  const keys = Object.keys(fields.inputs);
  const shape = Object.fromEntries(
    Object.entries(fields.inputs as Record<string, ResourceFields["inputs"][string]>).map(([name, field]) => {
      const type = jsonType(field.schema);
      // A value not known yet (preview) is Pulumi's sentinel string, whatever the field's type.
      const value =
        type === "boolean"
          ? z.union([z.boolean(), z.literal(UNKNOWN)])
          : type === "number" || type === "integer"
            ? z.union([z.number(), z.literal(UNKNOWN)])
            : z.string();
      return [name, field.required ? value : value.optional()];
    }),
  );
  const full = z.object(shape);
  const partial = full.partial();
  const pick = (values: Values): Values => {
    const out: Values = {};
    for (const key of keys) if (values[key] !== undefined && values[key] !== null) out[key] = values[key];
    return out;
  };
  const parse = (schema: z.ZodType, values: Values) => {
    const result = parseWithIssues(schema, pick(values));
    if (!result.success)
      throw new ProviderError(`${fields.resource}: its inputs are not of the types its field table gives (${result.message}).`);
    return result.data;
  };
  return {
    decode: (values) => parse(full, values) as I,
    decodePartial: (values) => parse(partial, values) as Partial<I>,
    pick,
  };
}

/**
 * The input names a program declared, kept in the outputs under a `__` key (the CLI hides those
 * from diffs) because `read` receives only outputs and must hand back inputs of the same shape.
 */
export const DECLARED = "__declared";

export function declaredKeys(inputs: object): string[] {
  return Object.keys(inputs)
    .filter((k) => !k.startsWith("__"))
    .sort();
}

/**
 * Inputs rebuilt from a refreshed record: every declared input takes its live value, and a
 * nullable field the program left out appears only when the live record has a value for it. The
 * engine stores these as the new inputs, so `preview --refresh --diff` names the drifted field.
 */
export function refreshedInputs(
  declared: readonly string[],
  live: Record<string, unknown>,
  optionalNullable: readonly string[],
): Record<string, unknown> {
  const inputs: Record<string, unknown> = {};
  for (const key of declared) inputs[key] = live[key] ?? null;
  for (const key of optionalNullable) {
    if (!declared.includes(key) && live[key] !== null && live[key] !== undefined) inputs[key] = live[key];
  }
  return inputs;
}
