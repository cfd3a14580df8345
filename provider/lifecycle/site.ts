/**
 * The dynamic provider behind `Site` (`site.ts`): a site is never created or deleted through the
 * API, only renamed, so "create" adopts an existing site and "delete" gives it its name back.
 *
 * The API has no GET for one site: finding a site means listing its project. Listings are shared
 * per project for the life of the provider process (one `pulumi` command), so N sites in a
 * project cost one listing (⌈sites/100⌉ requests) at refresh, not N.
 */
import type { Site } from "../client";
import { requireId } from "../omitted-id";
import { UpdateSiteBody, uuid } from "../client/schemas";
import {
  DECLARED, UNKNOWN, apiClient, checkField, checkRequired, cleanInputs, currentSettings, declaredKeys, info, isNotFound,
  refreshedInputs, warn, type CheckFailure,
} from "./common";

export { configure } from "./common";

export interface SiteInputs {
  projectId: string;
  siteId: string;
  name: string;
  restoreNameOnDelete?: boolean;
}

export interface SiteOutputs {
  projectId: string;
  siteId: string;
  name: string;
  subdomain: string | null;
  isDefault: boolean | null;
  /** The name the site had before this stack took it over; restored on delete. */
  originalName: string | null;
  restoreNameOnDelete: boolean;
  [DECLARED]: string[];
}

const INPUT_KEYS = ["projectId", "siteId", "name", "restoreNameOnDelete"] as const;

/** projectId → the project's sites by id. A failed listing is dropped so the next call tries again. */
const listings = new Map<string, Promise<Map<string, Site & { id: string }>>>();

async function findSite(projectId: string, siteId: string): Promise<{ site: (Site & { id: string }) | undefined; count: number }> {
  let listing = listings.get(projectId);
  if (!listing) {
    listing = (async () => {
      const byId = new Map<string, Site & { id: string }>();
      for await (const listed of apiClient().listSites({ projectId })) {
        const site = requireId(listed, "sites.list", "site", "A Site is found and renamed by its id, so the sites of this project cannot be managed.");
        byId.set(site.id.toLowerCase(), site);
      }
      return byId;
    })();
    listings.set(projectId, listing);
    listing.catch(() => listings.delete(projectId));
  }
  const byId = await listing;
  return { site: byId.get(siteId.toLowerCase()), count: byId.size };
}

/** Keeps the shared listing in step with our own renames; an answer without an id drops it, to be listed again. */
async function remember(projectId: string, site: Site): Promise<void> {
  const listing = listings.get(projectId);
  if (site.id === undefined) listings.delete(projectId);
  else if (listing) (await listing.catch(() => undefined))?.set(site.id.toLowerCase(), { ...site, id: site.id });
}

export async function check(_olds: unknown, news: Record<string, unknown>): Promise<{ inputs: SiteInputs; failures: CheckFailure[] }> {
  currentSettings();
  const failures: CheckFailure[] = [];
  checkRequired(failures, "projectId", news.projectId);
  checkField(failures, "projectId", uuid, news.projectId);
  checkRequired(failures, "siteId", news.siteId);
  checkField(failures, "siteId", uuid, news.siteId);
  checkRequired(failures, "name", news.name);
  checkField(failures, "name", UpdateSiteBody.shape.name, news.name);
  if (news.restoreNameOnDelete !== undefined && news.restoreNameOnDelete !== UNKNOWN && typeof news.restoreNameOnDelete !== "boolean") {
    failures.push({ property: "restoreNameOnDelete", reason: `restoreNameOnDelete must be true or false (got ${JSON.stringify(news.restoreNameOnDelete)})` });
  }
  return { inputs: cleanInputs<SiteInputs>(news, INPUT_KEYS) as SiteInputs, failures };
}

