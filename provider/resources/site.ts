/**
 * `Site`: a site is never created or deleted through the API, only renamed, so "create" takes over
 * an existing site and "delete" gives it its name back.
 *
 * The API has no GET for one site: finding a site means listing its project. Listings are shared
 * per project for the life of the provider process (one `pulumi` command), so N sites in a
 * project cost one listing (⌈sites/100⌉ requests) at refresh, not N.
 */
import type { Site } from "../client";
import { requireId } from "./omitted-id";
import { z } from "zod";
import { LIMITS, UpdateSiteBody, uuid } from "../contract/schemas";
import { isUnknown } from "./checks";
import type { ResourceFields } from "./field-table";
import { UserError, isNotFound } from "./errors";
import { projectAndRecordId } from "./import-id";
import { announceDiff, label } from "./messages";
import { revealed, secret, type Secret } from "./secret-output";
import { DECLARED, declaredKeys, refreshedInputs, type Stored } from "./stored-state";
import type { ProviderContext } from "./context";
import type {
  CheckFailure,
  CheckRequest,
  CreateRequest,
  DeleteRequest,
  DiffRequest,
  ImportRequest,
  Lifecycle,
  ReadRequest,
  UpdateRequest,
} from "./lifecycle";

/** What a program declares for a site (`SiteArgs` is this with `Input<…>` values). */
export interface SiteInputs {
  /** The project the site is in. Changing it replaces the resource. */
  projectId: string;
  /** The site to manage (see `getSite`). Changing it replaces the resource. */
  siteId: string;
  /** 1 to 255 characters. Updated in place. */
  name: string;
  /** Give the site its original name back on delete. Default true. */
  restoreNameOnDelete?: boolean;
}

/** The inputs as a lifecycle request carries them: decoded by `SITE_FIELDS`, a `null` left out (`Stored`). */
type StoredSiteInputs = Stored<SiteInputs>;

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
  /** The name this stack last set (`NAME_SET`); absent in state from before it was kept. */
  [NAME_SET]?: string | Secret<string>;
}

/**
 * Hidden output (the CLI hides `__` keys): the name this stack last gave the site, kept apart from
 * `name`, which a refresh rewrites with whatever the service shows — another stack's rename
 * included. Delete renames the site back only while its live name is still this one, so a site
 * another stack (or a person) renamed since keeps that name. Stored as a secret (`secret-output.ts`):
 * it is the program's `name`, which may be one.
 */
export const NAME_SET = "__nameSet";

/** The site's fields: what `check` refuses, what the plugin schema says, what docs/resources.md lists. */
export const SITE_FIELDS: ResourceFields<SiteInputs> = {
  resource: "Site",
  description:
    "Takes over an existing site and manages its name. The API cannot create or delete sites: creating the resource " +
    "renames the site, and deleting it gives the site its original name back.",
  inputs: {
    projectId: { schema: uuid, required: true, replaces: true, description: "The project the site is in (a UUID)." },
    siteId: { schema: uuid, required: true, replaces: true, description: "The site to manage (a UUID; see getSite)." },
    name: {
      schema: UpdateSiteBody.shape.name,
      required: true,
      shownToPeople: true,
      description: `The site's name: ${LIMITS.siteName.min} to ${LIMITS.siteName.max} characters. Updated in place.`,
    },
    restoreNameOnDelete: {
      schema: z.boolean(),
      oneOf: [true, false],
      description: "Give the site its original name back on delete. Default true.",
    },
  },
  outputs: {
    subdomain: { type: "string", nullable: true, description: "The site's subdomain, as the service reports it." },
    isDefault: { type: "boolean", nullable: true, description: "Whether it is the project's default site." },
    originalName: { type: "string", nullable: true, description: "The name the site had before this stack took it over." },
  },
};

const INPUT_KEYS = Object.keys(SITE_FIELDS.inputs) as (keyof SiteInputs & keyof SiteOutputs)[];

