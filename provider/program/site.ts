/**
 * `Site`: takes over an existing site and manages its name. The API cannot create or delete
 * sites; creating this resource renames the site, and deleting it restores the original name.
 * The lifecycle is `resources/site.ts`; the engine reaches it through `dynamic/site.ts`; this file
 * is the typed surface: `SiteArgs` and the outputs are the lifecycle's own types.
 */
import type * as pulumi from "@pulumi/pulumi";
import * as provider from "../dynamic/site";
import { SITE_FIELDS, type SiteInputs, type SiteOutputs } from "../resources/site";
import { ServiceApiResource } from "./dynamic-resource";
import type { ResourceArgs, ResourceOutputs } from "./resource-props";

export type SiteArgs = ResourceArgs<SiteInputs>;

// The outputs (name, subdomain, originalName — the name before this stack took the site over — …),
// typed from the lifecycle's `SiteOutputs`; the SDK sets each on the instance.
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- the SDK defines these properties at run time
export interface Site extends ResourceOutputs<SiteOutputs> {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class Site extends ServiceApiResource<SiteInputs> {
  constructor(name: string, args: SiteArgs, opts?: pulumi.CustomResourceOptions) {
    super(provider, "Site", SITE_FIELDS, name, args, opts);
  }
}
