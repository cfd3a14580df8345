/**
 * `getSites` / `getSite`: the sites of one project, read with `sites.list` (every cursor followed,
 * ⌈N/100⌉ requests). `getSite` picks exactly one by name, subdomain or default flag, to feed `Site`.
 * Arguments and results are declared once, in `resources/lookups.ts`.
 */
import type * as pulumi from "@pulumi/pulumi";
import { LOOKUPS, findSite, type GetSiteArgs, type GetSitesArgs, type GetSitesResult, type SiteInfo } from "../resources/lookups";
import { dataSource, type InputArgs } from "./program-client";

export type { GetSiteArgs, GetSitesArgs, GetSitesResult, SiteInfo };
export type GetSitesOutputArgs = InputArgs<GetSitesArgs>;
export type GetSiteOutputArgs = InputArgs<GetSiteArgs>;

const sites = dataSource("getSites", (client, _fn, args: GetSitesArgs, secret) => LOOKUPS.getSites.run(client, args, secret));
const site = dataSource("getSite", findSite);

export async function getSites(args: GetSitesArgs, _opts?: pulumi.InvokeOptions): Promise<GetSitesResult> {
  return sites.call(args);
}

export function getSitesOutput(args: GetSitesOutputArgs, opts?: pulumi.InvokeOutputOptions): pulumi.Output<GetSitesResult> {
  return sites.output(args, opts);
}

export async function getSite(args: GetSiteArgs, _opts?: pulumi.InvokeOptions): Promise<SiteInfo> {
  return site.call(args);
}

export function getSiteOutput(args: GetSiteOutputArgs, opts?: pulumi.InvokeOutputOptions): pulumi.Output<SiteInfo> {
  return site.output(args, opts);
}
