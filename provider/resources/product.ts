/**
 * `Product`: a product record, created with POST and kept in line with one PATCH of exactly the
 * fields that changed.
 *
 * Diff → PATCH body: `diff` and `update` both call `buildProductPatch`, so what preview promises
 * is exactly what `up` sends; the client (`client/client.ts`) validates and sends it.
 */
import { PermissionDeniedError, type KnownProductStatus, type Product, type ProductStatus, type UpdateProductBody } from "../client";
import { z } from "zod";
import { LIMITS, PRODUCT_STATUSES, UpdateProductBody as UpdateProductSchema, uuid } from "../contract/schemas";
import { Failures, checkInputs, isUnknown } from "./checks";
import type { ProviderContext } from "./context";
import { propertyNames, type ResourceFields } from "./fields";
import { projectAndRecordId } from "./import-id";
import { PartialFailure, isNotFound, withAdvice } from "./errors";
import { UNCONFIRMED, isUnconfirmed, mayHaveSucceeded, placeholderId, recordedAsUnconfirmed, refusal, unconfirmed } from "./unconfirmed";
import { announceDiff, label, logCreated } from "./messages";
import { DECLARED, NAME_KEY, cleanInputs, declaredKeys, named, refreshedInputs, type Named, type Stored } from "./stored-state";
import type { CheckFailure, Lifecycle, Values } from "./lifecycle";

const ON_DELETE = ["archive", "retain"] as const;
export type ProductOnDelete = (typeof ON_DELETE)[number];

/** What a program declares for a product (`ProductArgs` is this with `Input<…>` values). */
export interface ProductInputs {
  /** The project the product belongs to. Changing it replaces the product. */
  projectId: string;
  /** 1 to 1024 characters. */
  title: string;
  /** Up to 10,000 characters. Leaving it out (or `null`) means no description: removing it from the program clears it. */
  description?: string | null;
  /** 1 to 1024 characters. Leaving it out (or `null`) clears it. */
  slug?: string | null;
  /** Set after create with one PATCH when it differs from the service's initial status. Leaving it out leaves the status alone. */
  status?: KnownProductStatus;
  /** An absolute URI (RFC 3986). Leaving it out (or `null`) clears it. */
  externalCheckoutUrl?: string | null;
  /** What `pulumi destroy` (or removing the resource) does: `archive` (default) sets status archived; `retain` only forgets it. */
  onDelete?: ProductOnDelete;
  /**
   * The id of an existing product to take over instead of creating one (`pulumi import` does not
   * work for dynamic providers). Create reads it and PATCHes only the fields that differ; no POST.
   */
  adoptId?: string;
}

type Desired = Stored<ProductInputs> & Named;

export interface ProductOutputs extends Named {
  projectId: string;
  title: string;
  description: string | null;
  slug: string | null;
  /** As the service reports it; a status newer than this package is kept as it is. */
  status: ProductStatus;
  /** Set by the service. */
  type: string;
  externalCheckoutUrl: string | null;
  onDelete: ProductOnDelete;
  adoptId?: string;
  [DECLARED]: string[];
  /** Only on the placeholder of a create whose outcome is unknown (`unconfirmed.ts`). */
  [UNCONFIRMED]?: unknown;
  /** Only after a refresh found the product archived behind Pulumi's back (`RESTORE_STATUS`). */
  [RESTORE_STATUS]?: ProductStatus;
}

