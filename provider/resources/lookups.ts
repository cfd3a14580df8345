/**
 * The lookups behind the data sources (`getProjects`, `getProject`, `getSites`, `getSite`), over
 * a client: the program's data sources and the plugin's functions both call these, so they find
 * the same records and say the same things when they find none or several.
 */
import { z } from "zod";
import type { ServiceApiClient } from "../client";
import { fieldNames, propertyName, type PropertyName } from "../contract/fields";
import { parseWithIssues } from "../contract/issues";
import { SITE_FIELD_SPECS, type SiteSpecs } from "../contract/schemas";
import type { KeptValue } from "./api-fields";
import { closeNames } from "./close-names";
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

/** A site as `getSite` and `getSites` give it: its id, and every field of the contract's site table (`null` where the listing lacks it), described as the table's `listed` says. */
export type SiteInfo = { id: string } & { [K in keyof SiteSpecs as PropertyName<K>]: Exclude<KeptValue<SiteSpecs[K]>, undefined> | null };
export const SiteInfo = z
  .object({
    id: z.string().describe("The site's id: the siteId of a Site."),
    ...Object.fromEntries(
      fieldNames(SITE_FIELD_SPECS).map((field) => {
        const spec: { record: z.ZodType; listed: string } = SITE_FIELD_SPECS[field];
        const value = spec.record instanceof z.ZodOptional ? (spec.record.unwrap() as z.ZodType) : spec.record;
        return [propertyName(field), value.nullable().describe(spec.listed)];
      }),
    ),
  })
  .describe("A site of a project.") as unknown as z.ZodType<SiteInfo>;

/** A listed site as a lookup gives it: each field of the table by the resource's name, `null` where the listing lacks it. */
function siteInfo(site: Record<string, unknown> & { id: string }): SiteInfo {
  return {
    id: site.id,
    ...Object.fromEntries(fieldNames(SITE_FIELD_SPECS).map((field) => [propertyName(field), site[field] ?? null])),
  } as SiteInfo;
}

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
    description: "Exactly one project, by name or id; no match fails naming up to three close names, several fail saying how to choose.",
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
      "Exactly one site of a project, by name, subdomain or isDefault: true; no match fails naming up to three close ones, several fail saying how to choose.",
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
    all.push(siteInfo(s));
  }
  return all;
}

/*
 * A lookup that misses says how many records it listed and, for a name or subdomain, up to three
 * close ones (a typo is the usual cause) — never the whole list, and never an id: the message lands
 * in CI logs and pull-request comments, and the token may see projects the reader has no business
 * learning the ids of. A secret argument is never quoted, and nor are names close to it (they would
 * tell the secret, nearly).
 */

/** Exactly one project by name or id; zero or several matches is an error saying what to do. `secret`: never quote the argument. */
export async function findProject(client: ServiceApiClient, fn: string, args: GetProjectArgs, secret: boolean): Promise<ProjectInfo> {
  if ((args.name === undefined) === (args.id === undefined)) throw new LookupError(`${fn}: pass exactly one of \`name\` and \`id\``);
  const projects = await listProjects(client, args.workspaceId);
  const scope = args.workspaceId === undefined ? "" : secret ? " in the workspace given" : ` in workspace ${args.workspaceId}`;
  const noun = ["project", "projects"] as const;
  if (args.id !== undefined) {
    const id = args.id.toLowerCase();
    const matches = projects.filter((p) => p.id.toLowerCase() === id);
    if (matches.length === 1) return matches[0]!;
    const given = quoted(args.id, secret);
    if (matches.length === 0) {
      throw noMatch(
        fn,
        noun,
        `has id ${given}${scope}`,
        projects.length,
        undefined,
        "Check the id and that the token can see the project.",
      );
    }
    throw new LookupError(`${fn}: ${matches.length} projects have id ${given}${scope}. The service listed one id twice.`);
  }
  const name = args.name!;
  const matches = projects.filter((p) => p.name === name);
  if (matches.length === 1) return matches[0]!;
  const given = quoted(name, secret);
  if (matches.length === 0) {
    const names = projects.flatMap((p) => (p.name === null ? [] : [p.name]));
    const check = `Check the name (it is matched exactly, case included)${args.workspaceId === undefined ? "" : " and workspaceId"}`;
    throw noMatch(
      fn,
      noun,
      `is named ${given}${scope}`,
      projects.length,
      secret ? undefined : closeNames(name, names),
      `${check}, or pass id.`,
    );
  }
  // Projects of one name differ only by workspace and id, and the API names a workspace by its id
  // alone (it has no workspace endpoint, so no workspace name to show): ids are the only way to tell
  // them apart. So this message, and only this one, shows ids — of the projects named as asked,
  // not of every project listed — and a project's own id only when its workspace has another.
  const crowded = (p: ProjectInfo) => matches.filter((q) => q.workspaceId === p.workspaceId).length > 1;
  throw several(
    fn,
    `${matches.length} projects are named ${given}${scope}`,
    matches,
    (p) => (crowded(p) ? `id ${p.id} in workspace ${p.workspaceId}` : `one in workspace ${p.workspaceId}`),
    args.workspaceId === undefined ? "Pass workspaceId or id to choose." : "Pass id to choose.",
  );
}

