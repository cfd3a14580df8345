/**
 * `Site`: a site is never created or deleted through the API, only listed and renamed, so "create"
 * takes over an existing site (one PATCH of the fields that differ from the program: the contract's
 * site table, `SITE_FIELD_SPECS`) and "delete" gives it back as it was found: its name.
 *
 * The API has no GET for one site: finding a site means listing its project. Listings are shared
 * per project for the life of the provider process (one `pulumi` command), so N sites in a
 * project cost one listing (⌈sites/100⌉ requests) at refresh, not N.
 */
import type { Site } from "../client";
import { requireId } from "./omitted-id";
import { z } from "zod";
import type { ChangeField, PropertyName } from "../contract/fields";
import { SITE_FIELD_SPECS, uuid, type SiteSpecs } from "../contract/schemas";
import { apiFields, givingBack, type DeclaredFields, type KeptFields, type KeptValue } from "./api-fields";
import { isUnknown } from "./checks";
import { jsonType, replacedInputs, type InputField, type OutputField, type ResourceFields } from "./field-table";
import { UserError, isNotFound } from "./errors";
import { projectAndRecordId } from "./import-id";
import { announceDiff, label } from "./messages";
import { revealed, secret, type Secret } from "./secret-output";
import { DECLARED, declaredKeys, refreshedInputs, type Stored } from "./stored-state";
import type { ProviderContext } from "./context";
import type * as lifecycle from "./lifecycle";
import { recordGiveBack } from "./product/write-file";

/** The contract's site table (`SITE_FIELD_SPECS`) as the resource reads it (`api-fields.ts`). */
export const SITE = apiFields(SITE_FIELD_SPECS);

/**
 * What a program declares for a site (`SiteArgs` is this with `Input<…>` values): the fields of the
 * contract's table a request may send (`name`, 1 to 255 characters, updated in place), and what
 * only the stack knows.
 */
export type SiteInputs = {
  /** The project the site is in. Changing it replaces the resource. */
  projectId: string;
  /** The site to manage (see `getSite`). Changing it replaces the resource. */
  siteId: string;
  /** Give the site its original name back on delete. Default true. */
  restoreNameOnDelete?: boolean;
} & DeclaredFields<SiteSpecs>;

/** The inputs as a lifecycle request carries them: decoded by `SITE_FIELDS`, a `null` left out (`Stored`). */
type StoredSiteInputs = Stored<SiteInputs>;

/**
 * The fields a take-over can change, so a delete gives back (the table's `change: "update"`): for
 * each, an output holding its value when this stack took the site over (`originalName`), and a
 * hidden one holding what this stack last set (`__nameSet`).
 */
type GivenBack = ChangeField<SiteSpecs, "update">;
type Original<K extends string> = `original${Capitalize<PropertyName<K>>}`;
type LastSet<K extends string> = `__${PropertyName<K>}Set`;

export type SiteOutputs = {
  projectId: string;
  siteId: string;
  restoreNameOnDelete: boolean;
  [DECLARED]: string[];
} & KeptFields<SiteSpecs> & {
    /** What the field was before this stack took the site over; given back on delete. */
    [K in GivenBack as Original<K>]: Exclude<KeptValue<SiteSpecs[K]>, null> | null;
  } & {
    /** What this stack last set (absent in state from before it was kept). */
    [K in GivenBack as LastSet<K>]?: KeptValue<SiteSpecs[K]> | Secret<KeptValue<SiteSpecs[K]>>;
  };

/** The fields a delete gives back, in the table's order. */
const GIVEN_BACK = SITE.updatable;

/** `originalName`: the output that keeps a field as this stack found it. */
export function originalKey(field: string): string {
  const property = SITE.property(field);
  return `original${property[0]!.toUpperCase()}${property.slice(1)}`;
}

/**
 * `__nameSet`: the hidden output (the CLI hides `__` keys) of what this stack last gave the field,
 * kept apart from the field's own output, which a refresh rewrites with whatever the service shows
 * — another stack's rename included. Delete sets a field back only while its live value is still
 * this one, so a site another stack (or a person) changed since keeps that value. Stored as a secret
 * (`secret-output.ts`): it is the program's value, which may be one.
 */
export function setKey(field: string): string {
  return `__${SITE.property(field)}Set`;
}

