/**
 * The catalog's projects, by name, looked up once per run by the tool — not once per stack by each
 * stack's program. One listing (a page per 100 projects) is also the run's token check: a token the
 * service refuses costs one request, not one per stack, and stops the run before any stack. A name
 * that matches no project, or several, stops it too, naming each file and key with at most a few
 * close names — never an id, since this text lands in CI logs and pull request comments (two
 * projects of one name are told apart only by their ids: then, and only then, ids are shown).
 *
 * The sites the catalog names (`kind: site`, by subdomain or as the default site) are found the same
 * way: each project's listing read once (pages of 100), a subdomain that matches none named with the
 * closest ones, before any stack runs.
 */
import { closeNames } from "../resources/close-names";
import {
  AuthenticationError,
  ConnectionError,
  NotFoundError,
  PermissionDeniedError,
  ServiceApiClient,
  TokenRefusedError,
  type ClientOptions,
  type Project,
  type Site,
} from "../client";
import { SITE } from "../resources/site";
import type { Catalog } from "./catalog";
import { CatalogError } from "./errors";

/** A site entry's site as the run's listing showed it: its id, and the fields of the Site's table by their names (`name`, …). */
export interface FoundSite {
  id: string;
  fields: Record<string, unknown>;
}

export interface Projects {
  /** Project name → id, for every name the catalog uses. */
  ids: Map<string, string>;
  /** Each site entry's site, by key: its id and its name on the service now. */
  sites: Map<string, FoundSite>;
  /** Requests the listings sent. */
  requests: number;
}

export async function resolveProjects(catalog: Catalog, settings: ClientOptions): Promise<Projects> {
  const client = new ServiceApiClient({ ...settings, maxRetries: 1 });
  const all: Project[] = [];
  let requests = 0;
  try {
    for await (const page of client.listProjects({ limit: 100 }).pages()) {
      requests += 1;
      all.push(...page.items);
    }
  } catch (error) {
    const advice = adviceFor(error, settings.baseUrl);
    throw new CatalogError(`no stack was run: ${(error as Error).message}${advice === undefined ? "" : `. ${advice}`}`);
  } finally {
    await client.close();
  }
  const byName = new Map<string, Project[]>();
  for (const project of all) if (project.name !== null) byName.set(project.name, [...(byName.get(project.name) ?? []), project]);
  const ids = new Map<string, string>();
  // Problems by file and name: one line for the 40 entries of a file that misspell the same project.
  const missing = new Map<string, { file: string; name: string; keys: string[] }>();
  for (const product of catalog.values()) {
    const name = product.entry.project;
    if (name === undefined) continue;
    const found = byName.get(name) ?? [];
    if (found.length === 1) {
      ids.set(name, found[0]!.id);
      continue;
    }
    const at = JSON.stringify([product.file, name]);
    const entry = missing.get(at) ?? { file: product.file, name, keys: [] };
    entry.keys.push(product.key);
    missing.set(at, entry);
  }
  const problems: string[] = [];
  for (const { file, name, keys } of missing.values()) {
    const found = byName.get(name) ?? [];
    keys.sort();
    const shownKeys = keys.length <= 3 ? keys.join(", ") : `${keys.slice(0, 3).join(", ")} and ${keys.length - 3} more`;
    const where = `${file}: ${shownKeys}: project ${JSON.stringify(name)}`;
    if (found.length === 0) {
      const close = closeNames(name, [...byName.keys()]);
      problems.push(
        `${where} is not a project this token can see (${all.length} listed)` +
          (close.length > 0 ? `; the closest: ${close.map((n) => JSON.stringify(n)).join(", ")}` : "") +
          ". Check the name, or give projectId",
      );
    } else {
      problems.push(`${where} names ${found.length} projects (ids ${found.map((p) => p.id).join(", ")}): give projectId instead`);
    }
  }
  if (problems.length > 0) {
    const shown = problems.slice(0, 50);
    const more = problems.length > shown.length ? `\n  … and ${problems.length - shown.length} more` : "";
    throw new CatalogError(
      `the catalog has ${problems.length} problem(s) with its projects; nothing was run:\n  ${shown.join("\n  ")}${more}`,
    );
  }
  const sites = await resolveSites(catalog, ids, settings);
  return { ids, sites: sites.found, requests: requests + sites.requests };
}

