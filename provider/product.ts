/**
 * `Product`: a product record, created with POST and kept in line with one PATCH of exactly the
 * fields that changed. The engine talks to `lifecycle/product.ts`; this file is the typed surface.
 */
import * as pulumi from "@pulumi/pulumi";
import type { KnownProductStatus, ProductStatus } from "./client";
import * as lifecycle from "./lifecycle/product";
import type { ProductOnDelete } from "./lifecycle/product";
import { resourceProps } from "./resource-props";

export interface ProductArgs {
  /** The project the product belongs to. Changing it replaces the product. */
  projectId: pulumi.Input<string>;
  /** 1 to 1024 characters. */
  title: pulumi.Input<string>;
  /** Up to 10,000 characters. Leaving it out (or `null`) means no description: removing it from the program clears it. */
  description?: pulumi.Input<string | null>;
  /** 1 to 1024 characters. Leaving it out (or `null`) clears it. */
  slug?: pulumi.Input<string | null>;
  /** Set after create with one PATCH when it differs from the service's initial status. Leaving it out leaves the status alone. */
  status?: pulumi.Input<KnownProductStatus>;
  /** An absolute URI. Leaving it out (or `null`) clears it. */
  externalCheckoutUrl?: pulumi.Input<string | null>;
  /** What `pulumi destroy` (or removing the resource) does: `archive` (default) sets status archived; `retain` only forgets it. */
  onDelete?: pulumi.Input<ProductOnDelete>;
  /**
   * The id of an existing product to take over instead of creating one (`pulumi import` does not
   * work for dynamic providers). Create reads it and PATCHes only the fields that differ; no POST.
   */
  adoptId?: pulumi.Input<string>;
}

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
    super(lifecycle, name, resourceProps("Product", name, args, lifecycle.PRODUCT_OUTPUTS, opts), opts, "serviceapi", "Product");
  }
}