/** The product's fields: what `check` refuses, what the plugin schema says, what docs/resources.md lists. */
export const PRODUCT_FIELDS: ResourceFields<ProductInputs> = {
  resource: "Product",
  description:
    "A product of a project, created with POST and kept in line with one PATCH of exactly the fields that changed. " +
    "The API cannot delete products: deleting the resource archives the product (or, with `onDelete: retain`, only forgets it).",
  inputs: {
    projectId: { schema: uuid, required: true, replaces: true, description: "The project the product belongs to (a UUID)." },
    title: {
      schema: UpdateProductSchema.shape.title,
      required: true,
      shownToPeople: true,
      description: `The title: ${LIMITS.productTitle.min} to ${LIMITS.productTitle.max} characters.`,
    },
    description: {
      schema: UpdateProductSchema.shape.description,
      description: `Up to ${LIMITS.productDescription.max} characters. Leaving it out (or null) means no description: removing it clears it.`,
    },
    slug: {
      schema: UpdateProductSchema.shape.slug,
      shownToPeople: true,
      description: `${LIMITS.productSlug.min} to ${LIMITS.productSlug.max} characters. Leaving it out (or null) clears it.`,
    },
    status: {
      schema: UpdateProductSchema.shape.status,
      oneOf: PRODUCT_STATUSES,
      description: `One of ${PRODUCT_STATUSES.join(", ")}. Set after create with one PATCH when it differs from the service's initial status; leaving it out leaves the status alone.`,
    },
    externalCheckoutUrl: {
      schema: UpdateProductSchema.shape.externalCheckoutUrl,
      description: "An absolute URI (RFC 3986). Leaving it out (or null) clears it.",
    },
    onDelete: {
      schema: z.enum(ON_DELETE),
      oneOf: ON_DELETE,
      description: "What deleting the resource does: `archive` (default) sets status archived; `retain` only forgets the product.",
    },
    adoptId: {
      schema: uuid,
      hint: " (the id of an existing product to take over)",
      description:
        "The id of an existing product to take over instead of creating one: create reads it and PATCHes only the fields that differ; no POST. Another id replaces the resource.",
    },
  },
  outputs: {
    type: { type: "string", description: "The product type, set by the service." },
  },
};

const INPUT_KEYS = Object.keys(PRODUCT_FIELDS.inputs) as (keyof ProductInputs)[];
/** Every property of the resource, for the resource class. */
export const PRODUCT_OUTPUTS = propertyNames(PRODUCT_FIELDS);
/** Fields where leaving the input out means "no value": removing one from the program sends `null`. */
const NULLABLE = ["description", "slug", "externalCheckoutUrl"] as const;

type LiveFields = Pick<Product, "title" | "description" | "slug" | "status" | "externalCheckoutUrl"> & { [RESTORE_STATUS]?: ProductStatus };

/**
 * Hidden output set by refresh when a product whose program declares no `status` was archived
 * behind Pulumi's back: the status the stack last saw, which `up` sets back. Archiving is what
 * `destroy` does, so an archived product is gone from the catalog the program declares — drift the
 * gate must see, like a deleted resource. Declaring `status: "archived"` accepts it instead.
 */
export const RESTORE_STATUS = "__statusBeforeArchive";

/**
 * The smallest PATCH that makes `current` match the program: only fields that differ; a nullable
 * field the program leaves out becomes `null`; `title`/`status` left out are not managed — except
 * that a status archived behind Pulumi's back is set back (`RESTORE_STATUS`).
 */
