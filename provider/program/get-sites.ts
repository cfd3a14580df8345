/**
 * `getSites` / `getSite`: the sites of one project, read with `sites.list` (every cursor followed,
 * ⌈N/100⌉ requests). `getSite` picks exactly one by name, subdomain or default flag, to feed `Site`.
 * Arguments and results are declared once, in `resources/lookups.ts`.
 */
import type * as pulumi from "@pulumi/pulumi";
import { LOOKUPS, findSite, type GetSiteArgs, type GetSitesArgs, type GetSitesResult, type SiteInfo } from "../resources/lookups";
import { invokeOutput, withProgramClient, type InputArgs } from "./program-client";

export type { GetSiteArgs, GetSitesArgs, GetSitesResult, SiteInfo };
export type GetSitesOutputArgs = InputArgs<GetSitesArgs>;
export type GetSiteOutputArgs = InputArgs<GetSiteArgs>;

export async function getSites(args: GetSitesArgs, _opts?: pulumi.InvokeOptions): Promise<GetSitesResult> {
  return withProgramClient("getSites", (client) => LOOKUPS.getSites.run(client, args, false));
}

export function getSitesOutput(args: GetSitesOutputArgs, opts?: pulumi.InvokeOutputOptions): pulumi.Output<GetSitesResult> {
  return invokeOutput<GetSitesArgs, GetSitesResult>(args, opts, (a) =>
    withProgramClient("getSitesOutput", (client) => LOOKUPS.getSites.run(client, a, false)),
  );
}

export async function getSite(args: GetSiteArgs, _opts?: pulumi.InvokeOptions): Promise<SiteInfo> {
  return withProgramClient("getSite", (client) => findSite(client, "getSite", args, false));
}

export function getSiteOutput(args: GetSiteOutputArgs, opts?: pulumi.InvokeOutputOptions): pulumi.Output<SiteInfo> {
  return invokeOutput<GetSiteArgs, SiteInfo>(args, opts, (a, secret) =>
    withProgramClient("getSiteOutput", (client) => findSite(client, "getSiteOutput", a, secret)),
  );
}
