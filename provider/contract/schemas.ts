/**
 * The service as data: the six operations (method, path, version), the records, envelopes and
 * request bodies as zod schemas, and every documented limit. The client and the simulator both
 * validate with these, so they cannot disagree.
 *
 * Rule: requests are strict (unknown fields refused, every limit checked before sending);
 * responses are tolerant wherever the spec is silent (fields it does not mark required may be
 * absent, any 8-4-4-4-12 hex UUID, unknown enum values kept), so a real server never breaks a
 * caller on a detail the spec left open.
 */
import { fullFormats } from "ajv-formats/dist/formats";
import { z } from "zod";
import { createShape, fieldNames, recordShape, updateShape, type CreateBodyOf, type FieldSpec, type UpdateBodyOf } from "./fields";
import { checkRecurrence, validateRecurrence } from "./rrule";

const isAbsoluteUri = fullFormats.uri as (value: string) => boolean;

// ---- Operations ----

export type HttpMethod = "GET" | "POST" | "PATCH";

export const API_VERSION = "2026-07-11";
/** Product creation is the one operation pinned to an older version. */
export const PRODUCT_CREATE_VERSION = "2026-06-27";

export interface OperationSpec {
  method: HttpMethod;
  /** `base` paths live under `baseUrl` (`/v1/...`), `public` ones under `publicBaseUrl` (`/api/v1/public/...`). */
  host: "base" | "public";
  path: string;
  version: string;
}

export const OPERATIONS = {
  "projects.list": { method: "GET", host: "base", path: "/v1/projects", version: API_VERSION },
  "sites.update": { method: "PATCH", host: "base", path: "/v1/sites/{siteId}", version: API_VERSION },
  "tasks.create": { method: "POST", host: "base", path: "/v1/tasks", version: API_VERSION },
  "sites.list": { method: "GET", host: "public", path: "/api/v1/public/sites", version: API_VERSION },
  "products.create": { method: "POST", host: "public", path: "/api/v1/public/products", version: PRODUCT_CREATE_VERSION },
  "products.update": { method: "PATCH", host: "public", path: "/api/v1/public/products/{productId}", version: API_VERSION },
} as const satisfies Record<string, OperationSpec>;

export type OperationName = keyof typeof OPERATIONS;

// ---- Building blocks ----

/** Length in characters (Unicode code points), which is what the spec's limits count. */
function charLength(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}

/**
 * A request string. Lone UTF-16 surrogates are refused: they cannot be encoded as UTF-8, so the
 * server would store U+FFFD and a later read would differ from what was written.
 */
export function text(min = 0, max = Number.POSITIVE_INFINITY) {
  return z.string().superRefine((value, ctx) => {
    if (!value.isWellFormed()) {
      ctx.addIssue({ code: "custom", message: "must be well-formed Unicode (it contains a lone UTF-16 surrogate)" });
      return;
    }
    const length = charLength(value);
    if (length >= min && length <= max) return;
    let message: string;
    if (max === Number.POSITIVE_INFINITY)
      message = min === 1 ? "must not be empty" : `must be at least ${min} characters long (got ${length})`;
    else if (min === 0) message = `must be at most ${max} characters long (got ${length})`;
    else message = `must be ${min} to ${max} characters long (got ${length})`;
    ctx.addIssue({ code: "custom", message });
  });
}

/**
 * Any 8-4-4-4-12 hex UUID. The spec says "string, uuid" and nothing about RFC 9562 version or
 * variant bits, so ids such as `ccdf56a4-8fd7-0d19-e8ad-d64bc232702d` are valid everywhere.
 */
export const uuid = z.guid({ error: "must be a UUID (8-4-4-4-12 hex digits)" });
/** Whether `text` is a UUID as `uuid` checks it: for ids read outside a request (states, journals, files). */
export function isUuid(text: string): boolean {
  return uuid.safeParse(text).success;
}
/**
 * An absolute URI as RFC 3986 defines it, which is what OpenAPI's `format: uri` means: ASCII only,
 * no spaces, `%` only before two hex digits. (`z.url()` follows the WHATWG URL parser, which fixes
 * up what RFC 3986 refuses, such as `https://shop.example.com/a b` or `https://exämple.com/ü`.)
 * The check is ajv-formats' full `uri` format, the JSON Schema ecosystem's reference for it.
 */