/** The sites the catalog's site entries name: each project's listing read once, the problems of all of them in one refusal. */
async function resolveSites(
  catalog: Catalog,
  projectIds: Map<string, string>,
  settings: ClientOptions,
): Promise<{ found: Map<string, FoundSite>; requests: number }> {
  const entries = [...catalog.values()].flatMap((item) => (item.kind === "site" ? [item] : []));
  const found = new Map<string, FoundSite>();
  if (entries.length === 0) return { found, requests: 0 };
  const projectOf = (item: (typeof entries)[number]) => item.entry.projectId ?? projectIds.get(item.entry.project!)!;
  const client = new ServiceApiClient({ ...settings, maxRetries: 1 });
  const listings = new Map<string, Site[]>();
  let requests = 0;
  try {
    for (const projectId of new Set(entries.map(projectOf))) {
      const listed: Site[] = [];
      for await (const page of client.listSites({ projectId, limit: 100 }).pages()) {
        requests += 1;
        listed.push(...page.items);
      }
      listings.set(projectId, listed);
    }
  } catch (error) {
    throw new CatalogError(`no stack was run: the sites of the catalog's projects could not be listed: ${(error as Error).message}`);
  } finally {
    await client.close();
  }
  const problems: string[] = [];
  for (const item of entries) {
    const listed = listings.get(projectOf(item)) ?? [];
    const site =
      item.entry.default === true ? listed.find((s) => s.is_default === true) : listed.find((s) => s.subdomain === item.entry.subdomain);
    if (site?.id !== undefined) {
      found.set(item.key, { id: site.id, fields: SITE.kept(site) });
      continue;
    }
    const project = item.entry.project === undefined ? "its project" : `project ${JSON.stringify(item.entry.project)}`;
    if (item.entry.default === true)
      problems.push(`${item.file}: ${item.key}: ${project} has no default site (${listed.length} sites listed)`);
    else {
      const close = closeNames(
        item.entry.subdomain!,
        listed.flatMap((s) => (s.subdomain === undefined ? [] : [s.subdomain])),
      );
      problems.push(
        `${item.file}: ${item.key}: ${project} has no site with subdomain ${JSON.stringify(item.entry.subdomain)} (${listed.length} sites listed)` +
          (close.length > 0 ? `; the closest: ${close.map((n) => JSON.stringify(n)).join(", ")}` : ""),
      );
    }
  }
  // One site, one entry, by the site itself: a project's default site and its subdomain, or a project by name and
  // by id, are two ways to name one site (the files' check compares only what the entries say).
  const byId = new Map<string, string>();
  for (const item of entries) {
    const id = found.get(item.key)?.id.toLowerCase();
    if (id === undefined) continue;
    const other = byId.get(id);
    if (other !== undefined)
      problems.push(`${item.file}: ${item.key}: names the same site as ${other}: one site, one entry (remove one of the two)`);
    else byId.set(id, item.key);
  }
  if (problems.length > 0)
    throw new CatalogError(`the catalog has ${problems.length} problem(s) with its sites; nothing was run:\n  ${problems.join("\n  ")}`);
  return { found, requests };
}

/** The setting to look at when the run's first request fails: the listing is where a wrong token or URL shows first. */
function adviceFor(error: unknown, baseUrl: string | undefined): string | undefined {
  const url = "SERVICEAPI_BASE_URL (or --config serviceapi:baseUrl)";
  if (error instanceof AuthenticationError || error instanceof TokenRefusedError || error instanceof PermissionDeniedError)
    return "Check SERVICEAPI_TOKEN: a token of this service that may list its projects (a rotated token: the new one)";
  if (error instanceof ConnectionError) return `Check ${url}: the service's origin, reachable from this machine`;
  if (error instanceof NotFoundError) {
    const path = baseUrl === undefined ? "/" : new URL(baseUrl).pathname;
    return `Check ${url}: the service's origin (https://host)${path !== "/" ? `, without the path ${path}` : ""}`;
  }
  return undefined;
}
