/**
 * `Product`: a product record, created with POST and kept in line with one PATCH of exactly the
 * fields that changed. This file is the lifecycle — check, diff, create, update, delete — over the
 * pieces beside it: the field table and state (`inputs-and-state.ts`), the PATCH body (`patch.ts`), adoption
 * and the one-product-one-resource claims (`adopt.ts`), refresh and import (`refresh.ts`), and what
 * a product taken over gets back at delete (`taken-over.ts`).
 */
import type { CreateProductBody, Product, UpdateProductBody } from "../../client";
import { isUnknown } from "../checks";
import type { ProviderContext } from "../context";
import { PartialFailure, UserError, isNotFound } from "../errors";
import type { CheckFailure, CheckRequest, CreateRequest, DeleteRequest, DiffRequest, Lifecycle, UpdateRequest } from "../lifecycle";
import { journalCreating, journalNotCreated, takenIn } from "../journal";
import { announceDiff, label, logCreated } from "../messages";
import { DECLARED, declaredKeys } from "../stored-state";
import { isUnconfirmed, mayHaveSucceeded, placeholderId, recordedAsUnconfirmed, refusal, unconfirmed } from "../unconfirmed";
import { adopt, claimAdoption, claimManaged, previewAdoption } from "./adopt";
import {
  ADOPTED_WITHOUT_RECORD,
  PRODUCT,
  PRODUCT_FIELDS,
  UPDATE_ONLY,
  outputs,
  unconfirmedOutputs,
  type StoredProductInputs,
  type ProductOutputs,
} from "./inputs-and-state";
import { buildProductPatch } from "./patch";
import { importRecord, read } from "./refresh";
import { fateOf, giveBack, ownershipAfter, takenOverIn } from "./taken-over";

/**
 * What only a read shows: the product `adoptId` names (claimed for this resource; for a new
 * resource, read to preview the adoption). An existing resource whose adoptId changes is a
 * replacement, which `diff` previews, knowing the resource's id.
 */
async function check(ctx: ProviderContext, { name, olds, news, secrets }: CheckRequest<StoredProductInputs>): Promise<CheckFailure[]> {
  if (news.adoptId === undefined || isUnknown(news.adoptId)) return [];
  const taken = claimAdoption(ctx, news.adoptId, name);
  if (taken !== undefined) return [{ property: "", reason: `adoptId ${taken}` }];
  const isNew = olds.projectId === undefined;
  const problem = isNew ? await previewAdoption(ctx, news.adoptId, news, name, secrets) : undefined;
  return problem === undefined ? [] : [{ property: "", reason: `adoptId ${problem}` }];
}

async function diff(ctx: ProviderContext, { name, id, olds, news, planning, secrets }: DiffRequest<StoredProductInputs, ProductOutputs>) {
  if (isUnconfirmed(olds)) {
    // An earlier create's outcome is unknown: only adopting (a replacement) or `--replace` goes on.
    // Refreshing it (diff against the last inputs, before any check) has nothing to compare.
    if (!planning) return { changes: false, replaces: [], changed: [] };
    if (news.adoptId === undefined) throw refusal(ctx, "Product", name ?? id, olds);
    // This stack sent the create whose answer was lost: the product adoptId names is the one it made.
    if (!isUnknown(news.adoptId)) ctx.ledger.takenAgain.set(news.adoptId.toLowerCase(), "created");
    await previewReplacement(ctx, news.adoptId, news, name, secrets);
    return { changes: true, replaces: ["adoptId"], changed: ["adoptId"] };
  }
  claimManaged(ctx, id, name);
  const replaces: string[] = [];
  // A product imported by its bare id has no projectId yet (the API record has none): the program's is recorded.
  const projectUnknown = olds.projectId === undefined;
  if (!projectUnknown && news.projectId !== olds.projectId) replaces.push("projectId");
  if (news.adoptId !== undefined && news.adoptId !== id) {
    replaces.push("adoptId");
    await previewReplacement(ctx, news.adoptId, news, name, secrets);
  }
  if (planning && replaces.length > 0 && news.adoptId === id) keepOwnership(ctx, id, olds);
  const patch = buildProductPatch(olds, news);
  // Names the fields, so a change to a secret field (which the CLI shows as `[secret]`, unchanged) is seen.
  if (replaces.length === 0) announceDiff(ctx, label("Product", id, name), Object.keys(patch), planning);
  const changed = [
    ...replaces,
    ...(projectUnknown ? ["projectId"] : []),
    ...Object.keys(patch),
    ...((news.onDelete ?? "archive") !== olds.onDelete ? ["onDelete"] : []),
    ...(!replaces.includes("adoptId") && (news.adoptId ?? null) !== (olds.adoptId ?? null) ? ["adoptId"] : []),
  ];
  // A nullable input switching between absent and null changes no field, but is recorded.
  const changes = changed.length > 0 || declaredKeys(news).join() !== olds[DECLARED].join();
  return { changes, replaces, changed };
}