/** The site's fields: what `check` refuses, what the plugin schema says, what docs/resources.md lists. */
export const SITE_FIELDS: ResourceFields<SiteInputs> = {
  resource: "Site",
  description:
    "Takes over an existing site and manages its name. The API cannot create or delete sites: creating the resource " +
    "renames the site, and deleting it gives the site its original name back.",
  inputs: {
    projectId: { schema: uuid, required: true, replaces: true, description: "The project the site is in (a UUID)." },
    siteId: { schema: uuid, required: true, replaces: true, description: "The site to manage (a UUID; see getSite)." },
    ...(SITE.inputFields() as Record<keyof DeclaredFields<SiteSpecs>, InputField>),
    restoreNameOnDelete: {
      schema: z.boolean(),
      oneOf: [true, false],
      description: "Give the site its original name back on delete. Default true.",
    },
  },
  outputs: {
    ...SITE.outputFields(),
    ...Object.fromEntries(
      GIVEN_BACK.map((field): [string, OutputField] => [
        originalKey(field),
        {
          type: jsonType(SITE.specs[field]!.value!) as OutputField["type"],
          nullable: true,
          description: `The ${SITE.property(field)} the site had before this stack took it over.`,
        },
      ]),
    ),
  },
};

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

/** One PATCH of `body` (what a take-over, an update or a give-back sets), kept in the shared listing. */
async function patchSite(ctx: ProviderContext, projectId: string, siteId: string, body: Record<string, unknown>): Promise<Site> {
  const site = await ctx.client().updateSite(siteId, body);
  await updateCachedListing(ctx, projectId, site);
  return site;
}

/**
 * About to take a site over (a new resource, or siteId/projectId changed): it must be in that
 * project. Finding out is a read (the project's listing, which the create then reuses), so it fails
 * the preview, not the deploy.
 */
