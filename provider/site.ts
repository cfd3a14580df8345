/**
 * `Site`: takes over an existing site and manages its name. The API cannot create or delete
 * sites; creating this resource renames the site, and deleting it restores the original name.
 * The engine talks to `lifecycle/site.ts`; this file is the typed surface.
 */
import * as pulumi from "@pulumi/pulumi";
import * as lifecycle from "./lifecycle/site";
import { resourceProps } from "./resource-props";

export interface SiteArgs {
  /** The project the site is in. Changing it replaces the resource. */
  projectId: pulumi.Input<string>;
  /** The site to manage (see `getSite`). Changing it replaces the resource. */
  siteId: pulumi.Input<string>;
  /** 1 to 255 characters. Updated in place. */
  name: pulumi.Input<string>;
  /** Give the site its original name back on delete. Default true. */
  restoreNameOnDelete?: pulumi.Input<boolean>;
}

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
    super(lifecycle, name, resourceProps("Site", name, args, lifecycle.SITE_OUTPUTS, opts), opts, "serviceapi", "Site");
  }
}