export async function diff(_id: string, olds: SiteOutputs, news: Record<string, unknown>) {
  const desired = cleanInputs<SiteInputs>(news, INPUT_KEYS) as SiteInputs;
  const replaces = (["projectId", "siteId"] as const).filter((k) => desired[k] !== olds[k]);
  const changes = replaces.length > 0
    || desired.name !== olds.name
    || (desired.restoreNameOnDelete ?? true) !== olds.restoreNameOnDelete
    || declaredKeys(desired).join() !== (olds[DECLARED] ?? []).join();
  return { changes, replaces };
}

export async function create(inputs: SiteInputs) {
  const desired = cleanInputs<SiteInputs>(inputs as unknown as Record<string, unknown>, INPUT_KEYS) as SiteInputs;
  const { site, count } = await findSite(desired.projectId, desired.siteId);
  if (!site) {
    throw new Error(`Site ${desired.siteId} is not in project ${desired.projectId}: sites.list returned ${count} sites for that project ` +
      "and none has this id. Check siteId and projectId (getSite looks a site up by name or subdomain).");
  }
  const originalName = site.name ?? null;
  let current: Site = site;
  if (site.name !== desired.name) {
    current = await apiClient().updateSite(site.id, { name: desired.name });
    await remember(desired.projectId, current);
  }
  return { id: site.id, outs: outputs(current, desired, originalName) };
}

export async function update(id: string, olds: SiteOutputs, news: Record<string, unknown>) {
  const desired = cleanInputs<SiteInputs>(news, INPUT_KEYS) as SiteInputs;
  // Only restoreNameOnDelete changed: record it without a request.
  if (desired.name === olds.name) return { outs: { ...olds, restoreNameOnDelete: desired.restoreNameOnDelete ?? true, [DECLARED]: declaredKeys(desired) } };
  const site = await apiClient().updateSite(id, { name: desired.name });
  await remember(desired.projectId, site);
  return { outs: outputs(site, desired, olds.originalName) };
}

/** Drift in `name` (and a vanished site) from the shared per-project listing. */
export async function read(id: string, props: SiteOutputs) {
  const { site } = await findSite(props.projectId, props.siteId ?? id);
  if (!site) return {};
  const stored = { projectId: props.projectId, siteId: props.siteId, restoreNameOnDelete: props.restoreNameOnDelete };
  const refreshed = { ...outputs(site, stored as SiteInputs, props.originalName), [DECLARED]: props[DECLARED] };
  const live = { ...stored, name: site.name ?? null };
  return { id, props: refreshed, inputs: refreshedInputs(refreshed[DECLARED], live, []) };
}

export async function remove(id: string, props: SiteOutputs): Promise<void> {
  const label = `Site ${id}`;
  if (props.restoreNameOnDelete === false) {
    info(`${label} keeps the name ${JSON.stringify(props.name)} (restoreNameOnDelete: false); it is no longer managed by this stack.`);
    return;
  }
  if (props.originalName === null || props.originalName === undefined) {
    warn(`${label}: its original name is unknown (the API did not return one), so its name ${JSON.stringify(props.name)} is left as it is.`);
    return;
  }
  if (props.originalName === props.name) {
    info(`${label} already has its original name ${JSON.stringify(props.name)}; removed from the stack without a request.`);
    return;
  }
  try {
    const site = await apiClient().updateSite(id, { name: props.originalName });
    await remember(props.projectId, site);
    info(`${label} renamed back to ${JSON.stringify(props.originalName)}.`);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    info(`${label} no longer exists on the service; removed from the stack.`);
  }
}
export { remove as delete };

function outputs(site: Site, desired: SiteInputs, originalName: string | null): SiteOutputs {
  return {
    projectId: desired.projectId,
    siteId: desired.siteId ?? site.id,
    name: site.name ?? desired.name,
    subdomain: site.subdomain ?? null,
    isDefault: site.is_default ?? null,
    originalName,
    restoreNameOnDelete: desired.restoreNameOnDelete ?? true,
    [DECLARED]: declaredKeys(desired),
  };
}
