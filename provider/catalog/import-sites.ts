/**
 * `import --sites`: every site of every project the token can see, written into catalog files as
 * site entries with their live names — one file per project (`<project>-sites.yaml`, a group of
 * its own, so the products' stacks are untouched), keyed by the subdomain (stable: a rename does not
 * change it). No ids file is needed: the API lists sites (pages of 100 per project), so reading
 * them all costs ⌈sites/100⌉ requests per project and no write. The next `preview` takes each site
 * over with no change (`adopt`, nothing sent), since every entry declares the name the site has.
 *
 * A site already named by a catalog entry (same project and subdomain, or its default site) or
 * recorded by a catalog stack is left out, and so is a site with neither a subdomain nor the
 * default flag: an entry names a site by one of the two.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ServiceApiClient, type ClientOptions, type Project, type Site } from "../client";
import { SITE } from "../resources/site";
import type { Discovery } from "./discover";
import { CatalogError } from "./errors";
import { fileSlug, keySlug, projectFiles, writeEntries, type ImportResult } from "./import";

export interface SiteImportOptions {
  catalogDir: string;
  settings: ClientOptions;
}

export async function importSites(discovery: Discovery, options: SiteImportOptions): Promise<ImportResult> {
  const result: ImportResult = { written: new Map(), leftOut: [], unread: [], requests: 0 };
  const client = new ServiceApiClient({
    ...options.settings,
    logger: (event) => {
      if (event.type === "request") result.requests += 1;
    },
  });
  const listed: { project: Project; sites: Site[] }[] = [];
  try {
    const projects = await client.listProjects({ limit: 100 }).toArray();
    for (const project of projects)
      listed.push({ project, sites: await client.listSites({ projectId: project.id, limit: 100 }).toArray() });
  } catch (error) {
    throw new CatalogError(`import --sites: nothing was written: ${(error as Error).message}`);
  } finally {
    await client.close();
  }

  // What the catalog names already: its site entries by project and subdomain (or default), and the sites its stacks record.
  const named = new Set<string>();
  const projectIdOf = new Map(listed.filter(({ project }) => project.name !== null).map(({ project }) => [project.name!, project.id]));
  for (const item of discovery.catalog.values()) {
    if (item.kind !== "site") continue;
    const projectId = item.entry.projectId ?? projectIdOf.get(item.entry.project ?? "");
    named.add(`${projectId}:${item.entry.default === true ? "(default)" : item.entry.subdomain}`);
  }
  const recorded = new Set<string>();
  for (const stack of discovery.stacks.values())
    for (const record of stack.records.values()) if (record.kind === "site") recorded.add(record.id.toLowerCase());

  const { uniqueName: unique, fileOf } = projectFiles(
    listed.map(({ project }) => project),
    "-sites",
  );
  const taken = new Set(discovery.catalog.keys());
  const byFile = new Map<string, { key: string; entry: Record<string, unknown> }[]>();
  // Sites the catalog names already: counted in one line (a second import would otherwise list every one).
  let already = 0;
  for (const { project, sites } of listed) {
    const file = fileOf(project);
    for (const site of sites) {
      if (site.id === undefined) continue;
      const by = site.subdomain ?? (site.is_default === true ? "(default)" : undefined);
      const where = `site ${site.id} of project ${project.name === null ? project.id : JSON.stringify(project.name)}`;
      if (by === undefined) {
        result.leftOut.push(`${where}: no subdomain, and not the project's default site (an entry names a site by one of the two)`);
        continue;
      }
      if (named.has(`${project.id}:${by}`) || recorded.has(site.id.toLowerCase())) {
        already += 1;
        continue;
      }
      // The subdomain as the key; a key the catalog (or another site) has already gets the site's id after it.
      let key = keySlug(site.subdomain ?? `${fileSlug(project.name ?? "") || "project"}-default`) || `site-${site.id.slice(0, 8)}`;
      if (taken.has(key)) key = `${key.slice(0, 190)}-${site.id.slice(0, 8)}`;
      taken.add(key);
      const live = SITE.kept(site);
      const entry: Record<string, unknown> = {
        kind: "site",
        ...(unique(project) ? { project: project.name } : { projectId: project.id }),
        ...(typeof site.subdomain === "string" ? { subdomain: site.subdomain } : { default: true }),
        // Every field a site entry may set (the Site's table: `name`, …), as the service shows it; none it holds no value for.
        ...Object.fromEntries(
          SITE.updatable
            .map(SITE.property)
            .flatMap((field) => (live[field] === null || live[field] === undefined ? [] : [[field, live[field]]])),
        ),
      };
      byFile.set(file, [...(byFile.get(file) ?? []), { key, entry }]);
    }
  }
  if (already > 0)
    result.leftOut.unshift(`${already} site(s) already in the catalog (an entry names it, or a stack of the catalog records it)`);
  mkdirSync(options.catalogDir, { recursive: true });
  for (const [file, entries] of [...byFile].sort(([a], [b]) => (a < b ? -1 : 1))) {
    writeEntries(join(options.catalogDir, file), entries);
    result.written.set(file, entries.map((e) => e.key).sort());
  }
  return result;
}
