/**
 * `getSites` / `getSite`: the sites of one project, read with `sites.list` (every cursor followed,
 * ⌈N/100⌉ requests). `getSite` picks exactly one by name, subdomain or default flag, to feed `Site`.
 */
import type * as pulumi from "@pulumi/pulumi";
import { requireId } from "./omitted-id";
import { exactlyOne, invokeOutput, withProgramClient } from "./program-client";

export interface SiteInfo {
  id: string;
  /** Null when the service returns no name (the spec does not mark it required). */
  name: string | null;
  subdomain: string | null;
  isDefault: boolean | null;
}

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
  const sites = await withProgramClient(async (client) => {
    const all: SiteInfo[] = [];
    for await (const listed of client.listSites({ projectId: args.projectId })) {
      const s = requireId(listed, "getSites: sites.list", "site", "getSites and getSite give each site's id, which a Site needs as siteId.");
      all.push({ id: s.id, name: s.name ?? null, subdomain: s.subdomain ?? null, isDefault: s.is_default ?? null });
    }
    return all;
  });
  return { projectId: args.projectId, sites };
}

export function getSitesOutput(args: GetSitesOutputArgs, opts?: pulumi.InvokeOutputOptions): pulumi.Output<GetSitesResult> {
  return invokeOutput<GetSitesArgs, GetSitesResult>(args, opts, (a) => getSites(a));
}

export interface GetSiteArgs {
  projectId: string;
  /** Exactly one of `name`, `subdomain` and `isDefault: true`. */
  name?: string;
  subdomain?: string;
  isDefault?: true;
}
export interface GetSiteOutputArgs {
  projectId: pulumi.Input<string>;
  name?: pulumi.Input<string>;
  subdomain?: pulumi.Input<string>;
  isDefault?: pulumi.Input<true>;
}

export async function getSite(args: GetSiteArgs, _opts?: pulumi.InvokeOptions): Promise<SiteInfo> {
  const selectors = [args.name, args.subdomain, args.isDefault].filter((v) => v !== undefined);
  if (selectors.length !== 1 || (args.isDefault !== undefined && args.isDefault !== true)) {
    throw new Error("getSite: pass exactly one of `name`, `subdomain` and `isDefault: true`");
  }
  const { sites } = await getSites({ projectId: args.projectId });
  const where = `in project ${args.projectId}`;
  if (args.name !== undefined) {
    return exactlyOne("getSite", `site is named ${JSON.stringify(args.name)} ${where}`, sites.filter((s) => s.name === args.name),
      sites.length, "Use subdomain to choose.");
  }
  if (args.subdomain !== undefined) {
    return exactlyOne("getSite", `site has subdomain ${JSON.stringify(args.subdomain)} ${where}`,
      sites.filter((s) => s.subdomain === args.subdomain), sites.length, "Check the subdomain.");
  }
  return exactlyOne("getSite", `site is the default ${where}`, sites.filter((s) => s.isDefault === true), sites.length,
    "Use name or subdomain instead.");
}

export function getSiteOutput(args: GetSiteOutputArgs, opts?: pulumi.InvokeOutputOptions): pulumi.Output<SiteInfo> {
  return invokeOutput<GetSiteArgs, SiteInfo>(args, opts, (a) => getSite(a));
}
