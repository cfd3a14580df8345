/**
 * `Product`: the lifecycle (`lifecycle.ts`) and what the rest of the package uses of it — the field
 * table (the plugin's schema), the types (the program's `ProductArgs`), the checks a program can
 * run itself, and the PATCH rule (its tests).
 */
export { product } from "./lifecycle";
export { PRODUCT_FIELDS, productInputFailures, type ProductInputs, type ProductOutputs, type ProductOnDelete } from "./inputs-and-state";
export { buildProductPatch, driftedFields, productChanges, type FieldChange } from "./patch";
export { RESTORE_STATUS, TAKEN_OVER, CREATED_HERE } from "./inputs-and-state";
export { UNCONFIRMED } from "../unconfirmed";
export { PRODUCT_FIELD_NAMES } from "../../contract/schemas";
export { fateOf, giveBackPlan, raisesLiveness, takenOverIn, type Fate, type GiveBackPlan } from "./taken-over";
export type { TakenOver } from "./inputs-and-state";