async function check(ctx: ProviderContext, { olds, news }: lifecycle.CheckRequest<StoredSiteInputs>): Promise<lifecycle.CheckFailure[]> {
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

async function diff(ctx: ProviderContext, { name, id, olds, news, planning }: lifecycle.DiffRequest<StoredSiteInputs, SiteOutputs>) {
  const replaces = replacedInputs(SITE_FIELDS, olds, news);
  const patched = Object.keys(SITE.patch(olds, news)).map(SITE.property);
  if (replaces.length === 0 && patched.length > 0) announceDiff(ctx, label("Site", id, name), patched, planning);
  const changed = [
    ...replaces,
    ...patched,
    ...((news.restoreNameOnDelete ?? true) !== olds.restoreNameOnDelete ? ["restoreNameOnDelete"] : []),
  ];
  const changes = changed.length > 0 || declaredKeys(news).join() !== olds[DECLARED].join();
  return { changes, replaces, changed };
}

/** Takes the site over: one PATCH of the fields that differ from the program (none: nothing sent), what it was kept to give back. */
async function create(ctx: ProviderContext, { name, inputs: desired }: lifecycle.CreateRequest<StoredSiteInputs>) {
  const { site, count } = await findSite(ctx, desired.projectId, desired.siteId);
  if (!site) {
    // Checked at preview; the site left the project since.
    throw new UserError(
      `${label("Site", desired.siteId, name)}: siteId is not a site of the project given as projectId: sites.list returned ` +
        `${count} sites for that project and none has this id. Check siteId and projectId (getSite looks a site up by name or subdomain).`,
    );
  }
  const patch = SITE.patch(SITE.kept(site), desired);
  const current = Object.keys(patch).length === 0 ? site : await patchSite(ctx, desired.projectId, site.id, patch);
  return { id: site.id, outs: { ...outputs(current, desired, originalsOf(site)), ...lastSet(current, desired) } };
}

async function update(ctx: ProviderContext, { name, id, olds, news }: lifecycle.UpdateRequest<StoredSiteInputs, SiteOutputs>) {
  const patch = SITE.patch(olds, news);
  // Nothing the API holds changed (only restoreNameOnDelete, say): recorded without a request.
  if (Object.keys(patch).length === 0) {
    return { outs: { ...olds, restoreNameOnDelete: news.restoreNameOnDelete ?? true, [DECLARED]: declaredKeys(news), ...lastSetIn(olds) } };
  }
  const site = await patchSite(ctx, news.projectId, id, patch);
  ctx.info(`updated ${label("Site", id, name)}: sent PATCH {${Object.keys(patch).join(", ")}}.`);
  return { outs: { ...outputs(site, news, originalsIn(olds)), ...lastSetIn(olds), ...lastSet(site, news, Object.keys(patch)) } };
}

/** Drift in the table's fields (and a vanished site) from the shared per-project listing. */
async function read(ctx: ProviderContext, { id, state }: lifecycle.ReadRequest<SiteOutputs>) {
  const { site } = await findSite(ctx, state.projectId, state.siteId);
  if (!site) return {};
  const stored = { projectId: state.projectId, siteId: state.siteId, restoreNameOnDelete: state.restoreNameOnDelete };
  // What this stack set is kept as it was: a refresh is nobody's rename.
  const refreshed = { ...outputs(site, stored, originalsIn(state)), [DECLARED]: state[DECLARED], ...lastSetIn(state) };
  const live = { ...stored, ...SITE.kept(site) };
  return { id, props: refreshed, inputs: refreshedInputs(refreshed[DECLARED], live, []) };
}

/** `name`, `name and description`, `name, description and locale`. */
function listed(fields: readonly string[]): string {
  return fields.length < 2 ? fields.join("") : `${fields.slice(0, -1).join(", ")} and ${fields.at(-1)!}`;
}

/** A change of the name is a rename. */
function renamed(fields: readonly string[]): boolean {
  return fields.every((field) => field === "name");
}

/**
 * Gives the site back as this stack found it, judged by the live record (from the shared listing),
 * not by the state: each field it manages (declared, or changed by its take-over) is set back to
 * its value then (`originalName`), only while its live value is the one this stack set. A site
 * changed since — by a person, or by another stack that took over the same site after this one —
 * keeps that value: the one this stack found would undo the other's change, and the other stack's
 * own destroy gives back the value *it* found (this stack's), not the one before both.
 */
async function remove(ctx: ProviderContext, { name: logicalName, id, state: props }: lifecycle.DeleteRequest<SiteOutputs>): Promise<void> {
  const name = label("Site", id, logicalName);
  // For a tool's report (the catalog's): what was sent and what was left, which only the live listing decides.
  const done = (sent: string[], since: string[], gone?: boolean) => {
    const unrecorded = recordGiveBack({ name: logicalName ?? id, id, sent, since, ...(gone === true && { gone }) });
    if (unrecorded !== undefined) ctx.once("warning", unrecorded);
  };
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
  const state = stateOf(props);
  const prop = SITE.property;
  const found = originalsIn(props);
  // What this stack last set; a state from before that was kept (0.1.0) has it as the field, as a refresh left it.
  const set = Object.fromEntries(GIVEN_BACK.map((field) => [prop(field), revealed(state[setKey(field)]) ?? state[prop(field)] ?? null]));
  // The fields it manages: the declared ones, and any it changed (what it found is not what it set).
  const managed = GIVEN_BACK.filter(
    (field) => props[DECLARED].includes(prop(field)) || (state[setKey(field)] !== undefined && found[prop(field)] !== set[prop(field)]),
  );
  const unknown = managed.filter((field) => found[prop(field)] === null);
  const known = managed.filter((field) => !unknown.includes(field));
  for (const field of unknown.map(prop)) {
    ctx.warn(
      `${name}: ${known.length === 0 ? "nothing sent; " : ""}its original ${field} is unknown (the service did not return one), ` +
        `so its current ${field} is left as it is.`,
    );
  }
  if (known.length === 0) return done([], []);
  const { site } = await findSite(ctx, props.projectId, props.siteId);
  if (!site) {
    ctx.info(`${name}: no longer listed in project ${props.projectId}; nothing sent, removed from the stack.`);
    return done([], [], true);
  }
  const { already, since, back } = givingBack(SITE, known, found, set, SITE.kept(site));
  if (since.length === 0 && back.length === 0) {
    ctx.info(`${name}: nothing sent; the service already shows its original ${listed(already.map(prop))}.`);
    return done([], []);
  }
  for (const field of since.map(prop)) {
    const [verb, Verb] = renamed([field]) ? ["renamed", "Rename"] : ["changed", "Change"];
    ctx.warn(
      `${name}: ${back.length === 0 ? "nothing sent; " : ""}its live ${field} is neither the one this stack set nor the one it had when this stack took it over: it was ${verb} ` +
        `since, by a person or by another stack that manages the same site (one site, one stack). It keeps that ${field}: giving back the ` +
        `${field} this stack found would undo that change. ${Verb} it by hand if it should get its original ${field} back.`,
    );
  }
  if (back.length === 0) return done([], since.map(prop));
  const body = Object.fromEntries(back.map((field) => [field, found[prop(field)]]));
  try {
    await patchSite(ctx, props.projectId, site.id, body);
    const fields = back.map(prop);
    ctx.info(
      `${name}: sent PATCH {${back.join(", ")}} with its original ${listed(fields)}; ${renamed(fields) ? "renamed" : "set"} back on the service.`,
    );
    done(fields, since.map(prop));
  } catch (error) {
    if (!isNotFound(error)) throw error;
    ctx.info(`${name}: no longer exists on the service (404); removed from the stack.`);
    done([], [], true);
  }
}

function stateOf(outputs: SiteOutputs): Record<string, unknown> {
  return outputs as unknown as Record<string, unknown>;
}

/** What the take-over found, by the fields' names, from the record it found (`null` where it lacked a value). */
function originalsOf(site: Site): Record<string, unknown> {
  const found = SITE.kept(site);
  return Object.fromEntries(GIVEN_BACK.map((field) => [SITE.property(field), found[SITE.property(field)] ?? null]));
}

/** What a state says the take-over found, by the fields' names (`null`: unknown, as in a state from before a field was kept). */
function originalsIn(state: SiteOutputs): Record<string, unknown> {
  return Object.fromEntries(GIVEN_BACK.map((field) => [SITE.property(field), stateOf(state)[originalKey(field)] ?? null]));
}

/** The hidden outputs of what this stack set: each of `fields` as `record` has it after its write (the declared value where it lacks one). */
function lastSet(
  record: Site,
  desired: Partial<StoredSiteInputs>,
  fields: readonly string[] = GIVEN_BACK,
): Record<string, Secret<unknown>> {
  const now = SITE.kept(record, desired);
  return Object.fromEntries(fields.map((field) => [setKey(field), secret(now[SITE.property(field)])]));
}

/** The hidden outputs of what this stack set, kept as a state holds them (none in a state from before they were kept). */
function lastSetIn(state: SiteOutputs): Record<string, Secret<unknown>> {
  return Object.fromEntries(
    GIVEN_BACK.flatMap((field) => {
      const value = revealed(stateOf(state)[setKey(field)]);
      return value === undefined ? [] : [[setKey(field), secret(value)]];
    }),
  );
}

/** A site's state: the record's fields, what the take-over found (`found`, by the fields' names), and what only the stack knows. */
function outputs(site: Site, desired: Partial<StoredSiteInputs>, found: Record<string, unknown>): SiteOutputs {
  return {
    projectId: desired.projectId,
    siteId: desired.siteId ?? site.id,
    ...SITE.kept(site, desired),
    ...Object.fromEntries(GIVEN_BACK.map((field) => [originalKey(field), found[SITE.property(field)] ?? null])),
    restoreNameOnDelete: desired.restoreNameOnDelete ?? true,
    [DECLARED]: declaredKeys(desired),
  } as SiteOutputs;
}

/**
 * Takes an existing site into the stack as it is now, which is also what it gets back on delete
 * (what it was before someone else changed it cannot be known).
 */
async function importRecord(ctx: ProviderContext, { id, hint }: lifecycle.ImportRequest) {
  const { projectId, recordId } = projectAndRecordId("Site", id, hint);
  const { site, count } = await findSite(ctx, projectId, recordId);
  if (!site) {
    throw new UserError(
      `Site ${recordId} is not in project ${projectId}: sites.list returned ${count} sites for that project and none has this id, ` +
        "so it cannot be imported.",
    );
  }
  ctx.ledger.noteImported("Site", site.id);
  const live = { projectId, siteId: site.id, ...SITE.imported(site) } as StoredSiteInputs;
  const props = { ...outputs(site, live, originalsOf(site)), [DECLARED]: declaredKeys(live), ...lastSet(site, live) };
  return { id: site.id, props, inputs: refreshedInputs(props[DECLARED], live, []) };
}

type SiteLifecycle = lifecycle.Lifecycle<StoredSiteInputs, SiteOutputs>;

export const site: SiteLifecycle = { fields: SITE_FIELDS, check, diff, create, read, update, remove, importRecord };
