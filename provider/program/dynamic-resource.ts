/**
 * What `Product`, `Site` and `Task` have in common: one constructor, so the three resource classes
 * cannot differ in how they build their props or keep the SDK's promise traces off.
 */
import { Resource, type ResourceProvider } from "@pulumi/pulumi/dynamic";
import type { CustomResourceOptions } from "@pulumi/pulumi/resource";
import type { ResourceFields } from "../resources/field-table";
import { resourceProps, withoutPromiseTraces, type ResourceArgs } from "./resource-props";

export abstract class ServiceApiResource<Inputs> extends Resource {
  /**
   * `type` makes the token `pulumi-nodejs:dynamic/serviceapi:<type>`, which every stack's state holds:
   * it never changes. `registered`: the options the resource is registered with, where they add to
   * the program's `opts` (which `resourceProps` checks as given).
   */
  protected constructor(
    provider: ResourceProvider,
    type: "Product" | "Site" | "Task",
    fields: ResourceFields<Inputs>,
    name: string,
    args: ResourceArgs<Inputs>,
    opts: CustomResourceOptions | undefined,
    registered: CustomResourceOptions | undefined = opts,
  ) {
    const props = resourceProps(fields, name, args, opts);
    const restore = withoutPromiseTraces();
    try {
      super(provider, name, props, registered, "serviceapi", type);
    } finally {
      restore();
    }
  }
}
