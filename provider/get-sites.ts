/**
 * `getSites` / `getSite`: the sites of one project, read with `sites.list` (every cursor followed,
 * ⌈N/100⌉ requests). `getSite` picks exactly one by name, subdomain or default flag, to feed `Site`.
 */
import type * as pulumi from "@pulumi/pulumi";
import { requireId } from "./omitted-id";
import { DataSourceError, exactlyOne, invokeOutput, quoted, withProgramClient } from "./program-client";

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
  return listSites("getSites", args);
}

async function listSites(fn: string, args: GetSitesArgs): Promise<GetSitesResult> {
  const sites = await withProgramClient(fn, async (client) => {
    const all: SiteInfo[] = [];
    for await (const listed of client.listSites({ projectId: args.projectId })) {
      const s = requireId(listed, "sites.list", "site", "getSites and getSite give each site's id, which a Site needs as siteId.");
      all.push({ id: s.id, name: s.name ?? null, subdomain: s.subdomain ?? null, isDefault: s.is_default ?? null });
    }
    return all;
  });
  return { projectId: args.projectId, sites };
}

export function getSitesOutput(args: GetSitesOutputArgs, opts?: pulumi.InvokeOutputOptions): pulumi.Output<GetSitesResult> {
  return invokeOutput<GetSitesArgs, GetSitesResult>(args, opts, (a) => listSites("getSitesOutput", a));
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
  return findSite("getSite", args, false);
}

export function getSiteOutput(args: GetSiteOutputArgs, opts?: pulumi.InvokeOutputOptions): pulumi.Output<SiteInfo> {
  return invokeOutput<GetSiteArgs, SiteInfo>(args, opts, (a, secret) => findSite("getSiteOutput", a, secret));
}

async function findSite(fn: string, args: GetSiteArgs, secret: boolean): Promise<SiteInfo> {
  const selectors = [args.name, args.subdomain, args.isDefault].filter((v) => v !== undefined);
  if (selectors.length !== 1 || (args.isDefault !== undefined && args.isDefault !== true)) {
    throw new DataSourceError(`${fn}: pass exactly one of \`name\`, \`subdomain\` and \`isDefault: true\``);
  }
  const { sites } = await listSites(fn, { projectId: args.projectId });
  const where = `in project ${args.projectId}`;
  const show = (s: SiteInfo) => `${s.name === null ? "(unnamed)" : JSON.stringify(s.name)} (subdomain ${s.subdomain === null ? "unknown" : JSON.stringify(s.subdomain)}, id ${s.id})`;
  const noun = ["site", "sites"] as const;
  if (args.name !== undefined) {
    const given = quoted(args.name, secret);
    // A Site resource that renames the site it was found by makes the next lookup miss: say so.
    return exactlyOne(fn, noun, [`is named ${given} ${where}`, `are named ${given} ${where}`], sites.filter((s) => s.name === args.name),
      sites, show, {
        none: "Look the site up by subdomain instead: a name changes when a Site resource renames the site, a subdomain does not.",
        several: "Look the site up by subdomain to choose.",
      });
  }
  if (args.subdomain !== undefined) {
    const given = quoted(args.subdomain, secret);
    return exactlyOne(fn, noun, [`has subdomain ${given} ${where}`, `have subdomain ${given} ${where}`],
      sites.filter((s) => s.subdomain === args.subdomain), sites, show, { none: "Check the subdomain.", several: "Use name to choose." });
  }
  return exactlyOne(fn, noun, [`is the default ${where}`, `are the default ${where}`], sites.filter((s) => s.isDefault === true), sites, show,
    { none: "Use name or subdomain instead.", several: "Use subdomain to choose." });
}
