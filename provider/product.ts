/**
 * `Product`: a product record, created with POST and kept in line with one PATCH of exactly the
 * fields that changed. The lifecycle is `lifecycle/product.ts`; the engine reaches it through
 * `dynamic/product.ts`; this file is the typed surface.
 */
import * as pulumi from "@pulumi/pulumi";
import type { ProductStatus } from "./client";
import * as provider from "./dynamic/product";
import { PRODUCT_OUTPUTS, type ProductInputs, type ProductOnDelete } from "./lifecycle/product";
import { resourceProps, type ResourceArgs } from "./resource-props";

export type ProductArgs = ResourceArgs<ProductInputs>;

export class Product extends pulumi.dynamic.Resource {
  declare readonly projectId: pulumi.Output<string>;
  declare readonly title: pulumi.Output<string>;
  declare readonly description: pulumi.Output<string | null>;
  declare readonly slug: pulumi.Output<string | null>;
  /** As the service reports it; a status newer than this package is kept as it is. */
  declare readonly status: pulumi.Output<ProductStatus>;
  /** Set by the service. */
  declare readonly type: pulumi.Output<string>;
  declare readonly externalCheckoutUrl: pulumi.Output<string | null>;
  declare readonly onDelete: pulumi.Output<ProductOnDelete>;

  constructor(name: string, args: ProductArgs, opts?: pulumi.CustomResourceOptions) {
    super(provider, name, resourceProps("Product", name, args, PRODUCT_OUTPUTS, opts), opts, "serviceapi", "Product");
  }
}
