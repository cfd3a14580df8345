/**
 * The live product → the stack: `read` (refresh) and `importRecord` (`pulumi import`). The API
 * has no GET for products; an empty PATCH returns the record and changes nothing. Both return the
 * live values under the input names too, so the engine shows which field drifted, and the code
 * `pulumi import` prints matches the record.
 */
import type { Product } from "../../client";
import type { ProviderContext } from "../context";
import { UserError, isNotFound, withAdvice } from "../errors";
import { projectAndRecordId } from "../import-id";
import type { ImportRequest, ReadRequest, ReadResult } from "../lifecycle";
import { label } from "../messages";
import { DECLARED, declaredKeys, refreshedInputs } from "../stored-state";
import { isUnconfirmed } from "../unconfirmed";
import { managedElsewhere } from "./managed-elsewhere";
import { NULLABLE, PRODUCT, RESTORE_STATUS, outputs, type StoredProductInputs, type ProductOutputs } from "./inputs-and-state";
import { ownershipAfter, tookOver } from "./taken-over";

export async function read(ctx: ProviderContext, { name, id, state }: ReadRequest<ProductOutputs>): Promise<ReadResult<ProductOutputs>> {
  // A placeholder has nothing to read: the stack keeps it, and the next preview says what to do.
  if (isUnconfirmed(state)) return { id, props: state };
  if (!ctx.settings().productRefresh) {
    ctx.once(
      "warning",
      "serviceapi:productRefresh is false: products keep their stored state at refresh, so drift in products cannot be seen.",
    );
    return { id, props: { ...state, ...ownershipAfter(state) } };
  }
  let record: Product;
  try {
    record = await ctx.client().updateProduct(id, {});
  } catch (error) {
    if (isNotFound(error)) return {}; // gone: the engine drops it from the stack
    throw error;
  }
  // What only the stack knows (the API record has no projectId, onDelete or adoptId) is kept.
  const stored: StoredProductInputs = {
    projectId: state.projectId,
    title: record.title,
    onDelete: state.onDelete,
    ...(state.adoptId !== undefined && { adoptId: state.adoptId }),
  };
  const declared = state[DECLARED];
  // How the product came into the stack is kept as it was: a refresh is nobody's write.
  const refreshed: ProductOutputs = { ...outputs(record, stored), ...ownershipAfter(state), [DECLARED]: declared };
  const inputs = refreshedInputs(declared, { ...record, ...stored }, NULLABLE);
  // Archived behind Pulumi's back while the program leaves status alone: shown as `status` drift.
  const lastSeen = state[RESTORE_STATUS] ?? state.status;
  if (!declared.includes("status") && record.status === "archived" && lastSeen !== undefined && lastSeen !== "archived") {
    refreshed[RESTORE_STATUS] = lastSeen;
    inputs.status = record.status;
    ctx.warn(
      `${label("Product", id, name)} was archived on the service, not by Pulumi. The program declares no status, so \`pulumi up\` ` +
        'sets back the status the stack last recorded; to keep it archived, declare `status: "archived"` (or remove the product from the program).',
    );
  }
  return { id, props: refreshed, inputs };
}

/**
 * Takes an existing product into the stack: its live fields become the inputs (each field the
 * table's rule takes: `PRODUCT.imported`), so the code `pulumi import` prints matches it — unless
 * another stack of the state backend manages it (refused, or a warning: `managed-elsewhere.ts`).
 */
export async function importRecord(ctx: ProviderContext, { name, id, hint }: ImportRequest): Promise<ReadResult<ProductOutputs>> {
  const { projectId, recordId } = projectAndRecordId("Product", id, hint);
  // Before any request: a product another stack of the state backend manages is not taken over (`managed-elsewhere.ts`).
  const elsewhere = await managedElsewhere(ctx, recordId, "import", name);
  if (elsewhere !== undefined) throw new UserError(`${label("Product", recordId, name)}: the import ${elsewhere}.`);
  let record: Product;
  try {
    record = await ctx.client().updateProduct(recordId, {});
  } catch (error) {
    if (isNotFound(error))
      throw withAdvice(error, `Product ${recordId}: no product with this id is visible to this token, so it cannot be imported.`);
    throw error;
  }
  ctx.ledger.noteImported("Product", recordId);
  const live = {
    ...(projectId !== undefined && { projectId }),
    ...PRODUCT.imported(record),
    ...(hint.onDelete === "retain" && { onDelete: "retain" as const }),
  } as StoredProductInputs;
  const declared = declaredKeys(live);
  return {
    id: recordId,
    // Not created by this stack: `pulumi destroy` gives back what the stack changes on it (`taken-over.ts`).
    props: { ...outputs(record, live), ...tookOver(record, record), [DECLARED]: declared },
    inputs: refreshedInputs(declared, { ...record, ...live }, NULLABLE),
  };
}
