/**
 * The lookups behind the data sources (`getProjects`, `getProject`, `getSites`, `getSite`), over
 * a client: the program's data sources and the plugin's functions both call these, so they find
 * the same records and say the same things when they find none or several.
 */
import type { ServiceApiClient } from "./client";
import { requireId } from "./omitted-id";

export interface ProjectInfo {
  id: string;
  /** May be null: the API allows unnamed projects. */
  name: string | null;
  workspaceId: string;
}

export interface SiteInfo {
  id: string;
  /** Null when the service returns no name (the spec does not mark it required). */
  name: string | null;
  subdomain: string | null;
  isDefault: boolean | null;
}

export interface GetProjectArgs {
  /** Exactly one of `name` and `id`. */
  name?: string;
  id?: string;
  /** Narrows a name lookup to one workspace. */
  workspaceId?: string;
}

export interface GetSiteArgs {
  projectId: string;
  /** Exactly one of `name`, `subdomain` and `isDefault: true`. */
  name?: string;
  subdomain?: string;
  isDefault?: true;
}

/** A lookup that found no record, several, or was asked wrongly; its message names the function. */
export class LookupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LookupError";
  }
}

/** Every project the token can act on (every cursor followed: ⌈N/100⌉ requests). */
export async function listProjects(client: ServiceApiClient, workspaceId?: string): Promise<ProjectInfo[]> {
  const all: ProjectInfo[] = [];
  for await (const p of client.listProjects(workspaceId === undefined ? {} : { workspaceId })) {
    all.push({ id: p.id, name: p.name, workspaceId: p.workspaceId });
  }
  return all;
}

/** Every site of a project (every cursor followed). */
export async function listSites(client: ServiceApiClient, projectId: string): Promise<SiteInfo[]> {
  const all: SiteInfo[] = [];
  for await (const listed of client.listSites({ projectId })) {
    const s = requireId(listed, "sites.list", "site", "getSites and getSite give each site's id, which a Site needs as siteId.");
    all.push({ id: s.id, name: s.name ?? null, subdomain: s.subdomain ?? null, isDefault: s.is_default ?? null });
  }
  return all;
}

/** Exactly one project by name or id; zero or several matches is an error listing candidates. `secret`: never quote the argument. */
export async function findProject(client: ServiceApiClient, fn: string, args: GetProjectArgs, secret: boolean): Promise<ProjectInfo> {
  if ((args.name === undefined) === (args.id === undefined)) throw new LookupError(`${fn}: pass exactly one of \`name\` and \`id\``);
  const projects = await listProjects(client, args.workspaceId);
  const scope = args.workspaceId === undefined ? "" : ` in workspace ${args.workspaceId}`;
  const show = (p: ProjectInfo) => `${p.name === null ? "(unnamed)" : JSON.stringify(p.name)} (id ${p.id}, workspace ${p.workspaceId})`;
  const noun = ["project", "projects"] as const;
  if (args.id !== undefined) {
    const id = args.id.toLowerCase();
    const given = quoted(args.id, secret);
    return exactlyOne(fn, noun, [`has id ${given}${scope}`, `have id ${given}${scope}`], projects.filter((p) => p.id.toLowerCase() === id),
      projects, show, { none: "Check the id and that the token can see the project.", several: "The service listed one id twice." });
  }
  const given = quoted(args.name!, secret);
  return exactlyOne(fn, noun, [`is named ${given}${scope}`, `are named ${given}${scope}`], projects.filter((p) => p.name === args.name),
    projects, show, {
      none: "Check the name (it is matched exactly, case included).",
      several: args.workspaceId === undefined ? "Pass workspaceId or id to choose." : "Pass id to choose.",
    });
}

/** Exactly one site of a project by name, subdomain or default flag. `secret`: never quote the argument. */
export async function findSite(client: ServiceApiClient, fn: string, args: GetSiteArgs, secret: boolean): Promise<SiteInfo> {
  const selectors = [args.name, args.subdomain, args.isDefault].filter((v) => v !== undefined);
  if (selectors.length !== 1 || (args.isDefault !== undefined && args.isDefault !== true)) {
    throw new LookupError(`${fn}: pass exactly one of \`name\`, \`subdomain\` and \`isDefault: true\``);
  }
  const sites = await listSites(client, args.projectId);
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

/** `"Shop"`, or a placeholder when the argument is a secret (no message quotes a secret). */
function quoted(value: string, secret: boolean): string {
  return secret ? "(the secret value given)" : JSON.stringify(value);
}

const SHOWN_CANDIDATES = 5;

/**
 * The one record matching a lookup, or an error that says whether there were none or several,
 * listing up to five of the candidates so the user can pick one. `criterion` is how the lookup
 * reads, singular and plural: `["is named \"Shop\"", "are named \"Shop\""]`.
 */
function exactlyOne<T>(
  fn: string, noun: readonly [string, string], criterion: readonly [string, string], matches: T[], all: T[], show: (record: T) => string,
  hint: { none: string; several: string },
): T {
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) {
    const listed = all.length === 0 ? `the token can see no ${noun[1]} here`
      : `the ${all.length} listed ${all.length === 1 ? `${noun[0]} is` : `${noun[1]} are`}: ${candidates(all, show)}`;
    throw new LookupError(`${fn}: no ${noun[0]} ${criterion[0]}; ${listed}. ${hint.none}`);
  }
  throw new LookupError(`${fn}: ${matches.length} ${noun[1]} ${criterion[1]}: ${candidates(matches, show)}. ${hint.several}`);
}

function candidates<T>(records: T[], show: (record: T) => string): string {
  const shown = records.slice(0, SHOWN_CANDIDATES).map(show).join(", ");
  return records.length > SHOWN_CANDIDATES ? `${shown}, and ${records.length - SHOWN_CANDIDATES} more` : shown;
}
