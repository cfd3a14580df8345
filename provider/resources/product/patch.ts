/**
 * Diff → PATCH body: the one function that turns the program's inputs and a product's current
 * fields into the request `up` sends. `diff` (what preview promises), adoption and `update` (what
 * `up` sends) all call it, so the two cannot disagree; the client (`client/client.ts`) then
 * validates the body against the contract and sends it.
 */
import type { KnownProductStatus, ProductStatus, UpdateProductBody } from "../../client";
import { PRODUCT_STATUSES } from "../../contract/schemas";
import { isUnknown } from "../checks";
import { shown } from "../messages";
import { PRODUCT, RESTORE_STATUS, type StoredProductInputs, type LiveFields } from "./inputs-and-state";

/**
 * The smallest PATCH that makes `current` match the program, walking the contract's field table
 * (`api-fields.ts`, as for every type): only fields that differ; a nullable field the program leaves
 * out becomes `null`; any other field left out (`status`) is not managed — except that a status
 * archived behind Pulumi's back is set back (`RESTORE_STATUS`), the product's own rule.
 */
export function buildProductPatch(current: LiveFields, desired: Partial<StoredProductInputs>): UpdateProductBody {
  const patch = PRODUCT.patch(current, desired);
  const restore = current[RESTORE_STATUS];
  if (desired.status === undefined && current.status === "archived" && isKnownStatus(restore) && restore !== "archived")
    patch.status = restore;
  return patch as UpdateProductBody;
}

/** One field a step changes: its value before and after (as the stack holds it, and as the program declares it). */
export interface FieldChange {
  field: keyof UpdateProductBody;
  from: unknown;
  to: unknown;
}

/**
 * What an update changes, field by field: the PATCH body `up` sends ({@link buildProductPatch}), each
 * field with the value the stack holds now. The one rule for "which fields change" — the lifecycle's
 * diff and update, the catalog's reports and the demo all read it from here.
 */
export function productChanges(current: LiveFields, desired: Partial<StoredProductInputs>): FieldChange[] {
  const patch = buildProductPatch(current, desired);
  return (Object.keys(patch) as (keyof UpdateProductBody)[]).map((field) => ({ field, from: current[field] ?? null, to: patch[field] }));
}

/**
 * What a refresh found changed on the service, among the fields the stack manages: a field counts
 * when its live value differs from the one recorded and `up` would set it back (it is in the PATCH
 * against the live record). A field the program leaves alone (a status it does not declare, unless
 * archived behind Pulumi's back) is not drift. `to` is the live value.
 */
export function driftedFields(recorded: LiveFields, live: LiveFields, declared: Partial<StoredProductInputs>): FieldChange[] {
  const managed = new Set(Object.keys(buildProductPatch(live, declared)));
  return (Object.keys(buildProductPatch(recorded, live as Partial<StoredProductInputs>)) as (keyof UpdateProductBody)[])
    .filter((field) => managed.has(field))
    .map((field) => ({ field, from: recorded[field] ?? null, to: live[field] ?? null }));
}

/** A status this package can send (the service may report newer ones, kept as they are). */
export function isKnownStatus(status: ProductStatus | undefined): status is KnownProductStatus {
  return (PRODUCT_STATUSES as readonly string[]).includes(status as string);
}

/**
 * `sets title ("Legacy" → "Legacy plan"); clears description (now "Live copy"), slug (now "legacy")`:
 * each field an update changes ({@link productChanges}), with the live value and the one it sets,
 * each shortened as a report shows it (`shown`). A value the program marked secret is never shown,
 * only its field named: `secrets` holds the fields the face saw marked secret, `undefined` when it
 * cannot tell (then no declared value is shown). A cleared field is one the program leaves out: its
 * live value is the service's, not a secret of the program — shown unless the program marked that field secret.
 */
export function describeChanges(
  changes: readonly FieldChange[],
  desired: Partial<StoredProductInputs>,
  secrets: ReadonlySet<string> | undefined,
): string {
  const hidden = (field: string) => secrets === undefined || secrets.has(field);
  const live = (value: unknown) => (value === null || value === undefined ? "none" : shown(value));
  const later = changes.filter((c) => isUnknown(desired[c.field]));
  const cleared = changes.filter((c) => c.to === null);
  const set = changes.filter((c) => !cleared.includes(c) && !later.includes(c));
  return [
    set.length > 0 &&
      `sets ${set.map((c) => `${c.field} (${hidden(c.field) ? "marked secret: not shown" : `${live(c.from)} → ${shown(c.to)}`})`).join(", ")}`,
    cleared.length > 0 &&
      `clears ${cleared.map((c) => `${c.field} (${secrets?.has(c.field) === true ? "marked secret: not shown" : `now ${live(c.from)}`})`).join(", ")}`,
    later.length > 0 && `may change ${later.map((c) => c.field).join(", ")} (not known until up)`,
  ]
    .filter(Boolean)
    .join("; ");
}
