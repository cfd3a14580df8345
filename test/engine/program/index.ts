/**
 * The engine tests' program. It declares whatever the `engine:spec` config holds, so one program
 * serves every scenario and a test changes the stack by changing config, as a user edits code.
 */
import * as pulumi from "@pulumi/pulumi";
import {
  Product, Site, Task, getProjectOutput, getProjectsOutput, getSiteOutput, getSitesOutput,
  type ProductArgs, type SiteArgs, type TaskArgs,
} from "pulumi-serviceapi";

interface Spec {
  products?: Record<string, ProductArgs>;
  sites?: Record<string, SiteArgs>;
  tasks?: Record<string, TaskArgs>;
  /** Data-source lookups whose results become stack outputs. */
  lookups?: { projectName?: string; workspaceId?: string; sitesOf?: string; siteSubdomain?: string };
}

const spec = new pulumi.Config().requireObject<Spec>("spec");

export const products = Object.fromEntries(Object.entries(spec.products ?? {}).map(([name, args]) => {
  const p = new Product(name, args);
  return [name, { id: p.id, status: p.status, type: p.type, title: p.title }];
}));

export const sites = Object.fromEntries(Object.entries(spec.sites ?? {}).map(([name, args]) => {
  const s = new Site(name, args);
  return [name, { id: s.id, name: s.name, subdomain: s.subdomain, originalName: s.originalName }];
}));

export const tasks = Object.fromEntries(Object.entries(spec.tasks ?? {}).map(([name, args]) => {
  const t = new Task(name, args);
  return [name, { id: t.id, nextRunAt: t.nextRunAt }];
}));

/** Data-source results, only for the lookups the spec asks for. */
const lookups = spec.lookups ?? {};
export const found: Record<string, pulumi.Output<unknown>> = {};
if (lookups.projectName !== undefined) found.project = getProjectOutput({ name: lookups.projectName, workspaceId: lookups.workspaceId });
if (lookups.workspaceId !== undefined) found.projectCount = getProjectsOutput({ workspaceId: lookups.workspaceId }).projects.apply((p) => p.length);
if (lookups.sitesOf !== undefined) found.siteCount = getSitesOutput({ projectId: lookups.sitesOf }).sites.apply((s) => s.length);
if (lookups.sitesOf !== undefined && lookups.siteSubdomain !== undefined) {
  found.site = getSiteOutput({ projectId: lookups.sitesOf, subdomain: lookups.siteSubdomain });
}