// Sites of one name or both default differ by subdomain; a site without one (the spec does not
// require it) can be told apart only by its id, so that one is shown with its id.
const bySubdomain = (s: SiteInfo) => (s.subdomain === null ? `id ${s.id} (no subdomain)` : `subdomain ${JSON.stringify(s.subdomain)}`);
const byName = (s: SiteInfo) => (s.name === null ? "(unnamed)" : JSON.stringify(s.name));

/**
 * The keys a site is looked up by, as data: one path (`findSite`) matches, quotes and advises for
 * each, so the two lookups cannot drift apart. `is`/`are`: the criterion for one site and several;
 * `miss`: the advice when none matches; `apart` and `choose`: how several are told apart and chosen.
 */
const SITE_KEYS = {
  name: {
    is: "is named",
    are: "are named",
    // A Site resource that renames the site it was found by makes the next lookup miss: say so.
    miss: "Look the site up by subdomain instead: a name changes when a Site resource renames the site, a subdomain does not.",
    apart: bySubdomain,
    choose: "Look the site up by subdomain to choose.",
  },
  subdomain: { is: "has subdomain", are: "have subdomain", miss: "Check the subdomain.", apart: byName, choose: "Use name to choose." },
} as const;

/** Exactly one site of a project by name, subdomain or default flag. `secret`: never quote the argument. */
export async function findSite(client: ServiceApiClient, fn: string, args: GetSiteArgs, secret: boolean): Promise<SiteInfo> {
  const selectors = [args.name, args.subdomain, args.isDefault].filter((v) => v !== undefined);
  if (selectors.length !== 1 || (args.isDefault !== undefined && args.isDefault !== true)) {
    throw new LookupError(`${fn}: pass exactly one of \`name\`, \`subdomain\` and \`isDefault: true\``);
  }
  const sites = await listSites(client, args.projectId);
  const where = secret ? "in the project given" : `in project ${args.projectId}`;
  const noun = ["site", "sites"] as const;
  const key = args.name !== undefined ? "name" : args.subdomain !== undefined ? "subdomain" : undefined;
  if (key !== undefined) {
    const value = args[key]!;
    const { is, are, miss, apart, choose } = SITE_KEYS[key];
    const matches = sites.filter((s) => s[key] === value);
    if (matches.length === 1) return matches[0]!;
    const given = quoted(value, secret);
    if (matches.length === 0) {
      const known = sites.map((s) => s[key]).filter((v) => v !== null);
      throw noMatch(fn, noun, `${is} ${given} ${where}`, sites.length, secret ? undefined : closeNames(value, known), miss);
    }
    throw several(fn, `${matches.length} sites ${are} ${given} ${where}`, matches, apart, choose);
  }
  const matches = sites.filter((s) => s.isDefault === true);
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) throw noMatch(fn, noun, `is the default ${where}`, sites.length, undefined, "Use name or subdomain instead.");
  throw several(fn, `${matches.length} sites are the default ${where}`, matches, bySubdomain, "Use subdomain to choose.");
}

/** `"Shop"`, or a placeholder when the argument is a secret (no message quotes a secret). */
function quoted(value: string, secret: boolean): string {
  return secret ? "(the secret value given)" : JSON.stringify(value);
}

/**
 * A lookup that matched nothing: `no project is named "Acme Wbe" (4 projects listed); the closest:
 * "Acme Web". <hint>`. `close`: the close names or subdomains found, or undefined where none are
 * offered (an id, a secret argument, the default flag).
 */
function noMatch(
  fn: string,
  noun: readonly [string, string],
  criterion: string,
  listed: number,
  close: readonly string[] | undefined,
  hint: string,
): LookupError {
  const count = `${listed} ${listed === 1 ? noun[0] : noun[1]} listed`;
  const closest =
    close === undefined || listed === 0
      ? `(${count})`
      : close.length === 0
        ? `(${count}, none with a close name)`
        : `(${count}); the closest: ${close.map((n) => JSON.stringify(n)).join(", ")}`;
  return new LookupError(`${fn}: no ${noun[0]} ${criterion} ${closest}. ${hint}`);
}

const SHOWN_CANDIDATES = 5;

/**
 * A lookup that matched several: what tells them apart, for up to five of them, then how many
 * more. `matched` reads like `2 sites are named "Twin" in project …`.
 */
function several<T>(fn: string, matched: string, matches: T[], apart: (record: T) => string, hint: string): LookupError {
  const shown = matches.slice(0, SHOWN_CANDIDATES).map(apart).join(", ");
  const more = matches.length > SHOWN_CANDIDATES ? `, and ${matches.length - SHOWN_CANDIDATES} more` : "";
  return new LookupError(`${fn}: ${matched}: ${shown}${more}. ${hint}`);
}
