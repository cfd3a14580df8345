/**
 * What the engine tests' program declares: whatever the stack's `spec` config holds, so one program
 * serves every scenario and a test changes the stack by changing config, as a user edits code.
 *
 * Two callers, one declaration: `index.ts` (the program a `pulumi` command runs as a Node.js process
 * under the language host — a test's `spawnCli`, a killed run) and the engine driver, which hands it
 * to the Automation API as an inline program: the CLI calls back into the test's own process, with
 * no language host and no program process (about 1.2 s of CPU each, a third of a driver-based
 * file's; CONTRIBUTING, "The CI budget").
 *
 * `projectId: "$project"` takes the id from the `lookups.projectName` lookup, and
 * `siteId: "$siteByName"` the id from the `lookups.siteName` lookup, as a user wires data sources
 * into resources.
 */
import * as pulumi from "@pulumi/pulumi";
import type { ProgramSpec } from "./spec";

/**
 * The package, as its caller resolved it: the installed `pulumi-serviceapi` either way. Passed in, not
 * imported here: compiled into `dist/` (the bench's driver), this file's nearest package.json is
 * `dist/package.json`, a copy of the repository's, so the package's own name would resolve to
 * `dist/dist/…` (Node.js's self-reference), not to node_modules.
 */
type Package = typeof import("pulumi-serviceapi");

/** The stack outputs the program returns (the module's exports, for the process program). */
export interface SpecOutputs {
  found: Record<string, pulumi.Output<unknown>>;
  products: Record<string, unknown>;
  sites: Record<string, unknown>;
  tasks: Record<string, unknown>;
}

export function declareSpec(sdk: Package): SpecOutputs {
  const { Product, Site, Task, getProjectOutput, getProjectsOutput, getSiteOutput, getSitesOutput } = sdk;
  const spec = new pulumi.Config().requireObject<ProgramSpec>("spec");

  /** Data-source results, only for the lookups the spec asks for. */
  const lookups = spec.lookups ?? {};
  const lookupName = (name: string) => (lookups.secretName ? pulumi.secret(name) : name);
  const found: Record<string, pulumi.Output<unknown>> = {};
  const project =
    lookups.projectName === undefined
      ? undefined
      : getProjectOutput({ name: lookupName(lookups.projectName), workspaceId: lookups.workspaceId });
  if (project) found.project = project;
  if (lookups.workspaceId !== undefined)
    found.projectCount = getProjectsOutput({ workspaceId: lookups.workspaceId }).projects.apply((p) => p.length);
  if (lookups.sitesOf !== undefined) found.siteCount = getSitesOutput({ projectId: lookups.sitesOf }).sites.apply((s) => s.length);
  if (lookups.sitesOf !== undefined && lookups.siteSubdomain !== undefined) {
    found.site = getSiteOutput({ projectId: lookups.sitesOf, subdomain: lookups.siteSubdomain });
  }
  const siteByName =
    lookups.sitesOf !== undefined && lookups.siteName !== undefined
      ? getSiteOutput({ projectId: lookups.sitesOf, name: lookupName(lookups.siteName) })
      : undefined;
  if (siteByName) found.siteByName = siteByName;

  function wired<T extends { projectId?: unknown; siteId?: unknown }>(args: T): T {
    const out: Record<string, unknown> = { ...args };
    if (args.projectId === "$project") out.projectId = project!.id;
    if (args.siteId === "$siteByName") out.siteId = siteByName!.id;
    if (!spec.secretInputs) return out as T;
    return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, typeof v === "string" ? pulumi.secret(v) : v])) as T;
  }

  const products = Object.fromEntries(
    Object.entries(spec.products ?? {}).map(([name, args]) => {
      const p = new Product(name, wired(args), spec.imports?.[name] === undefined ? undefined : { import: spec.imports[name] });
      return [name, { id: p.id, status: p.status, type: p.type, title: p.title }];
    }),
  );

  const sites = Object.fromEntries(
    Object.entries(spec.sites ?? {}).map(([name, args]) => {
      const s = new Site(name, wired(args));
      return [name, { id: s.id, name: s.name, subdomain: s.subdomain, originalName: s.originalName }];
    }),
  );

  const tasks = Object.fromEntries(
    Object.entries(spec.tasks ?? {}).map(([name, args]) => {
      const t = new Task(name, wired(args));
      return [name, { id: t.id, nextRunAt: t.nextRunAt, createdAt: t.createdAt }];
    }),
  );
  return { found, products, sites, tasks };
}
