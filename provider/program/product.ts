/**
 * `Product`: a product record, created with POST and kept in line with one PATCH of exactly the
 * fields that changed. The lifecycle is `resources/product/lifecycle.ts`; the engine reaches it through
 * `dynamic/product.ts`; this file is the typed surface: `ProductArgs` and the outputs are the
 * lifecycle's own types.
 */
import type * as pulumi from "@pulumi/pulumi";
import * as provider from "../dynamic/product";
import { PRODUCT_FIELDS, type ProductInputs, type ProductOutputs } from "../resources/product";
import { ServiceApiResource } from "./dynamic-resource";
import type { ResourceArgs, ResourceOutputs } from "./resource-props";

export type ProductArgs = ResourceArgs<ProductInputs>;

// The outputs (projectId, title, status — as the service reports it, a newer status kept as it is —
// type, …), typed from the lifecycle's `ProductOutputs`; the SDK sets each on the instance.
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- the SDK defines these properties at run time
export interface Product extends ResourceOutputs<ProductOutputs> {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class Product extends ServiceApiResource<ProductInputs> {
  constructor(name: string, args: ProductArgs, opts?: pulumi.CustomResourceOptions) {
    super(provider, "Product", PRODUCT_FIELDS, name, args, opts);
  }
}
