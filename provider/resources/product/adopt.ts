/**
 * `adoptId`: taking over a product that exists instead of creating one, and the rule that a
 * product is managed by one resource of a stack.
 *
 * When: a new resource's adoption is read and previewed at `check`, so an id the token cannot see
 * fails the preview, not the deploy; the record read is kept in the ledger for the create of the
 * same command, so `up` reads it once. An existing resource whose adoptId names another product is
 * a replacement, previewed at `diff` (only `diff` knows the resource's own id). `create` then adopts:
 * the kept read (or one empty PATCH, the API's only read), one PATCH of what differs, no POST.
 *
 * Before any read, the product must not be one another stack of the state backend manages
 * (`managed-elsewhere.ts`). The preview also says what the stack manages from then on, that
 * `projectId` is taken on trust (the API cannot say which project a product is in), and what
 * `pulumi destroy` will do with it — give it back as found,
 * unless `onDelete` says otherwise (`taken-over.ts`): Pulumi calls no provider while it previews a
 * delete, so this is where the preview can say it.
 *
 * One product, one resource (the ledger's claims): `check` claims the product `adoptId` names,
 * `diff` the product the state names; whichever of two claimants is asked second refuses, and a
 * delete never archives a product another resource of the stack claimed.
 */
import { PermissionDeniedError, type Product } from "../../client";
import { PRODUCT_FIELD_NAMES, PRODUCT_FIELD_SPECS } from "../../contract/schemas";
import type { ProviderContext } from "../context";
import { PartialFailure, UserError, isNotFound, withAdvice } from "../errors";
import { label } from "../messages";
import { outputs, type StoredProductInputs } from "./inputs-and-state";
import { managedElsewhere } from "./managed-elsewhere";
import { recordAdoption } from "./write-file";
import { buildProductPatch, describeChanges, productChanges } from "./patch";
import { destroyOfAdopted, ownershipOfAdopted } from "./taken-over";

/** What `check` says of an `adoptId` another resource of this stack claimed first; `undefined` when none did. */
export function claimAdoption(ctx: ProviderContext, productId: string, name: string | undefined): string | undefined {
  const other = ctx.ledger.claim(productId, name);
  return other === undefined ? undefined : sameProduct(other);
}

/** `diff`'s claim of the product its state names: refused when another resource of this stack adopts it. */
export function claimManaged(ctx: ProviderContext, productId: string, name: string | undefined): void {
  const other = ctx.ledger.claim(productId, name);
  if (other !== undefined)
    throw new UserError(
      `${label("Product", productId, name)}: Product ${JSON.stringify(other)} of this stack sets adoptId to this same product: one product, one resource.`,
    );
}

/** Two resources of one stack cannot manage one product: they would undo each other, and removing one would archive it. */
function sameProduct(other: string): string {
  return (
    `names the product that Product ${JSON.stringify(other)} of this stack already manages or adopts: one product, one resource. ` +
    "Remove one of the two, or point adoptId at another product"
  );
}

/**
 * First asks whether another stack of the state backend manages the product `adoptId` names
 * (`managed-elsewhere.ts`: refused unless serviceapi:adoptManaged allows it), then reads it — with
 * an empty PATCH, the API's only read, as refresh does — and says which fields adoption will
 * change on it, with the live values it replaces and the values it sets, a value the program
 * marked secret (`secrets`; `undefined`: cannot tell) by name only. Returns the problem with
 * `adoptId` when another stack manages it or this token cannot see it. The read is kept for the
 * create that follows in the same command.
 */
