/**
 * `Product`: a product record, created with POST and kept in line with one PATCH of exactly the
 * fields that changed.
 *
 * Diff → PATCH body: `diff` and `update` both call `buildProductPatch`, so what preview promises
 * is exactly what `up` sends; the client (`client/client.ts`) validates and sends it.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { KnownProductStatus, Product, ProductStatus, UpdateProductBody } from "../client";
import { z } from "zod";
import { LIMITS, PRODUCT_STATUSES, UpdateProductBody as UpdateProductSchema, uuid } from "../contract/schemas";
import { Failures, checkInputs } from "./checks";
import { propertyNames, type ResourceFields } from "./fields";
import { projectAndRecordId } from "./import-id";
import { importedThisRun, noteImported } from "./imported";
import { PartialFailure, isNotFound, withHint, withProductRecoveryHint } from "./errors";
import { info, label, logCreated, warn } from "./messages";
import { apiClient, currentSettings } from "./service";
import { DECLARED, cleanInputs, declaredKeys, named, refreshedInputs, type Named, type Stored } from "./stored-state";
import type { Lifecycle } from "./types";

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
}

/** The product's fields: what `check` refuses, what the plugin schema says, what docs/resources.md lists. */
export const PRODUCT_FIELDS: ResourceFields<ProductInputs> = {
  resource: "Product",
  description: "A product of a project, created with POST and kept in line with one PATCH of exactly the fields that changed. " +
    "The API cannot delete products: deleting the resource archives the product (or, with `onDelete: retain`, only forgets it).",
  inputs: {
    projectId: { schema: uuid, required: true, replaces: true, description: "The project the product belongs to (a UUID)." },
    title: { schema: UpdateProductSchema.shape.title, required: true,
      description: `The title: ${LIMITS.productTitle.min} to ${LIMITS.productTitle.max} characters.` },
    description: { schema: UpdateProductSchema.shape.description,
      description: `Up to ${LIMITS.productDescription.max} characters. Leaving it out (or null) means no description: removing it clears it.` },
    slug: { schema: UpdateProductSchema.shape.slug,
      description: `${LIMITS.productSlug.min} to ${LIMITS.productSlug.max} characters. Leaving it out (or null) clears it.` },
    status: { schema: UpdateProductSchema.shape.status, oneOf: PRODUCT_STATUSES,
      description: `One of ${PRODUCT_STATUSES.join(", ")}. Set after create with one PATCH when it differs from the service's initial status; leaving it out leaves the status alone.` },
    externalCheckoutUrl: { schema: UpdateProductSchema.shape.externalCheckoutUrl,
      description: "An absolute URI (RFC 3986). Leaving it out (or null) clears it." },
    onDelete: { schema: z.enum(ON_DELETE), oneOf: ON_DELETE,
      description: "What deleting the resource does: `archive` (default) sets status archived; `retain` only forgets the product." },
    adoptId: { schema: uuid, hint: " (the id of an existing product to take over)",
      description: "The id of an existing product to take over instead of creating one: create reads it and PATCHes only the fields that differ; no POST. Another id replaces the resource." },
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

type LiveFields = Pick<Product, "title" | "description" | "slug" | "status" | "externalCheckoutUrl">;

/**
 * The smallest PATCH that makes `current` match the program: only fields that differ; a nullable
 * field the program leaves out becomes `null`; `title`/`status` left out are not managed.
 */
export function buildProductPatch(current: LiveFields, desired: Desired): UpdateProductBody {
  const patch: UpdateProductBody = {};
  if (desired.title !== undefined && desired.title !== current.title) patch.title = desired.title;
  for (const key of NULLABLE) {
    const want = desired[key] ?? null;
    if (want !== (current[key] ?? null)) patch[key] = want;
  }
  if (desired.status !== undefined && desired.status !== current.status) patch.status = desired.status;
  return patch;
}

/**
 * Every problem with a product's inputs, each naming the field, the problem and the limit, never
 * the value. Unknown values (preview) are skipped. Exported for programs that validate their own
 * sources (see examples/catalog-from-yaml) before declaring resources.
 */
export function productInputFailures(news: Record<string, unknown>): pulumi.dynamic.CheckFailure[] {
  const failures = new Failures();
  checkInputs(failures, PRODUCT_FIELDS, news);
  return failures.list;
}

async function check(_olds: Record<string, unknown>, news: Record<string, unknown>) {
  currentSettings(); // a missing token or base URL fails the preview here, before any request
  return { inputs: cleanInputs<ProductInputs>(news, INPUT_KEYS), failures: productInputFailures(news) };
}

async function diff(id: string, olds: ProductOutputs, news: ProductInputs) {
  const desired = cleanInputs<ProductInputs>(news, INPUT_KEYS);
  const replaces: string[] = [];
  // A product imported by its bare id has no projectId yet (the API record has none): the program's is recorded.
  const projectUnknown = olds.projectId === undefined;
  if (!projectUnknown && desired.projectId !== olds.projectId) replaces.push("projectId");
  if (desired.adoptId !== undefined && desired.adoptId !== id) replaces.push("adoptId");
  const patch = buildProductPatch(olds, desired);
  const changes = replaces.length > 0
    || projectUnknown
    || Object.keys(patch).length > 0
    || (desired.onDelete ?? "archive") !== olds.onDelete
    || declaredKeys(desired).join() !== (olds[DECLARED] ?? []).join();
  return { changes, replaces };
}

async function create(inputs: ProductInputs & Named) {
  const desired = cleanInputs<ProductInputs>(inputs, INPUT_KEYS);
  if (desired.adoptId !== undefined) return adopt(desired.adoptId, desired);
  const client = apiClient();
  let created: Product;
  try {
    created = await client.createProduct({
      title: desired.title,
      projectId: desired.projectId,
      ...(desired.description !== undefined && { description: desired.description }),
      ...(desired.slug !== undefined && { slug: desired.slug }),
      ...(desired.externalCheckoutUrl !== undefined && { externalCheckoutUrl: desired.externalCheckoutUrl }),
    });
  } catch (error) {
    throw withProductRecoveryHint(error);
  }
  logCreated("Product", created.id, desired);
  // The create body cannot carry status, so a declared status that differs needs one PATCH more.
  if (desired.status === undefined || desired.status === created.status) return { id: created.id, outs: outputs(created, desired) };
  try {
    const record = await client.updateProduct(created.id, { status: desired.status });
    return { id: created.id, outs: outputs(record, desired) };
  } catch (error) {
    throw new PartialFailure(created.id, outputs(created, desired),
      `${label("Product", created.id, desired)} was created, but setting its status failed: ${(error as Error).message} ` +
      "The product is recorded in the stack; the next `pulumi up` sets the status with a PATCH and creates no second product.");
  }
}

/** `adoptId`: take over an existing product. One empty PATCH reads it, one more fixes what differs; no POST. */
async function adopt(productId: string, desired: Desired) {
  const client = apiClient();
  let current: Product;
  try {
    current = await client.updateProduct(productId, {});
  } catch (error) {
    if (isNotFound(error)) throw withHint(error, `adoptId ${productId}: no product with this id is visible to this token.`);
    throw error;
  }
  const patch = buildProductPatch(current, desired);
  if (Object.keys(patch).length === 0) return { id: productId, outs: outputs(current, desired) };
  try {
    const record = await client.updateProduct(productId, patch);
    return { id: productId, outs: outputs(record, desired) };
  } catch (error) {
    throw new PartialFailure(productId, outputs(current, desired),
      `${label("Product", productId, desired)} was adopted, but updating ${Object.keys(patch).join(", ")} failed: ${(error as Error).message} ` +
      "It is recorded in the stack; the next `pulumi up` retries the PATCH.");
  }
}

async function update(id: string, olds: ProductOutputs, news: ProductInputs) {
  const desired = cleanInputs<ProductInputs>(news, INPUT_KEYS);
  const patch = buildProductPatch(olds, desired);
  // Nothing the API holds changed (e.g. only onDelete): record the new inputs without a request.
  if (Object.keys(patch).length === 0) return { outs: outputs(olds, desired) };
  const record = await apiClient().updateProduct(id, patch);
  return { outs: outputs(record, desired) };
}

let warnedNoRefresh = false;

/**
 * The API has no GET for products; an empty PATCH returns the record and changes nothing. Returns
 * the live values under the input names too, so the engine can show which field drifted.
 */
async function read(id: string, props: ProductOutputs) {
  if (!currentSettings().productRefresh) {
    if (!warnedNoRefresh) {
      warnedNoRefresh = true;
      warn("serviceapi:productRefresh is false: products keep their stored state at refresh, so drift in products cannot be seen.");
    }
    return { id, props };
  }
  let record: Product;
  try {
    record = await apiClient().updateProduct(id, {});
  } catch (error) {
    if (isNotFound(error)) return {}; // gone: the engine drops it from the stack
    throw error;
  }
  // What only the stack knows (the API record has no projectId, onDelete or adoptId) is kept.
  const stored: Desired = {
    projectId: props.projectId, title: record.title, onDelete: props.onDelete,
    ...(props.adoptId !== undefined && { adoptId: props.adoptId }),
  };
  // A pending create taken over with --import-pending-creates has inputs but no __declared yet.
  const declared = props[DECLARED] ?? declaredKeys(cleanInputs<ProductInputs>(props, INPUT_KEYS));
  const refreshed = { ...outputs(record, { ...stored, ...named(props) }), [DECLARED]: declared };
  return { id, props: refreshed, inputs: refreshedInputs(declared, { ...record, ...stored }, NULLABLE) };
}

/**
 * Takes an existing product into the stack: its live fields become the inputs (`title`, `status`,
 * and each nullable field that has a value), so the code `pulumi import` prints matches it.
 */
async function importRecord(id: string, hint: Record<string, unknown>) {
  const { projectId, recordId } = projectAndRecordId("Product", id, hint);
  let record: Product;
  try {
    record = await apiClient().updateProduct(recordId, {});
  } catch (error) {
    if (isNotFound(error)) throw withHint(error, `Product ${recordId}: no product with this id is visible to this token, so it cannot be imported.`);
    throw error;
  }
  noteImported("Product", recordId);
  const live = {
    ...(projectId !== undefined && { projectId }), title: record.title,
    ...((PRODUCT_STATUSES as readonly string[]).includes(record.status) && { status: record.status as KnownProductStatus }),
    ...Object.fromEntries(NULLABLE.filter((key) => record[key] !== null).map((key) => [key, record[key]])),
    ...(hint.onDelete === "retain" && { onDelete: "retain" as const }),
    ...named(hint as Named),
  } as Desired;
  const declared = declaredKeys(live);
  return { id: recordId, props: { ...outputs(record, live), [DECLARED]: declared }, inputs: refreshedInputs(declared, { ...record, ...live }, NULLABLE) };
}

/**
 * `archive` always sends the PATCH, whatever the state says: the product may have been
 * re-activated behind Pulumi's back, and archiving an archived product changes nothing.
 */
async function remove(id: string, props: ProductOutputs): Promise<void> {
  const name = label("Product", id, props);
  if (importedThisRun("Product", id)) {
    info(`${name}: nothing sent; this run imported the same product into the stack again (a Pulumi import replacement), so it stays as it is.`);
    return;
  }
  if (props.onDelete === "retain") {
    info(`${name}: nothing sent (onDelete: retain); it stays on the service as it is and is no longer managed by this stack.`);
    return;
  }
  try {
    await apiClient().updateProduct(id, { status: "archived" });
    info(`${name}: sent PATCH {status: "archived"}; it is archived on the service (the API cannot delete products).`);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    info(`${name}: no longer exists on the service (404); removed from the stack.`);
  }
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

export const product: Lifecycle<ProductInputs & Named, ProductOutputs> = { check, diff, create, read, update, remove, importRecord };