/**
 * A replacement that adopts the resource's own product (projectId changed, adoptId its id): the
 * new resource keeps what the old one knew of it, for `pulumi destroy` — what it was when first
 * taken over, or that this stack created it. A product adopted without a record is taken as found now.
 */
function keepOwnership(ctx: ProviderContext, id: string, olds: ProductOutputs): void {
  if (olds[ADOPTED_WITHOUT_RECORD] === true) return;
  ctx.ledger.takenAgain.set(id.toLowerCase(), takenOverIn(olds) ?? "created");
}

/** A replacement that adopts, previewed in `diff` (which alone knows the resource's id): a problem with adoptId fails the operation. */
async function previewReplacement(
  ctx: ProviderContext,
  adoptId: string,
  news: Partial<StoredProductInputs>,
  name: string | undefined,
  secrets: ReadonlySet<string> | undefined,
): Promise<void> {
  if (isUnknown(adoptId)) return;
  const problem = await previewAdoption(ctx, adoptId, news, name, secrets);
  if (problem !== undefined) throw new UserError(`adoptId ${problem}.`);
}

async function create(ctx: ProviderContext, { name, inputs: desired }: CreateRequest<StoredProductInputs>) {
  const taken = takenIn("Product", name ?? "");
  if (taken !== undefined) return takeIn(ctx, taken.id, desired);
  if (desired.adoptId !== undefined) return adopt(ctx, desired.adoptId, desired, name);
  const client = ctx.client();
  let created: Product;
  const sent = new Date();
  journalCreating({ type: "Product", name: name ?? "", urn: ctx.urn(), at: sent.toISOString() });
  try {
    created = await client.createProduct(createBody(desired));
  } catch (error) {
    if (!mayHaveSucceeded(error)) {
      journalNotCreated(name ?? "");
      throw error;
    }
    // Recorded with a placeholder id, so a re-run refuses instead of creating a second product.
    throw new PartialFailure(
      placeholderId(),
      { ...unconfirmedOutputs(desired), ...unconfirmed("products.create", sent) },
      `${(error as Error).message} ${recordedAsUnconfirmed(ctx, "Product", name ?? "(unnamed)")}`,
    );
  }
  logCreated(ctx, "Product", created.id, name);
  // The create body cannot carry every field (`create: false` in the contract's table: status), so a
  // declared value that differs from the new record's needs one PATCH more.
  const later = PRODUCT.declared(
    desired,
    UPDATE_ONLY.filter((field) => desired[field] !== (created[field] ?? null)),
  ) as UpdateProductBody;
  const fields = Object.keys(later).join(", ");
  if (fields === "") return { id: created.id, outs: outputs(created, desired) };
  try {
    const record = await client.updateProduct(created.id, later);
    return { id: created.id, outs: outputs(record, desired) };
  } catch (error) {
    throw new PartialFailure(
      created.id,
      outputs(created, desired),
      `${label("Product", created.id, name)} was created, but setting its ${fields} failed: ${(error as Error).message} ` +
        `The product is recorded in the stack; the next \`pulumi up\` sets the ${fields} with a PATCH and creates no second product.`,
    );
  }
}

/**
 * `recover`'s targeted up takes in what a killed run created (`journal.ts`: `takenIn`): the product
 * by its id, read with an empty PATCH (nothing changes; what differs from the catalog is the next
 * preview's change), or — where the create was sent and its answer lost — the placeholder every
 * lost create is, which no later up creates again by itself.
 */
