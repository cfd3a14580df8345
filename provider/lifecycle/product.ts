/**
 * The dynamic provider behind `Product` (`product.ts`). This module's exports object *is* the
 * provider: the resource passes it to the engine, which serializes it as
 * `require("pulumi-serviceapi/lifecycle/product")`, so state holds a one-line stub and every later
 * preview, refresh and destroy runs the installed package's code.
 *
 * Diff → PATCH body: `diff` and `update` both call `buildProductPatch`, so what preview promises
 * is exactly what `up` sends; the client (`client/client.ts`) validates and sends it.
 */
import type { KnownProductStatus, Product, ProductStatus, UpdateProductBody } from "../client";
import { PRODUCT_STATUSES, UpdateProductBody as UpdateProductSchema, uuid } from "../client/schemas";
import { Failures, checkField, checkKnownKeys, checkOneOf, checkRequired, type CheckFailure } from "./checks";
import {
  DECLARED, NAME_KEY, apiClient, type Named, cleanInputs, currentSettings, declaredKeys, info, label, logCreated, named, refreshedInputs, warn,
} from "./common";
import { isNotFound, partialFailure, userFacing, withAuthHint, withHint } from "./errors";

export { configure } from "./common";

export const ON_DELETE = ["archive", "retain"] as const;
export type ProductOnDelete = (typeof ON_DELETE)[number];

/** Inputs after `check`: absent and `null` are the same thing and stored as absent. */
export interface ProductInputs {
  projectId: string;
  title: string;
  description?: string;
  slug?: string;
  status?: KnownProductStatus;
  externalCheckoutUrl?: string;
  onDelete?: ProductOnDelete;
  adoptId?: string;
}

export interface ProductOutputs {
  projectId: string;
  title: string;
  description: string | null;
  slug: string | null;
  status: ProductStatus;
  type: string;
  externalCheckoutUrl: string | null;
  onDelete: ProductOnDelete;
  adoptId?: string;
  [DECLARED]: string[];
  [NAME_KEY]?: string;
}

const INPUT_KEYS = ["projectId", "title", "description", "slug", "status", "externalCheckoutUrl", "onDelete", "adoptId"] as const;
const OUTPUT_ONLY = ["type"] as const;
/** Every property of the resource, for the resource class. */
export const PRODUCT_OUTPUTS = [...INPUT_KEYS, ...OUTPUT_ONLY] as const;
/** Fields where leaving the input out means "no value": removing one from the program sends `null`. */
const NULLABLE = ["description", "slug", "externalCheckoutUrl"] as const;

type LiveFields = Pick<Product, "title" | "description" | "slug" | "status" | "externalCheckoutUrl">;

/**
 * The smallest PATCH that makes `current` match the program: only fields that differ; a nullable
 * field the program leaves out becomes `null`; `title`/`status` left out are not managed.
 */
export function buildProductPatch(current: LiveFields, desired: ProductInputs): UpdateProductBody {
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
export function productInputFailures(news: Record<string, unknown>): CheckFailure[] {
  const failures = new Failures();
  const fields = UpdateProductSchema.shape;
  checkKnownKeys(failures, "Product", news, INPUT_KEYS, OUTPUT_ONLY);
  checkRequired(failures, "projectId", uuid, news.projectId);
  checkRequired(failures, "title", fields.title, news.title);
  checkField(failures, "description", fields.description, news.description);
  checkField(failures, "slug", fields.slug, news.slug);
  checkOneOf(failures, "status", PRODUCT_STATUSES, news.status);
  checkField(failures, "externalCheckoutUrl", fields.externalCheckoutUrl, news.externalCheckoutUrl);
  checkOneOf(failures, "onDelete", ON_DELETE, news.onDelete);
  checkField(failures, "adoptId", uuid, news.adoptId, " (the id of an existing product to take over)");
  return failures.list;
}

export const check = userFacing(async (_olds: unknown, news: Record<string, unknown>) => {
  currentSettings(); // a missing token or base URL fails the preview here, before any request
  return { inputs: cleanInputs<ProductInputs>(news, INPUT_KEYS), failures: productInputFailures(news) };
});

export const diff = userFacing(async (id: string, olds: ProductOutputs, news: Record<string, unknown>) => {
  const desired = cleanInputs<ProductInputs>(news, INPUT_KEYS);
  const replaces: string[] = [];
  if (desired.projectId !== olds.projectId) replaces.push("projectId");
  if (desired.adoptId !== undefined && desired.adoptId !== id) replaces.push("adoptId");
  const patch = buildProductPatch(olds, desired);
  const changes = replaces.length > 0
    || Object.keys(patch).length > 0
    || (desired.onDelete ?? "archive") !== olds.onDelete
    || declaredKeys(desired).join() !== (olds[DECLARED] ?? []).join();
  return { changes, replaces };
});

export async function create(inputs: ProductInputs & { __provider: string; [NAME_KEY]?: string }) {
  const desired = cleanInputs<ProductInputs>(inputs, INPUT_KEYS);
  if (desired.adoptId !== undefined) return adopt(desired.adoptId, desired, inputs.__provider);
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
    throw withRecoveryHint(withAuthHint(error));
  }
  logCreated("Product", created.id, desired);
  // The create body cannot carry status, so a declared status that differs needs one PATCH more.
  if (desired.status === undefined || desired.status === created.status) return { id: created.id, outs: outputs(created, desired) };
  try {
    const record = await client.updateProduct(created.id, { status: desired.status });
    return { id: created.id, outs: outputs(record, desired) };
  } catch (error) {
    throw partialFailure(created.id, { ...outputs(created, desired), __provider: inputs.__provider },
      `${label("Product", created.id, desired)} was created, but setting its status failed: ${(error as Error).message} ` +
      "The product is recorded in the stack; the next `pulumi up` sets the status with a PATCH and creates no second product.");
  }
}

