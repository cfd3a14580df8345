/**
 * `Site`: takes over an existing site and manages its name. The API cannot create or delete
 * sites; creating this resource renames the site, and deleting it restores the original name.
 * The lifecycle is `lifecycle/site.ts`; the engine reaches it through `dynamic/site.ts`; this file
 * is the typed surface.
 */
import * as pulumi from "@pulumi/pulumi";
import * as provider from "./dynamic/site";
import { SITE_OUTPUTS, type SiteInputs } from "./lifecycle/site";
import { resourceProps, type ResourceArgs } from "./resource-props";

export type SiteArgs = ResourceArgs<SiteInputs>;

export class Site extends pulumi.dynamic.Resource {
  declare readonly projectId: pulumi.Output<string>;
  declare readonly siteId: pulumi.Output<string>;
  declare readonly name: pulumi.Output<string>;
  declare readonly subdomain: pulumi.Output<string | null>;
  declare readonly isDefault: pulumi.Output<boolean | null>;
  /** The name the site had before this stack took it over. */
  declare readonly originalName: pulumi.Output<string | null>;
  declare readonly restoreNameOnDelete: pulumi.Output<boolean>;

  constructor(name: string, args: SiteArgs, opts?: pulumi.CustomResourceOptions) {
    super(provider, name, resourceProps("Site", name, args, SITE_OUTPUTS, opts), opts, "serviceapi", "Site");
  }
}