async function takeIn(
  ctx: ProviderContext,
  id: string | null,
  desired: StoredProductInputs,
): Promise<{ id: string; outs: ProductOutputs }> {
  if (id === null) {
    // As a create whose answer was lost records itself (the PartialFailure above): no record's fields to keep.
    const outs = { ...unconfirmedOutputs(desired), ...unconfirmed("products.create", new Date(), true) };
    return { id: placeholderId(), outs: outs as unknown as ProductOutputs };
  }
  const record = await ctx.client().updateProduct(id, {});
  return { id, outs: outputs(record, desired) };
}

/** The POST body: the project and every declared field a create carries (the contract's table), so a field added there is sent without more code. */
function createBody(desired: StoredProductInputs): CreateProductBody {
  return { projectId: desired.projectId, ...PRODUCT.declared(desired, PRODUCT.created) } as CreateProductBody;
}

async function update(ctx: ProviderContext, { name, id, olds, news }: UpdateRequest<StoredProductInputs, ProductOutputs>) {
  if (isUnconfirmed(olds)) throw refusal(ctx, "Product", name ?? id, olds);
  const patch = buildProductPatch(olds, news);
  // Nothing the API holds changed (e.g. only onDelete): record the new inputs without a request.
  if (Object.keys(patch).length === 0) return { outs: { ...outputs(olds, news), ...ownershipAfter(olds, olds) } };
  const record = await ctx.client().updateProduct(id, patch);
  ctx.info(`updated ${label("Product", id, name)}: sent PATCH {${Object.keys(patch).join(", ")}}.`);
  return { outs: { ...outputs(record, news), ...ownershipAfter(olds, record) } };
}

/**
 * What deleting does depends on how the product came into the stack (`taken-over.ts`): one this
 * stack created is archived, one it took over is given back as found, unless `onDelete` says
 * otherwise. `archive` always sends the PATCH, whatever the state says: the product may have been
 * re-activated behind Pulumi's back, and archiving an archived product changes nothing.
 */
async function remove(ctx: ProviderContext, { name, id, state }: DeleteRequest<ProductOutputs>): Promise<void> {
  const who = label("Product", id, name);
  if (isUnconfirmed(state)) {
    ctx.info(
      `${who}: its create was never confirmed, so there is no product id to send anything to; removed from the stack. ` +
        "If that create did reach the service and the product was not adopted, it stays there as it is.",
    );
    return;
  }
  const manager = ctx.ledger.claimant(id, name);
  if (manager !== undefined) {
    ctx.warn(
      `${who}: nothing sent; Product ${JSON.stringify(manager)} of this stack manages the same product, so it is not archived ` +
        "(one product, one resource).",
    );
    return;
  }
  if (ctx.ledger.importedThisRun("Product", id)) {
    ctx.info(
      `${who}: nothing sent; this run took the same product into the stack again (an import or adoptId replacement), so it stays as it is.`,
    );
    return;
  }
  const fate = fateOf(state);
  if (fate === "retain") {
    ctx.info(`${who}: nothing sent (onDelete: retain); it stays on the service as it is and is no longer managed by this stack.`);
    return;
  }
  if (fate === "give back") return giveBack(ctx, who, name, id, takenOverIn(state)!);
  if (fate === "adopted without a record") {
    ctx.warn(
      `${who}: nothing sent; it was adopted (adoptId) by a version of pulumi-serviceapi that did not record what it found, so it is ` +
        'left as it is, not archived. To archive it, declare onDelete: "archive" and run `pulumi up` before `pulumi destroy`.',
    );
    return;
  }
  try {
    await ctx.client().updateProduct(id, { status: "archived" });
    ctx.info(`${who}: sent PATCH {status: "archived"}; it is archived on the service (the API cannot delete products).`);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    ctx.info(`${who}: no longer exists on the service (404); removed from the stack.`);
  }
}

export const product: Lifecycle<StoredProductInputs, ProductOutputs> = {
  fields: PRODUCT_FIELDS,
  check,
  diff,
  create,
  read,
  update,
  remove,
  importRecord,
};
