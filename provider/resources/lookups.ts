/**
 * The lookups behind the data sources (`getProjects`, `getProject`, `getSites`, `getSite`), over
 * a client: the program's data sources and the plugin's functions both call these, so they find
 * the same records and say the same things when they find none or several.
 */
import { z } from "zod";
import type { ServiceApiClient } from "../client";
import { parseWithIssues } from "../contract/issues";
import { UserError } from "./errors";
import { requireId } from "./omitted-id";

/*
 * The four functions as data: their arguments and results, with the descriptions users read. The
 * program's data sources take their types from these (`z.infer`), the plugin's schema is generated
 * from them (`plugin/schema.ts`), and the plugin's invoke runs `LOOKUPS[name].run`: one declaration
 * each.
 */

export const ProjectInfo = z
  .object({
    id: z.string().describe("The project's id."),
    name: z.string().nullable().describe("The project's name; may be null (the API allows unnamed projects)."),
    workspaceId: z.string().describe("The workspace the project is in."),
  })
  .describe("A project the token can act on.");
export type ProjectInfo = z.infer<typeof ProjectInfo>;

export const SiteInfo = z
  .object({
    id: z.string().describe("The site's id: the siteId of a Site."),
    name: z.string().nullable().describe("The site's current name; may be null (the spec does not mark it required)."),
    subdomain: z.string().nullable().describe("The site's subdomain; may be null. Look a site up by it when a Site renames the site."),
    isDefault: z.boolean().nullable().describe("Whether it is the project's default site; may be null."),
  })
  .describe("A site of a project.");
export type SiteInfo = z.infer<typeof SiteInfo>;

export const GetProjectsArgs = z.object({
  workspaceId: z.string().optional().describe("Only projects of this workspace."),
});
export type GetProjectsArgs = z.infer<typeof GetProjectsArgs>;
export const GetProjectsResult = z.object({
  workspaceId: z.string().optional().describe("The workspace asked for, if one was."),
  projects: z.array(ProjectInfo).describe("Every project the token can act on (in the workspace, if one was given)."),
});
export type GetProjectsResult = z.infer<typeof GetProjectsResult>;

export const GetProjectArgs = z.object({
  name: z.string().optional().describe("The project's name, matched exactly (exactly one of name and id)."),
  id: z.string().optional().describe("The project's id (exactly one of name and id)."),
  workspaceId: z.string().optional().describe("Narrows a name lookup to one workspace."),
});
export type GetProjectArgs = z.infer<typeof GetProjectArgs>;

export const GetSitesArgs = z.object({
  projectId: z.string().describe("The project whose sites to list."),
});
export type GetSitesArgs = z.infer<typeof GetSitesArgs>;
export const GetSitesResult = z.object({
  projectId: z.string().describe("The project asked for."),
  sites: z.array(SiteInfo).describe("Every site of the project."),
});
export type GetSitesResult = z.infer<typeof GetSitesResult>;

export const GetSiteArgs = z.object({
  projectId: z.string().describe("The project the site is in."),
  name: z.string().optional().describe("The site's current name (exactly one of name, subdomain and isDefault: true)."),
  subdomain: z.string().optional().describe("The site's subdomain, which survives a rename."),
  isDefault: z.literal(true).optional().describe("true: the project's default site."),
});
export type GetSiteArgs = z.infer<typeof GetSiteArgs>;

/** A function's declaration: what it takes, what it gives, and how it runs over a client. */
export interface LookupFunction<A, R> {
  description: string;
  args: z.ZodType<A>;
  result: z.ZodType<R>;
  /** `secret`: the arguments are secret, so no message quotes them. */
  run(client: ServiceApiClient, args: A, secret: boolean): Promise<R>;
  /** `run` on arguments as the engine sends them (the plugin's invoke): checked with `args` first. */
  invoke(client: ServiceApiClient, raw: unknown, secret: boolean): Promise<R>;
}

function lookup<A, R>(name: string, declaration: Omit<LookupFunction<A, R>, "invoke">): LookupFunction<A, R> {
  return {
    ...declaration,
    invoke: async (client, raw, secret) => {
      const parsed = parseWithIssues(declaration.args, raw);
      if (!parsed.success) throw new LookupError(`${name}: ${parsed.message}`);
      return declaration.run(client, parsed.data as A, secret);
    },
  };
}

