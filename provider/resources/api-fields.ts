/**
 * A resource's fields that are the API's, derived from the contract's table (`contract/fields.ts`:
 * `PRODUCT_FIELD_SPECS`, `SITE_FIELD_SPECS`, `TASK_FIELD_SPECS`) by one path, the same for every
 * type: which are inputs (and their checks, descriptions, required and replacing ones), which are
 * outputs only the service sets, what the state keeps of a record, the smallest PATCH, the fields
 * whose change replaces the record, what an import takes as inputs, and what a give-back sets back.
 * What differs between the types — a product's POST and archive, a site's take-over and listing, a
 * task that can only be created — stays in each resource's own files, which call these.
 */
import { z } from "zod";
import {
  fieldNames,
  propertyName,
  requestValue,
  type ChangeField,
  type CreateField,
  type FieldSpec,
  type FieldSpecs,
  type PropertyName,
  type RecordedField,
  type RequestValue,
  type SentField,
} from "../contract/fields";
import { jsonType, type InputField, type OutputField } from "./field-table";

// ---- Types: the resource's own, from the table's ----

/** What a program declares for the table's fields: a field a create requires is required; any other may be left out, or `null` where null is a value. */
export type DeclaredFields<S> = { [K in CreateField<S, "required"> & SentField<S> as PropertyName<K>]: RequestValue<S[K]> } & {
  [K in Exclude<SentField<S>, CreateField<S, "required">> as PropertyName<K>]?: RequestValue<S[K]>;
};

type RecordValue<S> = S extends { record: infer R extends z.ZodType } ? z.infer<R> : never;
/**
 * A field as the state keeps it from a record: the record's value, `null` where a response may omit
 * it — but a field the program must declare, which then keeps the declared value.
 */
export type KeptValue<S> =
  Exclude<RecordValue<S>, undefined> | (undefined extends RecordValue<S> ? (S extends { create: "required" } ? never : null) : never);

/**
 * The fields the state takes from a record: what a response carries, but for a field whose change
 * replaces the record, which is kept as declared (a server that normalizes a value must not make a
 * replacement).
 */
export type ReadBackField<S> = Exclude<RecordedField<S>, ChangeField<S, "replace">>;
/** The fields the state keeps from a record, by the resource's names. */
export type KeptFields<S> = { [K in ReadBackField<S> as PropertyName<K>]: KeptValue<S[K]> };

// ---- The table as a resource reads it ----

/** One table's fields as a resource reads them; every list in the table's order. */
export interface ApiFields {
  readonly specs: FieldSpecs;
  /** The resource's name of each field (`is_default` → `isDefault`). */
  property(field: string): string;
  /** Every field the program may declare (a request may send it): the resource's inputs. */
  readonly inputs: readonly string[];
  /** Every field only the service sets: outputs of the resource, never inputs. */
  readonly outputs: readonly string[];
  /** What the state takes from a record ({@link ReadBackField}). */
  readonly readBack: readonly string[];
  /** Left out of the program, cleared with `null` (the table's `nullable`). */
  readonly nullable: readonly string[];
  /** What creating the resource takes (`create` other than `false`). */
  readonly created: readonly string[];
  /** What a create cannot take, though a request may send it: one PATCH after the create sets it. */
  readonly updateOnly: readonly string[];
  /** What changes in place, with a PATCH (`change: "update"`). */
  readonly updatable: readonly string[];
  /** What replaces the record when it changes (`change: "replace"`). */
  readonly replacing: readonly string[];
  /** The inputs' entries of the resource's field table: schema and limits, required, replacing, description. */
  inputFields(): Record<string, InputField>;
  /** The outputs' entries of the resource's field table. */
  outputFields(): Record<string, OutputField>;
  /**
   * A record's read-back fields (by the wire's names) by the resource's names, `null` for one it
   * lacks; with `declared`, a field the program must declare that the record lacks keeps the
   * declared value ({@link KeptValue}).
   */
  kept(record: object, declared?: object): Record<string, unknown>;
  /** The declared values of `fields`, by the resource's names, left out where not declared. */
  declared(desired: object, fields: readonly string[]): Record<string, unknown>;
  /**
   * The smallest PATCH that makes `current` (a record's read-back fields or a state, by the resource's
   * names) match the program: only fields that change in place and differ; a nullable field the
   * program leaves out becomes `null`; any other left out is not managed.
   */
  patch(current: object, desired: object): Record<string, unknown>;
  /** The fields whose change replaces the record and that differ between two sets of inputs. */
  replaced(olds: object, news: object): string[];
  /**
   * An existing record's fields as inputs, for an import: a field a create requires, always (when
   * the record has it); a nullable field, when it has a value (left out, the next `up` would clear
   * it); any other, when this package can send its value (a status newer than it is left out: not managed).
   */
  imported(record: object): Record<string, unknown>;
  /** Whether a request may send `value` for `field`. */
  sendable(field: string, value: unknown): boolean;
}