const uri = text().refine((value) => isAbsoluteUri(value), {
  error: "must be an absolute URI (RFC 3986: a scheme such as https:, ASCII only, no spaces, % only in %XX escapes)",
});

export const PRODUCT_STATUSES = ["active", "archived", "draft"] as const;
/** The statuses a request may send (strict). */
const productStatus = z.enum(PRODUCT_STATUSES, { error: `must be one of ${PRODUCT_STATUSES.join(", ")}` });
export type KnownProductStatus = (typeof PRODUCT_STATUSES)[number];
/**
 * A status as a response may carry it: one of the three known values, or a value a newer server
 * added. `(string & {})` keeps editor completion and `switch` narrowing on the known three.
 */
export type ProductStatus = KnownProductStatus | (string & {});

export const LIMITS = {
  siteName: { min: 1, max: 255 },
  productTitle: { min: 1, max: 1024 },
  productDescription: { max: 10000 },
  productSlug: { min: 1, max: 1024 },
  cursor: { min: 1, max: 200 },
  pageSize: { min: 1, max: 100 },
} as const;

// ---- Records (responses: unknown extra fields are dropped; see the rule above) ----

/**
 * Project and Product mark every field required; Site and Task mark none, so every field of theirs
 * may be absent, `id` and `object` included. Code that needs a site's or a task's id asks for it
 * (`provider/resources/omitted-id.ts`) and says the service omitted it.
 */
export const Project = z.object({
  object: z.literal("project"),
  id: uuid,
  name: z.string().nullable(),
  workspaceId: uuid,
});

function listEnvelope<T extends z.ZodType>(item: T) {
  return z.object({
    object: z.literal("list"),
    data: z.array(item),
    has_more: z.boolean(),
    next_cursor: z.string().nullable(),
  });
}

export const ProjectList = listEnvelope(Project);

export const ErrorEnvelope = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    doc_url: z.string(),
  }),
});

// ---- Requests (strict: an unknown field is a mistake, reported before anything is sent) ----

const cursor = text(LIMITS.cursor.min, LIMITS.cursor.max);
const pageSize = z
  .number({ error: "must be an integer" })
  .int({ error: "must be an integer" })
  .min(LIMITS.pageSize.min, { error: `must be at least ${LIMITS.pageSize.min}` })
  .max(LIMITS.pageSize.max, { error: `must be at most ${LIMITS.pageSize.max}` });

export const ListProjectsQuery = z.strictObject({
  workspaceId: uuid.optional(),
  cursor: cursor.optional(),
  limit: pageSize.optional(),
});

export const ListSitesQuery = z.strictObject({
  projectId: uuid,
  cursor: cursor.optional(),
  limit: pageSize.optional(),
});

