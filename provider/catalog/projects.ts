/**
 * The catalog's projects, by name, looked up once per run by the tool — not once per stack by each
 * stack's program. One listing (a page per 100 projects) is also the run's token check: a token the
 * service refuses costs one request, not one per stack, and stops the run before any stack. A name
 * that matches no project, or several, stops it too, naming each file and key with at most a few
 * close names — never an id, since this text lands in CI logs and pull request comments (two
 * projects of one name are told apart only by their ids: then, and only then, ids are shown).
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
} from "../client";
import type { Catalog } from "./catalog";
import { CatalogError } from "./errors";

export interface Projects {
  /** Project name → id, for every name the catalog uses. */
  ids: Map<string, string>;
  /** Requests the listing sent. */
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
  return { ids, requests };
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
