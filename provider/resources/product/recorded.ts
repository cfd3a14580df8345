/**
 * A product as a stack's state records it, through either face: which resources of a state are
 * products of this package, and the id of each. Read by whoever must find the stacks that manage a
 * product — the catalog tool (every stack of the backend) and an adoption's check — from states
 * they read, not from the engine. One definition, so the two cannot disagree.
 */
import { isUuid } from "../../contract/schemas";
import { isUnconfirmed } from "../unconfirmed";

/** The plugin's resource token. */
export const PLUGIN_PRODUCT_TYPE = "serviceapi:index:Product";
/** The dynamic face's token: the SDK's `pulumi-nodejs:dynamic/<module>:<type>` for `Product`'s module and type. */
export const DYNAMIC_PRODUCT_TYPE = "pulumi-nodejs:dynamic/serviceapi:Product";
/** Stacks made before the dynamic resource had a type of its own: the generic token, told apart by the provider stub it requires. */
const GENERIC_DYNAMIC_TYPE = "pulumi-nodejs:dynamic:Resource";
const STUB = /pulumi-serviceapi\/(dynamic|lifecycle)\/product\b/;

/** A resource as a state holds it (the fields this needs). */
export interface RecordedResource {
  type: string;
  id?: string;
  outputs?: Record<string, unknown>;
  inputs?: Record<string, unknown>;
}

/** Whether the resource is a product of this package (a placeholder of an unconfirmed create included). */
export function isProductResource(resource: RecordedResource): boolean {
  if (resource.type === PLUGIN_PRODUCT_TYPE || resource.type === DYNAMIC_PRODUCT_TYPE) return true;
  const stub = resource.outputs?.__provider ?? resource.inputs?.__provider;
  return resource.type === GENERIC_DYNAMIC_TYPE && typeof stub === "string" && STUB.test(stub);
}

/** The product's id, lower case, when the resource is a product with a real record (not a placeholder); otherwise undefined. */
export function recordedProductId(resource: RecordedResource): string | undefined {
  if (!isProductResource(resource) || resource.id === undefined || !isUuid(resource.id)) return undefined;
  if (isUnconfirmed(resource.outputs)) return undefined;
  return resource.id.toLowerCase();
}
