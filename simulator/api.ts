/** The six operations, as the service documents them. Handlers throw `HttpError` for every failure. */
import type { z } from "zod";
import { parseWithIssues } from "../provider/contract/issues";
import {
  CreateProductBody,
  PRODUCT_FIELD_NAMES,
  PRODUCT_FIELD_SPECS,
  CreateTaskBody,
  ListProjectsQuery,
  ListSitesQuery,
  UpdateProductBody,
  UpdateSiteBody,
  uuid,
  type OperationName,
} from "../provider/contract/schemas";
import { nextRun } from "../provider/contract/rrule";
import { HttpError } from "./errors";
import type { Database } from "./database";

export interface ApiContext {
  store: Database;
  /** Workspaces the caller's token may access. */
  workspaces: Set<string>;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  defaultPageSize: number;
  /** The request's time, read once: a created task's `nextRunAt` and `createdAt` agree on what "now" was. */
  now: Date;
}

export interface ApiResult {
  status: number;
  body: unknown;
}

export const HANDLERS: Record<OperationName, (ctx: ApiContext) => ApiResult> = {
  "projects.list": listProjects,
  "sites.list": listSites,
  "sites.update": updateSite,
  "tasks.create": createTask,
  "products.create": createProduct,
  "products.update": updateProduct,
};

function listProjects(ctx: ApiContext): ApiResult {
  const query = validate(ListProjectsQuery, numericLimit(ctx.query));
  let workspaces = [...ctx.workspaces];
  if (query.workspaceId !== undefined) {
    if (!ctx.store.hasWorkspace(query.workspaceId)) throw new HttpError("not_found", `workspace ${query.workspaceId} not found`);
    if (!ctx.workspaces.has(query.workspaceId)) throw forbidden(`workspace ${query.workspaceId}`);
    workspaces = [query.workspaceId];
  }
  const listing = `projects:${query.workspaceId ?? "*"}`;
  const after = decodeCursor(query.cursor, listing);
  const limit = query.limit ?? ctx.defaultPageSize;
  return list(ctx.store.listProjects(workspaces, after, limit), listing);
}

function listSites(ctx: ApiContext): ApiResult {
  const query = validate(ListSitesQuery, numericLimit(ctx.query));
  projectFor(ctx, query.projectId);
  const listing = `sites:${query.projectId}`;
  const after = decodeCursor(query.cursor, listing);
  return list(ctx.store.listSites(query.projectId, after, query.limit ?? ctx.defaultPageSize), listing);
}

function updateSite(ctx: ApiContext): ApiResult {
  const siteId = pathId(ctx, "siteId");
  const body = validate(UpdateSiteBody, objectBody(ctx.body));
  const found = ctx.store.getSite(siteId);
  if (!found) throw new HttpError("not_found", `site ${siteId} not found`);
  projectFor(ctx, found.projectId);
  return { status: 200, body: ctx.store.updateSite(siteId, body) };
}

function createTask(ctx: ApiContext): ApiResult {
  const body = validate(CreateTaskBody, objectBody(ctx.body));
  projectFor(ctx, body.projectId);
  const next = nextRun(body.scheduledAt, body.rrule, ctx.now);
  if (!next.ok) throw new HttpError("invalid_request", `${next.field} ${next.problem}`);
  // The body's fields (the contract's table), and what the service sets: an absent emoji or rrule is
  // empty, a rule is stored trimmed, and the next run and the times are the simulator's.
  const task = ctx.store.createTask({
    projectId: body.projectId,
    fields: {
      ...body,
      emoji: body.emoji ?? "",
      rrule: body.rrule?.trim() ?? "",
      nextRunAt: next.nextRunAt,
      createdAt: ctx.now.toISOString(),
      updatedAt: ctx.now.toISOString(),
    },
  });
  return { status: 201, body: task };
}

function createProduct(ctx: ApiContext): ApiResult {
  const raw = objectBody(ctx.body);
  // A field only an update sets (the contract's table: `create: false`) is refused by name.
  for (const field of PRODUCT_FIELD_NAMES.filter((f) => PRODUCT_FIELD_SPECS[f].create === false)) {
    if (field in raw)
      throw new HttpError("invalid_request", `${field} is not accepted when creating a product; set it with products.update`);
  }
  const body = validate(CreateProductBody, raw);
  projectFor(ctx, body.projectId);
  const product = ctx.store.createProduct({ body, at: ctx.now });
  return { status: 201, body: product };
}

function updateProduct(ctx: ApiContext): ApiResult {
  const productId = pathId(ctx, "productId");
  const body = validate(UpdateProductBody, ctx.body === undefined ? {} : objectBody(ctx.body));
  const found = ctx.store.getProduct(productId);
  if (!found) throw new HttpError("not_found", `product ${productId} not found`);
  projectFor(ctx, found.projectId);
  return { status: 200, body: ctx.store.updateProduct(productId, body, ctx.now) };
}

// ---- helpers ----

function validate<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const result = parseWithIssues(schema, value);
  if (!result.success) throw new HttpError("invalid_request", result.message);
  return result.data;
}

/** Query strings arrive as text; a well-formed number becomes a number so the schema can check its range. */
function numericLimit(query: Record<string, unknown>): Record<string, unknown> {
  const limit = query.limit;
  if (typeof limit === "string" && /^-?\d+(\.\d+)?$/.test(limit)) return { ...query, limit: Number(limit) };
  return query;
}

function objectBody(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new HttpError("invalid_request", "body must be a JSON object");
  }
  return body as Record<string, unknown>;
}

function pathId(ctx: ApiContext, name: string): string {
  const value = ctx.params[name] ?? "";
  if (!uuid.safeParse(value).success) throw new HttpError("invalid_request", `${name} must be a UUID (8-4-4-4-12 hex digits)`);
  return value;
}

/** The project, if it exists (404) and the token may access its workspace (403). */
function projectFor(ctx: ApiContext, projectId: string) {
  const project = ctx.store.getProject(projectId);
  if (!project) throw new HttpError("not_found", `project ${projectId} not found`);
  if (!ctx.workspaces.has(project.workspace_id)) throw forbidden(`project ${projectId}`);
  return project;
}

function forbidden(what: string): HttpError {
  return new HttpError("forbidden", `this token may not access ${what}`);
}

function list<T extends { seq: number }>(slice: { rows: T[]; hasMore: boolean }, listing: string): ApiResult {
  const data = slice.rows.map(({ seq: _seq, ...record }) => record);
  const last = slice.rows.at(-1);
  const next = slice.hasMore && last ? encodeCursor(listing, last.seq) : null;
  return { status: 200, body: { object: "list", data, has_more: slice.hasMore, next_cursor: next } };
}

/**
 * Cursors are opaque to clients: the listing they belong to and the position after which the next
 * page starts. Paging by position (not offset) keeps the order stable while records change.
 */
function encodeCursor(listing: string, seq: number): string {
  return Buffer.from(JSON.stringify({ l: listing, s: seq })).toString("base64url");
}

function decodeCursor(cursor: string | undefined, listing: string): number {
  if (cursor === undefined) return 0;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw new HttpError("invalid_request", "cursor is not a cursor this API returned");
  }
  const { l, s } = (decoded ?? {}) as { l?: unknown; s?: unknown };
  if (typeof s !== "number" || !Number.isInteger(s) || s < 0) {
    throw new HttpError("invalid_request", "cursor is not a cursor this API returned");
  }
  if (l !== listing) throw new HttpError("invalid_request", "cursor belongs to a different listing (other filters)");
  return s;
}