export const LOOKUPS = {
  getProjects: lookup("getProjects", {
    description: "The projects the token can act on (projects.list, every page).",
    args: GetProjectsArgs,
    result: GetProjectsResult,
    run: async (client, args) => ({
      ...(args.workspaceId !== undefined && { workspaceId: args.workspaceId }),
      projects: await listProjects(client, args.workspaceId),
    }),
  }),
  getProject: lookup("getProject", {
    description: "Exactly one project, by name or id; zero or several matches fail, listing up to five candidates.",
    args: GetProjectArgs,
    result: ProjectInfo,
    run: (client, args, secret) => findProject(client, "getProject", args, secret),
  }),
  getSites: lookup("getSites", {
    description: "The sites of one project (sites.list, every page).",
    args: GetSitesArgs,
    result: GetSitesResult,
    run: async (client, args) => ({ projectId: args.projectId, sites: await listSites(client, args.projectId) }),
  }),
  getSite: lookup("getSite", {
    description:
      "Exactly one site of a project, by name, subdomain or isDefault: true; zero or several matches fail, listing up to five candidates.",
    args: GetSiteArgs,
    result: SiteInfo,
    run: (client, args, secret) => findSite(client, "getSite", args, secret),
  }),
};

/** A lookup that found no record, several, or was asked wrongly; its message names the function. */
export class LookupError extends UserError {}

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
    return exactlyOne(
      fn,
      noun,
      [`has id ${given}${scope}`, `have id ${given}${scope}`],
      projects.filter((p) => p.id.toLowerCase() === id),
      projects,
      show,
      { none: "Check the id and that the token can see the project.", several: "The service listed one id twice." },
    );
  }
  const given = quoted(args.name!, secret);
  return exactlyOne(
    fn,
    noun,
    [`is named ${given}${scope}`, `are named ${given}${scope}`],
    projects.filter((p) => p.name === args.name),
    projects,
    show,
    {
      none: "Check the name (it is matched exactly, case included).",
      several: args.workspaceId === undefined ? "Pass workspaceId or id to choose." : "Pass id to choose.",
    },
  );
}

/** Exactly one site of a project by name, subdomain or default flag. `secret`: never quote the argument. */
export async function findSite(client: ServiceApiClient, fn: string, args: GetSiteArgs, secret: boolean): Promise<SiteInfo> {
  const selectors = [args.name, args.subdomain, args.isDefault].filter((v) => v !== undefined);
  if (selectors.length !== 1 || (args.isDefault !== undefined && args.isDefault !== true)) {
    throw new LookupError(`${fn}: pass exactly one of \`name\`, \`subdomain\` and \`isDefault: true\``);
  }
  const sites = await listSites(client, args.projectId);
  const where = `in project ${args.projectId}`;
  const show = (s: SiteInfo) =>
    `${s.name === null ? "(unnamed)" : JSON.stringify(s.name)} (subdomain ${s.subdomain === null ? "unknown" : JSON.stringify(s.subdomain)}, id ${s.id})`;
  const noun = ["site", "sites"] as const;
  if (args.name !== undefined) {
    const given = quoted(args.name, secret);
    // A Site resource that renames the site it was found by makes the next lookup miss: say so.
    return exactlyOne(
      fn,
      noun,
      [`is named ${given} ${where}`, `are named ${given} ${where}`],
      sites.filter((s) => s.name === args.name),
      sites,
      show,
      {
        none: "Look the site up by subdomain instead: a name changes when a Site resource renames the site, a subdomain does not.",
        several: "Look the site up by subdomain to choose.",
      },
    );
  }
  if (args.subdomain !== undefined) {
    const given = quoted(args.subdomain, secret);
    return exactlyOne(
      fn,
      noun,
      [`has subdomain ${given} ${where}`, `have subdomain ${given} ${where}`],
      sites.filter((s) => s.subdomain === args.subdomain),
      sites,
      show,
      { none: "Check the subdomain.", several: "Use name to choose." },
    );
  }
  return exactlyOne(
    fn,
    noun,
    [`is the default ${where}`, `are the default ${where}`],
    sites.filter((s) => s.isDefault === true),
    sites,
    show,
    { none: "Use name or subdomain instead.", several: "Use subdomain to choose." },
  );
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
  fn: string,
  noun: readonly [string, string],
  criterion: readonly [string, string],
  matches: T[],
  all: T[],
  show: (record: T) => string,
  hint: { none: string; several: string },
): T {
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) {
    const listed =
      all.length === 0
        ? `the token can see no ${noun[1]} here`
        : `the ${all.length} listed ${all.length === 1 ? `${noun[0]} is` : `${noun[1]} are`}: ${candidates(all, show)}`;
    throw new LookupError(`${fn}: no ${noun[0]} ${criterion[0]}; ${listed}. ${hint.none}`);
  }
  throw new LookupError(`${fn}: ${matches.length} ${noun[1]} ${criterion[1]}: ${candidates(matches, show)}. ${hint.several}`);
}

function candidates<T>(records: T[], show: (record: T) => string): string {
  const shown = records.slice(0, SHOWN_CANDIDATES).map(show).join(", ");
  return records.length > SHOWN_CANDIDATES ? `${shown}, and ${records.length - SHOWN_CANDIDATES} more` : shown;
}