export async function previewAdoption(
  ctx: ProviderContext,
  productId: string,
  desired: Partial<StoredProductInputs>,
  name: string | undefined,
  secrets: ReadonlySet<string> | undefined,
): Promise<string | undefined> {
  const elsewhere = await managedElsewhere(ctx, productId, "adoptId", name);
  if (elsewhere !== undefined) return elsewhere;
  let current: Product;
  try {
    current = ctx.ledger.adoptionReads.get(productId) ?? (await ctx.client().updateProduct(productId, {}));
  } catch (error) {
    // Refused, not missing: the token may not see the product's workspace — or may not update products, and so not read one.
    if (error instanceof PermissionDeniedError) {
      return (
        `could not be read with this token: reading it (an empty PATCH, the API's only read) was answered 403 (${error.serverMessage}). ` +
        "Previewing or making an adoption needs a token with access to the product's workspace that may update products; " +
        "a token that may only read cannot (docs/catalog-workflow.md#day-one-the-import-pull-request)"
      );
    }
    if (isNotFound(error)) {
      return (
        `names no product this token can see: reading it (an empty PATCH, the API's only read) was answered ${error.status}. ` +
        "Check the id, and that the token has access to the product's workspace"
      );
    }
    throw error;
  }
  ctx.ledger.adoptionReads.set(productId, current);
  const patch = buildProductPatch(current, desired);
  // For a tool's report (the catalog's): the same changes as data, since the engine's events cannot carry them.
  const unrecorded = recordAdoption(name ?? productId, productId, productChanges(current, desired), secrets);
  if (unrecorded !== undefined) ctx.once("warning", unrecorded);
  // The engine may ask twice (a replacement's diff): `once` says it once per command.
  const who = label("Product", productId, name);
  const after = `${archivedNote(current, desired)} ${ownedFromNowOn(desired)} ${destroyOfAdopted(desired, ctx.ledger.takenAgain.get(productId.toLowerCase()))}`;
  if (Object.keys(patch).length === 0) {
    ctx.once(
      "info",
      `${who}: adoptId takes over this existing product; it already matches the program, so \`pulumi up\` sends nothing to it.${after}`,
    );
    return undefined;
  }
  // Only a field the program leaves out is sent as null (a declared null is stored as absent).
  const clears = Object.values(patch).some((value) => value === null);
  ctx.once(
    "warning",
    `${who}: adoptId takes over this existing product, and \`pulumi up\` will change it in one PATCH: ${describeChanges(productChanges(current, desired), desired, secrets)}.` +
      `${clears ? " A field the program leaves out is cleared; declare it to keep its live value." : ""}${after}`,
  );
  return undefined;
}

/**
 * What the stack holds from the adoption on, and what it cannot check: the API has no way to say
 * which project a product is in. Another stack of the same state backend that manages it was
 * looked for already (`managed-elsewhere.ts`); a stack of another backend, or a program not yet
 * deployed, cannot be seen — hence "in one stack only".
 */
function ownedFromNowOn(desired: Partial<StoredProductInputs>): string {
  // A nullable field is managed declared or not (left out, it is cleared); any other only when declared.
  const fields = PRODUCT_FIELD_NAMES.filter((field) => PRODUCT_FIELD_SPECS[field].nullable || desired[field] !== undefined);
  return (
    `From then on this stack manages its ${fields.slice(0, -1).join(", ")} and ${fields.at(-1)!}: every \`pulumi up\` sets them as ` +
    "the program declares, undoing changes made elsewhere (adopt a product in one stack only). projectId is taken on trust: " +
    "the API cannot say which project a product is in."
  );
}

/** An adopted product that is archived stays archived unless the program declares a status: say so. */
function archivedNote(current: Product, desired: Partial<StoredProductInputs>): string {
  return current.status === "archived" && desired.status === undefined
    ? " It is archived, and stays so: the program declares no status."
    : "";
}

/**
 * The create of a resource that declares `adoptId`: the product read at check (kept for this
 * command) or read now with an empty PATCH; one more PATCH fixes what differs; no POST. The output
 * says which fields were sent.
 */
export async function adopt(ctx: ProviderContext, productId: string, desired: StoredProductInputs, name: string | undefined) {
  const client = ctx.client();
  let current: Product | undefined = ctx.ledger.adoptionReads.get(productId);
  ctx.ledger.adoptionReads.delete(productId);
  try {
    current ??= await client.updateProduct(productId, {});
  } catch (error) {
    if (isNotFound(error)) throw withAdvice(error, `adoptId ${productId}: no product with this id is visible to this token.`);
    throw error;
  }
  // A replacement that adopts the record it replaces (projectId changed, adoptId kept) must not archive it next.
  ctx.ledger.noteImported("Product", productId);
  // What `pulumi destroy` gives back: the product as found now, unless this command knew it from before.
  const again = ctx.ledger.takenAgain.get(productId.toLowerCase());
  const patch = buildProductPatch(current, desired);
  const who = `adopted ${label("Product", productId, name)}`;
  if (Object.keys(patch).length === 0) {
    ctx.info(`${who}: it already matched the program; nothing sent.`);
    return { id: productId, outs: { ...outputs(current, desired), ...ownershipOfAdopted(again, current, current) } };
  }
  try {
    const record = await client.updateProduct(productId, patch);
    ctx.info(`${who}: sent PATCH {${Object.keys(patch).join(", ")}}.`);
    return { id: productId, outs: { ...outputs(record, desired), ...ownershipOfAdopted(again, current, record) } };
  } catch (error) {
    throw new PartialFailure(
      productId,
      { ...outputs(current, desired), ...ownershipOfAdopted(again, current, current) },
      `${label("Product", productId, name)} was adopted, but updating ${Object.keys(patch).join(", ")} failed: ${(error as Error).message} ` +
        "It is recorded in the stack; the next `pulumi up` retries the PATCH.",
    );
  }
}
