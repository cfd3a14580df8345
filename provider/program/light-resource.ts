/**
 * The package's resources for a program that declares them and nothing else — the catalog's stack
 * programs, a process per stack: the same `Product`, `Site` and `Task` as `product.ts`, `site.ts`
 * and `task.ts` (type token, name, inputs, the program's checks and hints, the provider its state
 * records), built without loading the provider.
 *
 * A resource class hands `pulumi.dynamic.Resource` the provider module, and the SDK serializes it
 * into the `__provider` text on the first resource. That costs the program more than its records
 * do: the provider's own code (the lifecycles, the client, undici), and Pulumi's closure serializer,
 * which loads the whole SDK (its index: the Automation API, npm's arborist and pacote) and
 * TypeScript — about 1,100 modules. The text it makes is always the same for an installed package: a
 * one-line `require` of `pulumi-serviceapi/dynamic/<type>`. So it is written out here
 * ({@link providerStub}; test/catalog/stack-program.test.ts keeps it equal to what the SDK's serializer makes
 * of each provider module), and the resource is the `CustomResource` that `dynamic.Resource` builds from it.
 */
import "../dynamic/node-version"; // first: an older Node gets one clear line, not an error from inside a dependency
import { CustomResource, type CustomResourceOptions } from "@pulumi/pulumi/resource";
import type { ResourceFields } from "../resources/field-table";
import { resourceProps, withoutPromiseTraces } from "./resource-props";

/** A resource as a light program declares it: its token, its provider module (package.json `exports`), its field table. */
export interface LightKind {
  /** `pulumi-nodejs:dynamic/serviceapi:<Type>`, as `dynamic.Resource` names it. */
  type: string;
  /** `pulumi-serviceapi/dynamic/<type>`. */
  module: string;
  fields: ResourceFields<never>;
}

/** The `__provider` of a resource whose provider is `module`: what @pulumi/pulumi's `serializeFunction(() => provider)` makes of it. */
export function providerStub(module: string): string {
  return (
    "exports.handler = __f0;\n" +
    `const provider = require(${JSON.stringify(module)});\n\n` +
    "function __f0() {\n" +
    "  return (function() {\n" +
    "    with({ this: undefined, arguments: undefined }) {\n\n" +
    "return () => provider;\n\n" +
    "    }\n" +
    "  }).apply(undefined, undefined).apply(this, arguments);\n" +
    "}\n"
  );
}

export class LightResource extends CustomResource {
  constructor(kind: LightKind, name: string, args: object, opts?: CustomResourceOptions) {
    const props = resourceProps(kind.fields, name, args, opts);
    const restore = withoutPromiseTraces();
    try {
      // What `dynamic.Resource`'s constructor does with a serialized provider.
      super(kind.type, name, { ...props, __provider: providerStub(kind.module) }, opts);
    } finally {
      restore();
    }
  }
}
