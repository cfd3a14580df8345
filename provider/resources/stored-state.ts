/**
 * What a resource keeps in the state besides the record's fields, and the rules for turning a live
 * record back into inputs at refresh.
 */

/**
 * The resource's logical name (the name in the program and the URN), carried as a hidden input and
 * output. Messages name records by it and by id, never by a field value.
 */
export const NAME_KEY = "__logicalName";
export type Named = { [NAME_KEY]?: string };

/** Just the logical name of `source`, to spread into outputs. */
export function named(source: Named): Named {
  return source[NAME_KEY] === undefined ? {} : { [NAME_KEY]: source[NAME_KEY] };
}

/** Inputs as stored: for every nullable field "absent" and "null" both mean "no value", kept as absent. */
export type Stored<T> = { [K in keyof T]: Exclude<T[K], null> };

/**
 * Inputs as the program declared them, minus the engine's own keys (`__provider`), with `null`
 * dropped, so a program that switches between the two forms shows no diff. The logical name is kept.
 */
export function cleanInputs<T extends object>(news: object, known: readonly (keyof T & string)[]): Stored<T> & Named {
  const source = news as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of known) {
    const value = source[key];
    if (value !== undefined && value !== null) out[key] = value;
  }
  if (typeof source[NAME_KEY] === "string") out[NAME_KEY] = source[NAME_KEY];
  return out as Stored<T> & Named;
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
