/**
 * `Product` for a program that declares products and nothing else — the catalog's stack programs,
 * a process per stack: the same resource as `product.ts`'s (type token, name, inputs, the program's
 * checks and hints, the provider its state records), built without loading the provider.
 *
 * `Product` hands `pulumi.dynamic.Resource` the provider module, and the SDK serializes it into the
 * `__provider` text on the first resource. That costs the program more than its products do: the
 * provider's own code (the lifecycles, the client, undici), and Pulumi's closure serializer, which
 * loads the whole SDK (its index: the Automation API, npm's arborist and pacote) and TypeScript —
 * about 1,100 modules. The text it makes is always the same for an installed package: a one-line
 * `require` of `pulumi-serviceapi/dynamic/product`. So it is written out here
 * ({@link PRODUCT_PROVIDER}; test/catalog/program.test.ts keeps it equal to what the SDK's serializer
 * makes of the provider module), and the resource is the `CustomResource` that `dynamic.Resource`
 * builds from it.
 */
import "../dynamic/node-version"; // first: an older Node gets one clear line, not an error from inside a dependency
import { CustomResource, type CustomResourceOptions } from "@pulumi/pulumi/resource";
import { PRODUCT_FIELDS } from "../resources/product/inputs-and-state";
import { DYNAMIC_PRODUCT_TYPE } from "../resources/product/recorded";
import type { ProductArgs } from "./product";
import { resourceProps, withoutPromiseTraces } from "./resource-props";

export type { ProductArgs };

/** Where the provider process finds the provider: the package's export for it (package.json `exports`). */
const PROVIDER_MODULE = "pulumi-serviceapi/dynamic/product";

/** The `__provider` of every `Product`: what @pulumi/pulumi's `serializeFunction(() => provider)` makes of the installed provider module. */
export const PRODUCT_PROVIDER =
  "exports.handler = __f0;\n" +
  `const provider = require(${JSON.stringify(PROVIDER_MODULE)});\n\n` +
  "function __f0() {\n" +
  "  return (function() {\n" +
  "    with({ this: undefined, arguments: undefined }) {\n\n" +
  "return () => provider;\n\n" +
  "    }\n" +
  "  }).apply(undefined, undefined).apply(this, arguments);\n" +
  "}\n";

export class LightProduct extends CustomResource {
  constructor(name: string, args: ProductArgs, opts?: CustomResourceOptions) {
    const props = resourceProps(PRODUCT_FIELDS, name, args, opts);
    const restore = withoutPromiseTraces();
    try {
      // What `dynamic.Resource`'s constructor does with a serialized provider.
      super(DYNAMIC_PRODUCT_TYPE, name, { ...props, __provider: PRODUCT_PROVIDER }, opts);
    } finally {
      restore();
    }
  }
}