const rrule = text().superRefine((value, ctx) => {
  const problem = validateRecurrence(value);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

const scheduledAt = z.iso.datetime({ offset: true, error: "must be an RFC 3339 date-time such as 2026-07-11T09:00:00Z" });

// ---- The field tables: one per type, and the records and bodies derived from them (`fields.ts`) ----

/**
 * A product's fields — the one declaration of each. The record, the create body and the update body
 * below are derived from this table; so are the `Product` resource's inputs and state, the plugin's
 * schema, the catalog's entries and the simulator's columns. A field the API adds is one entry here.
 */
export const PRODUCT_FIELD_SPECS = {
  title: {
    value: text(LIMITS.productTitle.min, LIMITS.productTitle.max),
    nullable: false,
    create: "required",
    change: "update",
    record: z.string(),
    description: `The title: ${LIMITS.productTitle.min} to ${LIMITS.productTitle.max} characters.`,
    shownToPeople: true,
    examples: ["Pro", "Pro plan"],
  },
  description: {
    value: text(0, LIMITS.productDescription.max),
    nullable: true,
    create: "optional",
    change: "update",
    record: z.string().nullable(),
    description: `Up to ${LIMITS.productDescription.max} characters. Leaving it out (or null) means no description: removing it clears it.`,
    examples: ["Everything in Starter.", "Everything in Starter, plus SSO."],
  },
  slug: {
    value: text(LIMITS.productSlug.min, LIMITS.productSlug.max),
    nullable: true,
    create: "optional",
    change: "update",
    record: z.string().nullable(),
    description: `${LIMITS.productSlug.min} to ${LIMITS.productSlug.max} characters. Leaving it out (or null) clears it.`,
    shownToPeople: true,
    examples: ["pro", "pro-plan"],
  },
  status: {
    value: productStatus,
    nullable: false,
    create: false,
    change: "update",
    record: z.string() as z.ZodType<ProductStatus>,
    description: `One of ${PRODUCT_STATUSES.join(", ")}. Set after create with one PATCH when it differs from the service's initial status; leaving it out leaves the status alone.`,
    examples: ["active", "draft"],
  },
  externalCheckoutUrl: {
    value: uri,
    nullable: true,
    create: "optional",
    change: "update",
    record: z.string().nullable(),
    description: "An absolute URI (RFC 3986). Leaving it out (or null) clears it.",
    examples: ["https://shop.example.com/pro", "https://shop.example.com/pro-plan"],
  },
} as const satisfies Record<string, FieldSpec>;

/**
 * A field only the service sets, which a response may omit (the spec marks no field of a site or a
 * task required): an output, never an input. The site and task tables declare theirs with it, so
 * "service-set" reads the same in both.
 */
function reported<R extends z.ZodType>(record: R, description: string, examples: readonly [unknown, unknown]) {
  return { create: false, record: record.optional(), description, examples } as const;
}

/** A site's field: a listing carries it, so `getSite` and `getSites` give it too, described as `listed` says. */
export interface SiteFieldSpec extends FieldSpec {
  /** What `getSite` and `getSites` say of it in their results (`resources/lookups.ts`). */
  listed: string;
}

/**
 * A site's fields. The API cannot create or delete sites, only list and rename them: a `Site` takes
 * one over (`create` is what that take-over sets, with one PATCH of what differs), updates in place
 * what a PATCH can set, and gives that back as found at delete. Every field may be absent from a
 * response (the spec marks none required). The record, the update body, the `Site` resource's
 * inputs, outputs and state, `getSite`'s results, the plugin's schema and the simulator's columns
 * are derived from this table.
 */
export const SITE_FIELD_SPECS = {
  name: {
    value: text(LIMITS.siteName.min, LIMITS.siteName.max),
    create: "required",
    change: "update",
    record: z.string().optional(),
    description: `The site's name: ${LIMITS.siteName.min} to ${LIMITS.siteName.max} characters. Updated in place.`,
    listed: "The site's current name; may be null (the spec does not mark it required).",
    shownToPeople: true,
    examples: ["Docs", "Docs (primary)"],
  },
  subdomain: {
    ...reported(z.string(), "The site's subdomain, as the service reports it.", ["docs", "docs-eu"]),
    listed: "The site's subdomain; may be null. Look a site up by it when a Site renames the site.",
  },
  is_default: {
    ...reported(z.boolean(), "Whether it is the project's default site.", [true, false]),
    listed: "Whether it is the project's default site; may be null.",
  },
} as const satisfies Record<string, SiteFieldSpec>;

/**
 * A time only the service sets (the spec does not show its format), as `reported` declares it. Its
 * examples: `example`, and a week later.
 */
function reportedTime(description: string, example: string) {
  const later = new Date(Date.parse(example) + 7 * 86_400_000).toISOString();
  return reported(z.string(), description, [example, later]);
}

/**
 * A task's fields. The API can only create tasks: every field a create takes replaces the task
 * when it changes, and what a response carries is read once, at create (no read, no update). The
 * record, the create body, the `Task` resource's inputs, outputs and state, the plugin's schema and
 * the simulator's columns are derived from this table.
 */
export const TASK_FIELD_SPECS = {
  title: {
    value: text(1),
    create: "required",
    change: "replace",
    record: z.string().optional(),
    description: "The title; not empty.",
    shownToPeople: true,
    examples: ["Weekly digest", "Monday check"],
  },
  prompt: {
    value: text(1),
    create: "required",
    change: "replace",
    description: "The prompt; not empty.",
    examples: ["Summarise last week's changes", "Check the sites"],
  },
  scheduledAt: {
    value: scheduledAt,
    create: "required",
    change: "replace",
    description: "The first run: an RFC 3339 date-time with an offset, e.g. 2026-12-01T09:00:00Z. A one-off time in the past is refused.",
    examples: ["2026-01-05T09:00:00Z", "2026-01-06T10:30:00+02:00"],
  },
  rrule: {
    value: rrule,
    create: "optional",
    change: "replace",
    record: z.string().optional(),
    description: "An RFC 5545 recurrence rule such as FREQ=WEEKLY;BYDAY=MO. A rule with no run at or after now is refused.",
    examples: ["FREQ=WEEKLY;BYDAY=MO", "FREQ=DAILY"],
  },
  emoji: {
    value: text(),
    create: "optional",
    change: "replace",
    record: z.string().optional(),
    description: "An emoji for the task.",
    examples: ["📰", "📈"],
  },
  nextRunAt: reportedTime("When the service will run the task next, as it reported at create.", "2030-01-07T09:00:00.000Z"),
  createdAt: reportedTime("When the service created the task.", "2029-06-01T12:34:56.789Z"),
  updatedAt: reportedTime("When the service last changed the task.", "2029-06-02T08:00:00.000Z"),
} as const satisfies Record<string, FieldSpec>;

export type ProductSpecs = typeof PRODUCT_FIELD_SPECS;
export type SiteSpecs = typeof SITE_FIELD_SPECS;
export type TaskSpecs = typeof TASK_FIELD_SPECS;
/** A product field's name. */
export type ProductField = keyof ProductSpecs;
/** Every product field, in the table's order. */
export const PRODUCT_FIELD_NAMES = fieldNames(PRODUCT_FIELD_SPECS);

/** The product record: the fields the table declares, and what the service sets (id, type). */
export const Product = z.object({
  object: z.literal("product"),
  id: uuid,
  type: z.string(),
  ...recordShape(PRODUCT_FIELD_SPECS),
});

export const Site = z.object({
  object: z.literal("site").optional(),
  id: uuid.optional(),
  ...recordShape(SITE_FIELD_SPECS),
});
export const SiteList = listEnvelope(Site);

export const Task = z.object({
  object: z.literal("task").optional(),
  id: uuid.optional(),
  ...recordShape(TASK_FIELD_SPECS),
});

export type CreateProductBody = CreateBodyOf<ProductSpecs>;
export const CreateProductBody = z.strictObject(createShape(PRODUCT_FIELD_SPECS, uuid)) as unknown as z.ZodType<CreateProductBody>;

export type UpdateProductBody = UpdateBodyOf<ProductSpecs>;
export const UpdateProductBody = z.strictObject(updateShape(PRODUCT_FIELD_SPECS)) as unknown as z.ZodType<UpdateProductBody>;

/**
 * A rename, and whatever else a PATCH may set (the table's `change: "update"`), each optional; a
 * body that sets nothing is refused by the table's first such field (the spec's `name`): a rename
 * that sets nothing has no meaning.
 */
export type UpdateSiteBody = UpdateBodyOf<SiteSpecs>;
export const UpdateSiteBody = z.strictObject(updateShape(SITE_FIELD_SPECS)).superRefine((body, ctx) => {
  if (Object.keys(body).length === 0)
    ctx.addIssue({ code: "custom", path: [Object.keys(updateShape(SITE_FIELD_SPECS))[0]!], message: "is required" });
}) as unknown as z.ZodType<UpdateSiteBody>;

export type CreateTaskBody = CreateBodyOf<TaskSpecs>;
/** The table's fields, and the checks that need the rule and its start together: reachability, a first occurrence, the year 9999. */
export const CreateTaskBody = z.strictObject(createShape(TASK_FIELD_SPECS, uuid)).superRefine((raw, ctx) => {
  const body = raw as CreateTaskBody;
  if (new Date(body.scheduledAt).getUTCFullYear() > 9999) {
    ctx.addIssue({ code: "custom", path: ["scheduledAt"], message: "is after the year 9999 in UTC (RFC 3339 dates end at 9999)" });
    return;
  }
  if (body.rrule === undefined || validateRecurrence(body.rrule) !== undefined) return;
  const problem = checkRecurrence(body.rrule, body.scheduledAt);
  if (problem) ctx.addIssue({ code: "custom", path: ["rrule"], message: problem });
}) as unknown as z.ZodType<CreateTaskBody>;

export type Product = z.infer<typeof Product>;
export type Project = z.infer<typeof Project>;
export type Site = z.infer<typeof Site>;
export type Task = z.infer<typeof Task>;
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;
export type ListProjectsQuery = z.infer<typeof ListProjectsQuery>;
export type ListSitesQuery = z.infer<typeof ListSitesQuery>;
