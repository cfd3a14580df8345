/**
 * Diff → PATCH body: the one function that turns the program's inputs and a product's current
 * fields into the request `up` sends. `diff` (what preview promises), adoption and `update` (what
 * `up` sends) all call it, so the two cannot disagree; the client (`client/client.ts`) then
 * validates the body against the contract and sends it.
 */
import type { KnownProductStatus, ProductStatus, UpdateProductBody } from "../../client";
import { PRODUCT_STATUSES } from "../../contract/schemas";
import { isUnknown } from "../checks";
import { NULLABLE, RESTORE_STATUS, type Desired, type LiveFields } from "./fields";

/**
 * The smallest PATCH that makes `current` match the program: only fields that differ; a nullable
 * field the program leaves out becomes `null`; `title`/`status` left out are not managed — except
 * that a status archived behind Pulumi's back is set back (`RESTORE_STATUS`).
 */
export function buildProductPatch(current: LiveFields, desired: Partial<Desired>): UpdateProductBody {
  const patch: UpdateProductBody = {};
  if (desired.title !== undefined && desired.title !== current.title) patch.title = desired.title;
  for (const key of NULLABLE) {
    const want = desired[key] ?? null;
    if (want !== (current[key] ?? null)) patch[key] = want;
  }
  if (desired.status !== undefined && desired.status !== current.status) patch.status = desired.status;
  const restore = current[RESTORE_STATUS];
  if (desired.status === undefined && current.status === "archived" && isKnownStatus(restore) && restore !== "archived")
    patch.status = restore;
  return patch;
}

/** A status this package can send (the service may report newer ones, kept as they are). */
export function isKnownStatus(status: ProductStatus | undefined): status is KnownProductStatus {
  return (PRODUCT_STATUSES as readonly string[]).includes(status as string);
}

/** `sets title, status; clears description, slug` — field names only, never values (any may be a secret). */
export function describePatch(patch: UpdateProductBody, desired: Partial<Desired>): string {
  const keys = Object.keys(patch) as (keyof UpdateProductBody)[];
  const later = keys.filter((k) => isUnknown(desired[k]));
  const cleared = keys.filter((k) => patch[k] === null);
  const set = keys.filter((k) => !cleared.includes(k) && !later.includes(k));
  return [
    set.length > 0 && `sets ${set.join(", ")}`,
    cleared.length > 0 && `clears ${cleared.join(", ")}`,
    later.length > 0 && `may change ${later.join(", ")} (not known until up)`,
  ]
    .filter(Boolean)
    .join("; ");
}