/** `adoptId`: take over an existing product. One empty PATCH reads it, one more fixes what differs; no POST. */
async function adopt(productId: string, desired: ProductInputs & Named, provider: string) {
  const client = apiClient();
  let current: Product;
  try {
    current = await client.updateProduct(productId, {});
  } catch (error) {
    if (isNotFound(error)) throw withHint(error, `adoptId ${productId}: no product with this id is visible to this token.`);
    throw withAuthHint(error);
  }
  const patch = buildProductPatch(current, desired);
  if (Object.keys(patch).length === 0) return { id: productId, outs: outputs(current, desired) };
  try {
    const record = await client.updateProduct(productId, patch);
    return { id: productId, outs: outputs(record, desired) };
  } catch (error) {
    throw partialFailure(productId, { ...outputs(current, desired), __provider: provider },
      `${label("Product", productId, desired)} was adopted, but updating ${Object.keys(patch).join(", ")} failed: ${(error as Error).message} ` +
      "It is recorded in the stack; the next `pulumi up` retries the PATCH.");
  }
}

export async function update(id: string, olds: ProductOutputs, news: Record<string, unknown>) {
  const desired = cleanInputs<ProductInputs>(news, INPUT_KEYS);
  const patch = buildProductPatch(olds, desired);
  // Nothing the API holds changed (e.g. only onDelete): record the new inputs without a request.
  if (Object.keys(patch).length === 0) return { outs: outputs(olds, desired) };
  try {
    const record = await apiClient().updateProduct(id, patch);
    return { outs: outputs(record, desired) };
  } catch (error) {
    throw withAuthHint(error);
  }
}

let warnedNoRefresh = false;

/**
 * The API has no GET for products; an empty PATCH returns the record and changes nothing. Returns
 * the live values under the input names too, so the engine can show which field drifted.
 */
export const read = userFacing(async (id: string, props: ProductOutputs) => {
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
    throw withAuthHint(error);
  }
  // What only the stack knows (the API record has no projectId, onDelete or adoptId) is kept.
  const stored: ProductInputs = {
    projectId: props.projectId, title: record.title, onDelete: props.onDelete,
    ...(props.adoptId !== undefined && { adoptId: props.adoptId }),
  };
  const refreshed = { ...outputs(record, { ...stored, ...named(props) }), [DECLARED]: props[DECLARED] };
  return { id, props: refreshed, inputs: refreshedInputs(props[DECLARED], { ...record, ...stored }, NULLABLE) };
});

/**
 * `archive` always sends the PATCH, whatever the state says: the product may have been
 * re-activated behind Pulumi's back, and archiving an archived product changes nothing.
 */
const remove = userFacing(async (id: string, props: ProductOutputs): Promise<void> => {
  const name = label("Product", id, props);
  if (props.onDelete === "retain") {
    info(`${name}: nothing sent (onDelete: retain); it stays on the service as it is and is no longer managed by this stack.`);
    return;
  }
  try {
    await apiClient().updateProduct(id, { status: "archived" });
    info(`${name}: sent PATCH {status: "archived"}; it is archived on the service (the API cannot delete products).`);
  } catch (error) {
    if (!isNotFound(error)) throw withAuthHint(error);
    info(`${name}: no longer exists on the service (404); removed from the stack.`);
  }
});
export { remove as delete };

function outputs(record: LiveFields & Pick<Product, "type">, desired: ProductInputs & Named): ProductOutputs {
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

/** A create that may have reached the service: say how to finish without a duplicate. */
function withRecoveryHint(error: unknown): unknown {
  if (!(error as { mayHaveSucceeded?: boolean }).mayHaveSucceeded) return error;
  return withHint(error, "To take over a product that was created anyway instead of creating a second one, " +
    "find its id — in the output of an earlier, interrupted `pulumi up` (a line `serviceapi: created Product \"<name>\" <id>`), " +
    "or in the service's UI (the API cannot list products) — and set `adoptId: \"<id>\"` on this Product, then run `pulumi up` again. " +
    "See docs/recovery.md in pulumi-serviceapi.");
}