export function buildProductPatch(current: LiveFields, desired: Desired): UpdateProductBody {
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
function isKnownStatus(status: ProductStatus | undefined): status is KnownProductStatus {
  return (PRODUCT_STATUSES as readonly string[]).includes(status as string);
}

/**
 * Every problem with a product's inputs, each naming the field, the problem and the limit, never
 * the value. Unknown values (preview) are skipped. Exported for programs that validate their own
 * sources (see examples/catalog-from-yaml) before declaring resources.
 */
export function productInputFailures(news: Values): CheckFailure[] {
  const failures = new Failures();
  checkInputs(failures, PRODUCT_FIELDS, news);
  return failures.list;
}

async function check(ctx: ProviderContext, olds: Values, news: Values) {
  ctx.settings(); // a missing token or base URL fails the preview here, before any request
  const inputs = cleanInputs<ProductInputs>(news, INPUT_KEYS);
  ctx.noteChecked("Product", inputs[NAME_KEY]);
  const failures = new Failures();
  checkInputs(failures, PRODUCT_FIELDS, news);
  // A new resource that adopts: read the product now, so preview says what adoption will change.
  // (An existing resource whose adoptId changes is a replacement; `diff` says it, knowing the id.)
  const isNew = cleanInputs<ProductInputs>(olds, INPUT_KEYS).projectId === undefined;
  if (failures.list.length === 0 && isNew && inputs.adoptId !== undefined && !isUnknown(inputs.adoptId)) {
    const other = ctx.claim(inputs.adoptId, inputs[NAME_KEY]);
    if (other !== undefined) failures.add("adoptId", sameProduct(other));
    else await previewAdoption(ctx, inputs.adoptId, inputs, failures);
  }
  return { inputs, failures: failures.list };
}

/**
 * Reads the product `adoptId` names — with an empty PATCH, the API's only read, as refresh does —
 * and says which fields adoption will change on it, by name (any value may be a secret). A product
 * this token cannot see fails the preview as an input problem. The read is kept for the create that
 * follows in the same command, so `up` reads it once.
 */
async function previewAdoption(ctx: ProviderContext, productId: string, desired: Desired, failures: Failures): Promise<void> {
  let current: Product;
  try {
    current = ctx.adoptionReads.get(productId) ?? (await ctx.client().updateProduct(productId, {}));
  } catch (error) {
    if (isNotFound(error) || error instanceof PermissionDeniedError) {
      failures.add(
        "adoptId",
        `names no product this token can see: reading it (an empty PATCH, the API's only read) was answered ${error.status}. ` +
          "Check the id, and that the token has access to the product's workspace",
      );
      return;
    }
    throw error;
  }
  ctx.adoptionReads.set(productId, current);
  const patch = buildProductPatch(current, desired);
  // The engine may ask twice (a replacement's diff): `once` says it once per command.
  const who = label("Product", productId, desired);
  if (Object.keys(patch).length === 0) {
    ctx.once(
      "info",
      `${who}: adoptId takes over this existing product; it already matches the program, so \`pulumi up\` sends nothing to it.${archivedNote(current, desired)}`,
    );
    return;
  }
  ctx.once(
    "warning",
    `${who}: adoptId takes over this existing product, and \`pulumi up\` will change it in one PATCH: ${describePatch(patch, desired)}. ` +
      `A field the program leaves out is cleared; declare it to keep its live value.${archivedNote(current, desired)}`,
  );
}

/** Two resources of one stack cannot manage one product: they would undo each other, and removing one would archive it. */
function sameProduct(other: string): string {
  return (
    `names the product that Product ${JSON.stringify(other)} of this stack already manages or adopts: one product, one resource. ` +
    "Remove one of the two, or point adoptId at another product"
  );
}

/** An adopted product that is archived stays archived unless the program declares a status: say so. */
function archivedNote(current: Product, desired: Desired): string {
  return current.status === "archived" && desired.status === undefined
    ? " It is archived, and stays so: the program declares no status."
    : "";
}

/** `sets title, status; clears description, slug` — field names only, never values. */
function describePatch(patch: UpdateProductBody, desired: Desired): string {
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

async function diff(ctx: ProviderContext, id: string, olds: ProductOutputs, news: Values) {
  const desired = cleanInputs<ProductInputs>(news, INPUT_KEYS);
  if (isUnconfirmed(olds)) {
    // An earlier create's outcome is unknown: only adopting (a replacement) or `--replace` goes on.
    // Refreshing it (diff against the last inputs, before any check) has nothing to compare.
    if (!ctx.wasChecked("Product", desired[NAME_KEY])) return { changes: false, replaces: [], changed: [] };
    if (desired.adoptId === undefined) throw refusal(ctx, "Product", olds[NAME_KEY] ?? id, olds);
    if (!isUnknown(desired.adoptId)) await previewAdoption(ctx, desired.adoptId, desired, failOnProblem());
    return { changes: true, replaces: ["adoptId"], changed: ["adoptId"] };
  }
  const other = ctx.claim(id, olds[NAME_KEY]);
  if (other !== undefined)
    throw new Error(
      `${label("Product", id, olds)}: Product ${JSON.stringify(other)} of this stack sets adoptId to this same product: one product, one resource.`,
    );
  const replaces: string[] = [];
  // A product imported by its bare id has no projectId yet (the API record has none): the program's is recorded.
  const projectUnknown = olds.projectId === undefined;
  if (!projectUnknown && desired.projectId !== olds.projectId) replaces.push("projectId");
  if (desired.adoptId !== undefined && desired.adoptId !== id) {
    replaces.push("adoptId");
    if (!isUnknown(desired.adoptId)) {
      const claimant = ctx.claim(desired.adoptId, desired[NAME_KEY]);
      if (claimant !== undefined) failOnProblem().add("adoptId", sameProduct(claimant));
      await previewAdoption(ctx, desired.adoptId, desired, failOnProblem());
    }
  }
  const patch = buildProductPatch(olds, desired);
  // Names the fields, so a change to a secret field (which the CLI shows as `[secret]`, unchanged) is seen.
  if (replaces.length === 0)
    announceDiff(ctx, label("Product", id, olds), Object.keys(patch), ctx.wasChecked("Product", desired[NAME_KEY]));
  const changed = [
    ...replaces,
    ...(projectUnknown ? ["projectId"] : []),
    ...Object.keys(patch),
    ...((desired.onDelete ?? "archive") !== olds.onDelete ? ["onDelete"] : []),
    ...(!replaces.includes("adoptId") && (desired.adoptId ?? null) !== (olds.adoptId ?? null) ? ["adoptId"] : []),
  ];
  // A nullable input switching between absent and null changes no field, but is recorded.
  const changes = changed.length > 0 || declaredKeys(desired).join() !== (olds[DECLARED] ?? []).join();
  return { changes, replaces, changed };
}

async function create(ctx: ProviderContext, inputs: Values) {
  const desired = cleanInputs<ProductInputs>(inputs, INPUT_KEYS);
  if (desired.adoptId !== undefined) return adopt(ctx, desired.adoptId, desired);
  const client = ctx.client();
  let created: Product;
  const sent = new Date();
  try {
    created = await client.createProduct({
      title: desired.title,
      projectId: desired.projectId,
      ...(desired.description !== undefined && { description: desired.description }),
      ...(desired.slug !== undefined && { slug: desired.slug }),
      ...(desired.externalCheckoutUrl !== undefined && { externalCheckoutUrl: desired.externalCheckoutUrl }),
    });
  } catch (error) {
    if (!mayHaveSucceeded(error)) throw error;
    // Recorded with a placeholder id, so a re-run refuses instead of creating a second product.
    const name = desired[NAME_KEY] ?? "(unnamed)";
    throw new PartialFailure(
      placeholderId(),
      { ...unconfirmedOutputs(desired), ...unconfirmed("products.create", sent) },
      `${(error as Error).message} ${recordedAsUnconfirmed(ctx, "Product", name)}`,
    );
  }
  logCreated(ctx, "Product", created.id, desired);
  // The create body cannot carry status, so a declared status that differs needs one PATCH more.
  if (desired.status === undefined || desired.status === created.status) return { id: created.id, outs: outputs(created, desired) };
  try {
    const record = await client.updateProduct(created.id, { status: desired.status });
    return { id: created.id, outs: outputs(record, desired) };
  } catch (error) {
    throw new PartialFailure(
      created.id,
      outputs(created, desired),
      `${label("Product", created.id, desired)} was created, but setting its status failed: ${(error as Error).message} ` +
        "The product is recorded in the stack; the next `pulumi up` sets the status with a PATCH and creates no second product.",
    );
  }
}

/**
 * `adoptId`: take over an existing product. It was read at check (preview's read, kept for this
 * command), or is read now with an empty PATCH; one more PATCH fixes what differs; no POST. The
 * output says which fields were sent.
 */
async function adopt(ctx: ProviderContext, productId: string, desired: Desired) {
  const client = ctx.client();
  let current: Product | undefined = ctx.adoptionReads.get(productId);
  ctx.adoptionReads.delete(productId);
  try {
    current ??= await client.updateProduct(productId, {});
  } catch (error) {
    if (isNotFound(error)) throw withAdvice(error, `adoptId ${productId}: no product with this id is visible to this token.`);
    throw error;
  }
  // A replacement that adopts the record it replaces (projectId changed, adoptId kept) must not archive it next.
  ctx.noteImported("Product", productId);
  const patch = buildProductPatch(current, desired);
  const who = `adopted ${label("Product", productId, desired)}`;
  if (Object.keys(patch).length === 0) {
    ctx.info(`${who}: it already matched the program; nothing sent.`);
    return { id: productId, outs: outputs(current, desired) };
  }
  try {
    const record = await client.updateProduct(productId, patch);
    ctx.info(`${who}: sent PATCH {${Object.keys(patch).join(", ")}}.`);
    return { id: productId, outs: outputs(record, desired) };
  } catch (error) {
    throw new PartialFailure(
      productId,
      outputs(current, desired),
      `${label("Product", productId, desired)} was adopted, but updating ${Object.keys(patch).join(", ")} failed: ${(error as Error).message} ` +
        "It is recorded in the stack; the next `pulumi up` retries the PATCH.",
    );
  }
}

async function update(ctx: ProviderContext, id: string, olds: ProductOutputs, news: Values) {
  const desired = cleanInputs<ProductInputs>(news, INPUT_KEYS);
  if (isUnconfirmed(olds)) throw refusal(ctx, "Product", olds[NAME_KEY] ?? id, olds);
  const patch = buildProductPatch(olds, desired);
  // Nothing the API holds changed (e.g. only onDelete): record the new inputs without a request.
  if (Object.keys(patch).length === 0) return { outs: outputs(olds, desired) };
  const record = await ctx.client().updateProduct(id, patch);
  ctx.info(`updated ${label("Product", id, desired)}: sent PATCH {${Object.keys(patch).join(", ")}}.`);
  return { outs: outputs(record, desired) };
}

/**
 * The API has no GET for products; an empty PATCH returns the record and changes nothing. Returns
 * the live values under the input names too, so the engine can show which field drifted.
 */
async function read(ctx: ProviderContext, id: string, props: ProductOutputs) {
  // A placeholder has nothing to read: the stack keeps it, and the next preview says what to do.
  if (isUnconfirmed(props)) return { id, props };
  if (!ctx.settings().productRefresh) {
    ctx.once(
      "warning",
      "serviceapi:productRefresh is false: products keep their stored state at refresh, so drift in products cannot be seen.",
    );
    return { id, props };
  }
  let record: Product;
  try {
    record = await ctx.client().updateProduct(id, {});
  } catch (error) {
    if (isNotFound(error)) return {}; // gone: the engine drops it from the stack
    throw error;
  }
  // What only the stack knows (the API record has no projectId, onDelete or adoptId) is kept.
  const stored: Desired = {
    projectId: props.projectId,
    title: record.title,
    onDelete: props.onDelete,
    ...(props.adoptId !== undefined && { adoptId: props.adoptId }),
  };
  // A pending create taken over with --import-pending-creates has inputs but no __declared yet.
  const declared = props[DECLARED] ?? declaredKeys(cleanInputs<ProductInputs>(props, INPUT_KEYS));
  const refreshed: ProductOutputs = { ...outputs(record, { ...stored, ...named(props) }), [DECLARED]: declared };
  const inputs = refreshedInputs(declared, { ...record, ...stored }, NULLABLE);
  // Archived behind Pulumi's back while the program leaves status alone: shown as `status` drift.
  const lastSeen = props[RESTORE_STATUS] ?? props.status;
  if (!declared.includes("status") && record.status === "archived" && lastSeen !== undefined && lastSeen !== "archived") {
    refreshed[RESTORE_STATUS] = lastSeen;
    inputs.status = record.status;
    ctx.warn(
      `${label("Product", id, props)} was archived on the service, not by Pulumi. The program declares no status, so \`pulumi up\` ` +
        'sets back the status the stack last recorded; to keep it archived, declare `status: "archived"` (or remove the product from the program).',
    );
  }
  return { id, props: refreshed, inputs };
}

/**
 * Takes an existing product into the stack: its live fields become the inputs (`title`, `status`,
 * and each nullable field that has a value), so the code `pulumi import` prints matches it.
 */
async function importRecord(ctx: ProviderContext, id: string, hint: Values) {
  const { projectId, recordId } = projectAndRecordId("Product", id, hint);
  let record: Product;
  try {
    record = await ctx.client().updateProduct(recordId, {});
  } catch (error) {
    if (isNotFound(error))
      throw withAdvice(error, `Product ${recordId}: no product with this id is visible to this token, so it cannot be imported.`);
    throw error;
  }
  ctx.noteImported("Product", recordId);
  const live = {
    ...(projectId !== undefined && { projectId }),
    title: record.title,
    ...(isKnownStatus(record.status) && { status: record.status }),
    ...Object.fromEntries(NULLABLE.filter((key) => record[key] !== null).map((key) => [key, record[key]])),
    ...(hint.onDelete === "retain" && { onDelete: "retain" as const }),
    ...named(hint as Named),
  } as Desired;
  const declared = declaredKeys(live);
  return {
    id: recordId,
    props: { ...outputs(record, live), [DECLARED]: declared },
    inputs: refreshedInputs(declared, { ...record, ...live }, NULLABLE),
  };
}

/**
 * `archive` always sends the PATCH, whatever the state says: the product may have been
 * re-activated behind Pulumi's back, and archiving an archived product changes nothing.
 */
async function remove(ctx: ProviderContext, id: string, props: ProductOutputs): Promise<void> {
  const name = label("Product", id, props);
  if (isUnconfirmed(props)) {
    ctx.info(
      `${name}: its create was never confirmed, so there is no product id to send anything to; removed from the stack. ` +
        "If that create did reach the service and the product was not adopted, it stays there as it is.",
    );
    return;
  }
  const manager = ctx.claimant(id, props[NAME_KEY]);
  if (manager !== undefined) {
    ctx.warn(
      `${name}: nothing sent; Product ${JSON.stringify(manager)} of this stack manages the same product, so it is not archived ` +
        "(one product, one resource).",
    );
    return;
  }
  if (ctx.importedThisRun("Product", id)) {
    ctx.info(
      `${name}: nothing sent; this run took the same product into the stack again (an import or adoptId replacement), so it stays as it is.`,
    );
    return;
  }
  if (props.onDelete === "retain") {
    ctx.info(`${name}: nothing sent (onDelete: retain); it stays on the service as it is and is no longer managed by this stack.`);
    return;
  }
  try {
    await ctx.client().updateProduct(id, { status: "archived" });
    ctx.info(`${name}: sent PATCH {status: "archived"}; it is archived on the service (the API cannot delete products).`);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    ctx.info(`${name}: no longer exists on the service (404); removed from the stack.`);
  }
}

/** The placeholder's outputs: what the program declared, as nothing came back from the service. */
function unconfirmedOutputs(desired: Desired): Omit<ProductOutputs, "status" | "type"> {
  return {
    projectId: desired.projectId,
    title: desired.title,
    description: desired.description ?? null,
    slug: desired.slug ?? null,
    externalCheckoutUrl: desired.externalCheckoutUrl ?? null,
    onDelete: desired.onDelete ?? "archive",
    [DECLARED]: declaredKeys(desired),
    ...named(desired),
  };
}

/** A `Failures` for a check made outside `check` (in `diff`): a problem fails the operation. */
function failOnProblem(): Failures {
  const failures = new Failures();
  failures.add = (field, problem) => {
    throw new Error(`${field} ${problem}.`);
  };
  return failures;
}

function outputs(record: LiveFields & Pick<Product, "type">, desired: Desired): ProductOutputs {
  return {
    projectId: desired.projectId,
    title: record.title,
    description: record.description ?? null,
    slug: record.slug ?? null,
    status: record.status,
    type: record.type,
    externalCheckoutUrl: record.externalCheckoutUrl ?? null,
    onDelete: desired.onDelete ?? "archive",
    ...(desired.adoptId !== undefined && { adoptId: desired.adoptId }),
    [DECLARED]: declaredKeys(desired),
    ...named(desired),
  };
}

export const product: Lifecycle<ProductOutputs> = { check, diff, create, read, update, remove, importRecord };