/** A site of the project's listing (shared per command by the context). A failed listing is dropped so the next call tries again. */
async function findSite(
  ctx: ProviderContext,
  projectId: string,
  siteId: string,
): Promise<{ site: (Site & { id: string }) | undefined; count: number }> {
  const listings = ctx.siteListings;
  let listing = listings.get(projectId);
  if (!listing) {
    listing = (async () => {
      const byId = new Map<string, Site & { id: string }>();
      for await (const listed of ctx.client().listSites({ projectId })) {
        const site = requireId(
          listed,
          "sites.list",
          "site",
          "A Site is found and renamed by its id, so the sites of this project cannot be managed.",
        );
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

/**
 * Puts a site as our own rename returned it into the shared listing, so later lookups see the new
 * name; an answer without an id drops the listing, to be listed again.
 */
async function updateCachedListing(ctx: ProviderContext, projectId: string, site: Site): Promise<void> {
  const listing = ctx.siteListings.get(projectId);
  if (site.id === undefined) ctx.siteListings.delete(projectId);
  else if (listing) (await listing.catch(() => undefined))?.set(site.id.toLowerCase(), { ...site, id: site.id });
}

async function rename(ctx: ProviderContext, projectId: string, siteId: string, name: string): Promise<Site> {
  const site = await ctx.client().updateSite(siteId, { name });
  await updateCachedListing(ctx, projectId, site);
  return site;
}

/**
 * About to take a site over (a new resource, or siteId/projectId changed): it must be in that
 * project. Finding out is a read (the project's listing, which the create then reuses), so it fails
 * the preview, not the deploy.
 */
async function check(ctx: ProviderContext, { olds, news }: CheckRequest<StoredSiteInputs>): Promise<CheckFailure[]> {
  const takesOver = olds.siteId !== news.siteId || olds.projectId !== news.projectId;
  if (!takesOver || isUnknown(news.siteId) || isUnknown(news.projectId)) return [];
  const { site, count } = await findSite(ctx, news.projectId, news.siteId);
  if (site) return [];
  return [
    {
      property: "",
      reason:
        `siteId is not a site of the project given as projectId: sites.list returned ${count} site${count === 1 ? "" : "s"} ` +
        "for that project and none has this id. Check siteId and projectId (getSite looks a site up by name or subdomain)",
    },
  ];
}

async function diff(ctx: ProviderContext, { name, id, olds, news, planning }: DiffRequest<StoredSiteInputs, SiteOutputs>) {
  const replaces = INPUT_KEYS.filter((k) => SITE_FIELDS.inputs[k].replaces && news[k] !== olds[k]);
  if (replaces.length === 0 && news.name !== olds.name) announceDiff(ctx, label("Site", id, name), ["name"], planning);
  const changed = [
    ...replaces,
    ...(news.name !== olds.name ? ["name"] : []),
    ...((news.restoreNameOnDelete ?? true) !== olds.restoreNameOnDelete ? ["restoreNameOnDelete"] : []),
  ];
  const changes = changed.length > 0 || declaredKeys(news).join() !== olds[DECLARED].join();
  return { changes, replaces, changed };
}

async function create(ctx: ProviderContext, { name, inputs: desired }: CreateRequest<StoredSiteInputs>) {
  const { site, count } = await findSite(ctx, desired.projectId, desired.siteId);
  if (!site) {
    // Checked at preview; the site left the project since.
    throw new UserError(
      `${label("Site", desired.siteId, name)}: siteId is not a site of the project given as projectId: sites.list returned ` +
        `${count} sites for that project and none has this id. Check siteId and projectId (getSite looks a site up by name or subdomain).`,
    );
  }
  const originalName = site.name ?? null;
  const current = site.name === desired.name ? site : await rename(ctx, desired.projectId, site.id, desired.name);
  return { id: site.id, outs: { ...outputs(current, desired, originalName), ...nameSet(current.name ?? desired.name) } };
}

async function update(ctx: ProviderContext, { name, id, olds, news }: UpdateRequest<StoredSiteInputs, SiteOutputs>) {
  // Only restoreNameOnDelete changed: record it without a request.
  if (news.name === olds.name) {
    const kept = revealed(olds[NAME_SET]);
    return {
      outs: {
        ...olds,
        restoreNameOnDelete: news.restoreNameOnDelete ?? true,
        [DECLARED]: declaredKeys(news),
        ...(kept !== undefined && nameSet(kept)),
      },
    };
  }
  const site = await rename(ctx, news.projectId, id, news.name);
  ctx.info(`updated ${label("Site", id, name)}: sent PATCH {name}.`);
  return { outs: { ...outputs(site, news, olds.originalName), ...nameSet(site.name ?? news.name) } };
}

/** Drift in `name` (and a vanished site) from the shared per-project listing. */
async function read(ctx: ProviderContext, { id, state }: ReadRequest<SiteOutputs>) {
  const { site } = await findSite(ctx, state.projectId, state.siteId);
  if (!site) return {};
  const stored = { projectId: state.projectId, siteId: state.siteId, restoreNameOnDelete: state.restoreNameOnDelete };
  // The name this stack set is kept as it was: a refresh is nobody's rename.
  const kept = revealed(state[NAME_SET]);
  const refreshed = {
    ...outputs(site, stored as StoredSiteInputs, state.originalName),
    [DECLARED]: state[DECLARED],
    ...(kept !== undefined && nameSet(kept)),
  };
  const live = { ...stored, name: site.name ?? null };
  return { id, props: refreshed, inputs: refreshedInputs(refreshed[DECLARED], live, []) };
}

/**
 * Gives the site its original name back, judged by the live record (from the shared listing), not
 * by the state: only while its live name is the one this stack set. A site renamed since — by a
 * person, or by another stack that took over the same site after this one — keeps that name: the
 * name this stack found would undo the other's change, and the other stack's own destroy gives back
 * the name *it* found (this stack's), not the one before both.
 */
async function remove(ctx: ProviderContext, { name: logicalName, id, state: props }: DeleteRequest<SiteOutputs>): Promise<void> {
  const name = label("Site", id, logicalName);
  if (ctx.ledger.importedThisRun("Site", props.siteId)) {
    ctx.info(
      `${name}: nothing sent; this run imported the same site into the stack again (a Pulumi import replacement), so it keeps its name.`,
    );
    return;
  }
  if (props.restoreNameOnDelete === false) {
    ctx.info(`${name}: nothing sent (restoreNameOnDelete: false); it keeps its current name and is no longer managed by this stack.`);
    return;
  }
  if (props.originalName === null) {
    ctx.warn(`${name}: nothing sent; its original name is unknown (the service did not return one), so its current name is left as it is.`);
    return;
  }
  const { site } = await findSite(ctx, props.projectId, props.siteId);
  if (!site) {
    ctx.info(`${name}: no longer listed in project ${props.projectId}; nothing sent, removed from the stack.`);
    return;
  }
  if (site.name === props.originalName) {
    ctx.info(`${name}: nothing sent; the service already shows its original name.`);
    return;
  }
  // State from before the name set was kept (0.1.0): its name, as a refresh left it, is what the stack set.
  const set = revealed(props[NAME_SET]) ?? props.name;
  if (site.name !== set) {
    ctx.warn(
      `${name}: nothing sent; its live name is neither the one this stack set nor the one it had when this stack took it over: it was renamed ` +
        "since, by a person or by another stack that manages the same site (one site, one stack). It keeps that name: giving back the " +
        "name this stack found would undo that change. Rename it by hand if it should get its original name back.",
    );
    return;
  }
  try {
    await rename(ctx, props.projectId, site.id, props.originalName);
    ctx.info(`${name}: sent PATCH {name} with its original name; renamed back on the service.`);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    ctx.info(`${name}: no longer exists on the service (404); removed from the stack.`);
  }
}

/** The hidden output of the name this stack set. */
function nameSet(name: string): { [NAME_SET]: Secret<string> } {
  return { [NAME_SET]: secret(name) };
}

function outputs(site: Site, desired: StoredSiteInputs, originalName: string | null): SiteOutputs {
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

/**
 * Takes an existing site into the stack under its current name, which is also the name it gets
 * back on delete (its name before someone else renamed it cannot be known).
 */
async function importRecord(ctx: ProviderContext, { id, hint }: ImportRequest) {
  const { projectId, recordId } = projectAndRecordId("Site", id, hint);
  const { site, count } = await findSite(ctx, projectId, recordId);
  if (!site) {
    throw new UserError(
      `Site ${recordId} is not in project ${projectId}: sites.list returned ${count} sites for that project and none has this id, ` +
        "so it cannot be imported.",
    );
  }
  ctx.ledger.noteImported("Site", site.id);
  const live = { projectId, siteId: site.id, name: site.name ?? "" };
  const props = { ...outputs(site, live, site.name ?? null), [DECLARED]: declaredKeys(live), ...nameSet(live.name) };
  return { id: site.id, props, inputs: refreshedInputs(props[DECLARED], live, []) };
}

type SiteLifecycle = Lifecycle<StoredSiteInputs, SiteOutputs>;

export const site: SiteLifecycle = { fields: SITE_FIELDS, check, diff, create, read, update, remove, importRecord };
