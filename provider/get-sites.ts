/**
 * `getSites` / `getSite`: the sites of one project, read with `sites.list` (every cursor followed,
 * ⌈N/100⌉ requests). `getSite` picks exactly one by name, subdomain or default flag, to feed `Site`.
 * The lookups themselves are in `lookups.ts`.
 */
import type * as pulumi from "@pulumi/pulumi";
import { findSite, listSites, type GetSiteArgs, type SiteInfo } from "./lookups";
import { invokeOutput, withProgramClient } from "./program-client";

export type { GetSiteArgs, SiteInfo };

export interface GetSitesArgs {
  projectId: string;
}
export interface GetSitesOutputArgs {
  projectId: pulumi.Input<string>;
}
export interface GetSitesResult {
  projectId: string;
  sites: SiteInfo[];
}

export async function getSites(args: GetSitesArgs, _opts?: pulumi.InvokeOptions): Promise<GetSitesResult> {
  return sitesResult("getSites", args);
}

export function getSitesOutput(args: GetSitesOutputArgs, opts?: pulumi.InvokeOutputOptions): pulumi.Output<GetSitesResult> {
  return invokeOutput<GetSitesArgs, GetSitesResult>(args, opts, (a) => sitesResult("getSitesOutput", a));
}

async function sitesResult(fn: string, args: GetSitesArgs): Promise<GetSitesResult> {
  return { projectId: args.projectId, sites: await withProgramClient(fn, (client) => listSites(client, args.projectId)) };
}

export interface GetSiteOutputArgs {
  projectId: pulumi.Input<string>;
  name?: pulumi.Input<string>;
  subdomain?: pulumi.Input<string>;
  isDefault?: pulumi.Input<true>;
}

export async function getSite(args: GetSiteArgs, _opts?: pulumi.InvokeOptions): Promise<SiteInfo> {
  return withProgramClient("getSite", (client) => findSite(client, "getSite", args, false));
}

export function getSiteOutput(args: GetSiteOutputArgs, opts?: pulumi.InvokeOutputOptions): pulumi.Output<SiteInfo> {
  return invokeOutput<GetSiteArgs, SiteInfo>(args, opts,
    (a, secret) => withProgramClient("getSiteOutput", (client) => findSite(client, "getSiteOutput", a, secret)));
}
