/**
 * A record's fields as data, the same for every type: what one field is to the API (what a request
 * may send, what a create takes, what a change does, what a response carries), and the record,
 * create and update schemas derived from a table of them. The tables themselves — one per type,
 * `PRODUCT_FIELD_SPECS`, `SITE_FIELD_SPECS`, `TASK_FIELD_SPECS` — are in `schemas.ts`; what a
 * resource derives from one (inputs, state, checks, the PATCH, refresh, import, give-back) is
 * `resources/api-fields.ts`.
 */
import { z } from "zod";

/** One field of a record as the API has it. */
export interface FieldSpec {
  /**
   * A value a request may send, limits included (`null` aside: see `nullable`). Left out for a field
   * only the service sets (a site's `subdomain`, a task's `nextRunAt`): the resource shows it as an
   * output, never an input.
   */
  value?: z.ZodType;
  /**
   * `null` is a value: a request sends it to clear the field, and a response may carry it. This also
   * decides what a program that leaves the field out means: a nullable field is cleared (its value
   * is "none"), any other is left as it is on the service (not managed).
   */
  nullable?: boolean;
  /**
   * What creating the resource takes: `required`, `optional`, or not at all (`false`). A `Product`'s
   * create is a POST (a field it cannot take, declared, is set by one PATCH after); a `Task`'s is a
   * POST; a `Site`'s takes an existing site over (the API cannot create sites) and sets what differs
   * with one PATCH.
   */
  create: "required" | "optional" | false;
  /**
   * What a change of a field a request may send does: `update` — one PATCH of exactly the fields that
   * changed; `replace` — a new record, the API cannot change it. Left out with `value`.
   */
  change?: "update" | "replace";
  /**
   * How a response carries it (tolerant, as every record here: a value a newer server adds is kept;
   * `.optional()` where the spec lets a response omit it). Left out for a field only a request
   * carries (a task's `prompt`): the resource keeps what the program declared.
   */
  record?: z.ZodType;
  /** For people: what it is, its limits, what leaving it out does. The resource's schema and docs say this. */
  description: string;
  /**
   * A name people read on the service (a title, a slug, a site's name): invisible and
   * direction-overriding characters are refused too, before any request (`resources/checks.ts`).
   */
  shownToPeople?: true;
  /**
   * Two different valid values, for the tests that walk the tables (`test/resources/field-table.test.ts`
   * creates, changes, drifts, imports and gives back every field with them) and the records they build.
   */
  examples: readonly [unknown, unknown];
}

export type FieldSpecs = Readonly<Record<string, FieldSpec>>;

/** A field's name as a resource has it: the wire's name in camel case (`is_default` → `isDefault`). */
export type PropertyName<K extends string> = K extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<PropertyName<Tail>>}` : K;
export function propertyName<K extends string>(field: K): PropertyName<K> {
  return field.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()) as PropertyName<K>;
}

/** Every field of a table, in its order. */
export function fieldNames<S extends FieldSpecs>(specs: S): (keyof S & string)[] {
  return Object.keys(specs) as (keyof S & string)[];
}

/** The fields of a table a request may send (each an input of the resource). */
export type SentField<S> = { [K in keyof S]: S[K] extends { value: z.ZodType } ? K : never }[keyof S] & string;
/** The fields a response carries. */
export type RecordedField<S> = { [K in keyof S]: S[K] extends { record: z.ZodType } ? K : never }[keyof S] & string;
/** The fields a create takes as `when` says (`required`, `optional`, `false`). */
export type CreateField<S, When> = { [K in keyof S]: S[K] extends { create: When } ? K : never }[keyof S] & string;
/** The fields whose change does `how` (`update`, `replace`). */
export type ChangeField<S, How> = { [K in keyof S]: S[K] extends { change: How } ? K : never }[keyof S] & string;

/** What a request may send for a field: its value, or `null` where that clears it. */
export type RequestValue<S> =
  (S extends { value: infer V extends z.ZodType } ? z.infer<V> : never) | (S extends { nullable: true } ? null : never);

/** A field's schema in a request: its value, nullable where `null` clears it. */
export function requestValue(spec: FieldSpec): z.ZodType {
  if (spec.value === undefined) throw new Error(`${spec.description}: no request sends this field`);
  return spec.nullable ? spec.value.nullable() : spec.value;
}

/** The record's fields as a response carries them, in the table's order (a response object adds its own keys in front). */
export function recordShape<S extends FieldSpecs>(specs: S): { [K in RecordedField<S>]: Extract<S[K], { record: z.ZodType }>["record"] } {
  return Object.fromEntries(
    fieldNames(specs).flatMap((field) => (specs[field]!.record === undefined ? [] : [[field, specs[field]!.record]])),
  ) as never;
}

/** A create body: the fields a create requires, the project, then those it may take. */
export type CreateBodyOf<S> = { projectId: string } & { [K in CreateField<S, "required">]: RequestValue<S[K]> } & {
  [K in CreateField<S, "optional">]?: RequestValue<S[K]>;
};
export function createShape(specs: FieldSpecs, projectId: z.ZodType): z.ZodRawShape {
  const taken = (when: "required" | "optional") => fieldNames(specs).filter((field) => specs[field]!.create === when);
  return {
    ...Object.fromEntries(taken("required").map((field) => [field, requestValue(specs[field]!)])),
    projectId,
    ...Object.fromEntries(taken("optional").map((field) => [field, requestValue(specs[field]!).optional()])),
  };
}

/** An update body: every field a PATCH may set, each optional. */
export type UpdateBodyOf<S> = { [K in ChangeField<S, "update">]?: RequestValue<S[K]> };
export function updateShape(specs: FieldSpecs): z.ZodRawShape {
  return Object.fromEntries(
    fieldNames(specs)
      .filter((field) => specs[field]!.change === "update")
      .map((field) => [field, requestValue(specs[field]!).optional()]),
  );
}
