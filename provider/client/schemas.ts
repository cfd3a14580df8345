/**
 * The service's records, envelopes and request bodies as zod schemas: the single source of the
 * client's types and of the limits that both the client and the simulator enforce.
 */
import { z } from "zod";
import { parseRecurrence } from "./rrule";

/** Length in characters (Unicode code points), which is what the spec's limits count. */
function charLength(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}

function text(min: number, max: number) {
  return z.string().superRefine((value, ctx) => {
    const length = charLength(value);
    if (length < min || length > max) {
      ctx.addIssue({
        code: "custom",
        message: min === 0
          ? `must be at most ${max} characters long (got ${length})`
          : `must be ${min} to ${max} characters long (got ${length})`,
      });
    }
  });
}

const nonEmpty = z.string().min(1, { error: "must not be empty" });
export const uuid = z.uuid({ error: "must be a UUID" });
const uri = z.url({ error: "must be an absolute URI" });

export const PRODUCT_STATUSES = ["active", "archived", "draft"] as const;
export const productStatus = z.enum(PRODUCT_STATUSES, { error: `must be one of ${PRODUCT_STATUSES.join(", ")}` });

export const LIMITS = {
  siteName: { min: 1, max: 255 },
  productTitle: { min: 1, max: 1024 },
  productDescription: { max: 10000 },
  productSlug: { min: 1, max: 1024 },
  cursor: { min: 1, max: 200 },
  pageSize: { min: 1, max: 100 },
} as const;

// ---- Records (responses tolerate unknown extra fields: z.object strips them) ----

export const Project = z.object({
  object: z.literal("project"),
  id: uuid,
  name: z.string().nullable(),
  workspaceId: uuid,
});

export const Site = z.object({
  object: z.literal("site"),
  id: uuid,
  name: z.string(),
  subdomain: z.string(),
  is_default: z.boolean(),
});

export const Task = z.object({
  object: z.literal("task"),
  id: uuid,
  title: z.string(),
  emoji: z.string(),
  rrule: z.string(),
  nextRunAt: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const Product = z.object({
  object: z.literal("product"),
  id: uuid,
  title: z.string(),
  description: z.string().nullable(),
  slug: z.string().nullable(),
  status: productStatus,
  type: z.string(),
  externalCheckoutUrl: z.string().nullable(),
});

export function listEnvelope<T extends z.ZodType>(item: T) {
  return z.object({
    object: z.literal("list"),
    data: z.array(item),
    has_more: z.boolean(),
    next_cursor: z.string().nullable(),
  });
}

export const ProjectList = listEnvelope(Project);
export const SiteList = listEnvelope(Site);

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

export const UpdateSiteBody = z.strictObject({
  name: text(LIMITS.siteName.min, LIMITS.siteName.max),
});

const rrule = z.string().superRefine((value, ctx) => {
  const parsed = parseRecurrence(value);
  if (!parsed.ok) ctx.addIssue({ code: "custom", message: parsed.problem });
});

export const CreateTaskBody = z.strictObject({
  title: nonEmpty,
  prompt: nonEmpty,
  scheduledAt: z.iso.datetime({ offset: true, error: "must be an RFC 3339 date-time such as 2026-07-11T09:00:00Z" }),
  rrule: rrule.optional(),
  projectId: uuid,
  emoji: z.string().optional(),
});

const productTitle = text(LIMITS.productTitle.min, LIMITS.productTitle.max);
const productDescription = text(0, LIMITS.productDescription.max).nullable();
const productSlug = text(LIMITS.productSlug.min, LIMITS.productSlug.max).nullable();

export const CreateProductBody = z.strictObject({
  title: productTitle,
  projectId: uuid,
  description: productDescription.optional(),
  slug: productSlug.optional(),
  externalCheckoutUrl: uri.nullable().optional(),
});

export const UpdateProductBody = z.strictObject({
  title: productTitle.optional(),
  description: productDescription.optional(),
  slug: productSlug.optional(),
  status: productStatus.optional(),
  externalCheckoutUrl: uri.nullable().optional(),
});

export type Project = z.infer<typeof Project>;
export type Site = z.infer<typeof Site>;
export type Task = z.infer<typeof Task>;
export type Product = z.infer<typeof Product>;
export type ProductStatus = z.infer<typeof productStatus>;
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;
export type ListProjectsQuery = z.infer<typeof ListProjectsQuery>;
export type ListSitesQuery = z.infer<typeof ListSitesQuery>;
export type UpdateSiteBody = z.infer<typeof UpdateSiteBody>;
export type CreateTaskBody = z.infer<typeof CreateTaskBody>;
export type CreateProductBody = z.infer<typeof CreateProductBody>;
export type UpdateProductBody = z.infer<typeof UpdateProductBody>;