export function apiFields(specs: FieldSpecs): ApiFields {
  const names = fieldNames(specs);
  const spec = (field: string): FieldSpec => specs[field]!;
  const where = (test: (s: FieldSpec) => boolean) => names.filter((field) => test(spec(field)));
  const property = (field: string) => propertyName(field);
  const read = (values: object, field: string) => (values as Record<string, unknown>)[property(field)];
  const readBack = where((s) => s.record !== undefined && s.change !== "replace");
  const sendable = (field: string, value: unknown) => spec(field).value !== undefined && requestValue(spec(field)).safeParse(value).success;
  return {
    specs,
    property,
    inputs: where((s) => s.value !== undefined),
    outputs: where((s) => s.value === undefined),
    readBack,
    nullable: where((s) => s.nullable === true),
    created: where((s) => s.create !== false),
    updateOnly: where((s) => s.create === false && s.value !== undefined),
    updatable: where((s) => s.change === "update"),
    replacing: where((s) => s.change === "replace"),
    sendable,

    inputFields() {
      return Object.fromEntries(
        where((s) => s.value !== undefined).map((field) => {
          const s = spec(field);
          const input: InputField = {
            schema: requestValue(s).optional(),
            ...(s.create === "required" && { required: true }),
            ...(s.change === "replace" && { replaces: true }),
            ...(s.shownToPeople && { shownToPeople: true }),
            ...(s.value instanceof z.ZodEnum && { oneOf: s.value.options as readonly string[] }),
            description: s.description,
          };
          return [property(field), input];
        }),
      );
    },

    outputFields() {
      return Object.fromEntries(
        where((s) => s.value === undefined).map((field) => {
          const record = spec(field).record ?? z.unknown();
          const output: OutputField = {
            type: jsonType(record) as OutputField["type"],
            ...((record.safeParse(undefined).success || record.safeParse(null).success) && { nullable: true }),
            description: spec(field).description,
          };
          return [property(field), output];
        }),
      );
    },

    kept(record, declared) {
      return Object.fromEntries(
        readBack.map((field) => {
          const live = (record as Record<string, unknown>)[field];
          const fallback = declared !== undefined && spec(field).create === "required" ? read(declared, field) : undefined;
          return [property(field), live ?? fallback ?? null];
        }),
      );
    },

    declared(desired, fields) {
      return Object.fromEntries(
        fields.flatMap((field) => (read(desired, field) === undefined ? [] : [[property(field), read(desired, field)]])),
      );
    },

    patch(current, desired) {
      const patch: Record<string, unknown> = {};
      for (const field of where((s) => s.change === "update")) {
        const want = spec(field).nullable ? (read(desired, field) ?? null) : read(desired, field);
        if (want !== undefined && want !== (read(current, field) ?? null)) patch[field] = want;
      }
      return patch;
    },

    replaced(olds, news) {
      return where((s) => s.change === "replace")
        .filter((field) => read(olds, field) !== read(news, field))
        .map(property);
    },

    imported(record) {
      return Object.fromEntries(
        where((s) => s.value !== undefined).flatMap((field) => {
          const value = (record as Record<string, unknown>)[field];
          if (value === null || value === undefined) return [];
          const taken = spec(field).create === "required" || spec(field).nullable === true || sendable(field, value);
          return taken ? [[property(field), value]] : [];
        }),
      );
    },
  };
}

// ---- Give-back: what a resource taken over sets back when it is deleted ----

/** Of the fields a give-back considers, what becomes of each, judged by the live record. */
export interface GivingBack {
  /** Already as found: nothing to send. */
  already: string[];
  /** Changed since this stack last set them (by a person, by another stack), or a found value this package cannot send: left as they are. */
  since: string[];
  /** To set back to their value when taken over. */
  back: string[];
}

/**
 * The one rule of a give-back (a product taken over, a site): each field of `fields` is set back to
 * its value when taken over (`found`) — unless it is already so, or its live value (`now`) is no
 * longer the one this stack last set (`set`): someone changed it since, and giving back what this
 * stack found would undo that. Values by the resource's names.
 */
export function givingBack(api: ApiFields, fields: readonly string[], found: object, set: object, now: object): GivingBack {
  const value = (values: object, field: string) => (values as Record<string, unknown>)[api.property(field)] ?? null;
  const plan: GivingBack = { already: [], since: [], back: [] };
  for (const field of fields) {
    if (value(now, field) === value(found, field)) plan.already.push(field);
    else if (value(now, field) !== value(set, field) || !api.sendable(field, value(found, field))) plan.since.push(field);
    else plan.back.push(field);
  }
  return plan;
}
