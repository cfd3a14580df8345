/**
 * The six operations. Each one validates its arguments with the zod schema (`schemas.ts`) before
 * anything is sent, then hands the request to the transport (`internal/transport.ts`), which sends it,
 * retries it when that is safe, and maps failures to errors (`errors.ts`).
 */
import { Agent, type Dispatcher } from "undici";
import { z } from "zod";
import { resolveConfig, type ClientOptions, type RequestOptions } from "./config";
import { CursorList, type Page } from "./pagination";
import { Transport } from "./internal/transport";
import { parseRequest } from "./internal/validation";
import {
  CreateProductBody,
  CreateTaskBody,
  ListProjectsQuery,
  ListSitesQuery,
  Product,
  ProjectList,
  Site,
  SiteList,
  Task,
  UpdateProductBody,
  UpdateSiteBody,
  uuid,
  type OperationName,
  type Project,
} from "../contract/schemas";
import { version as VERSION } from "../../package.json";

/** Lists ask for the largest page the API allows, so a full listing costs ⌈N/100⌉ requests. */
const MAX_PAGE_SIZE = 100;

export class ServiceApiClient {
  readonly #transport: Transport;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #baseUrl: string;
  #closed = false;

  constructor(options: ClientOptions = {}) {
    const config = resolveConfig(options);
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#dispatcher = options.dispatcher ?? new Agent({ keepAliveTimeout: 10_000 });
    this.#transport = new Transport({
      config,
      dispatcher: this.#dispatcher,
      logger: options.logger,
      userAgent: options.userAgent ?? `pulumi-serviceapi/${VERSION}`,
    });
    this.#baseUrl = config.baseUrl.href;
  }

  get baseUrl(): string {
    return this.#baseUrl;
  }

  /** `projects.list`: every project the token can act on, optionally within one workspace. */
  listProjects(query: ListProjectsQuery = {}, options?: RequestOptions): CursorList<Project> {
    return this.#list("projects.list", ListProjectsQuery, query, ProjectList, options);
  }

  /** `sites.list`: the sites of one project. */
  listSites(query: ListSitesQuery, options?: RequestOptions): CursorList<Site> {
    return this.#list("sites.list", ListSitesQuery, query, SiteList, options);
  }

  /** `sites.update`: renames a site. */
  async updateSite(siteId: string, body: UpdateSiteBody, options?: RequestOptions): Promise<Site> {
    const op = "sites.update";
    const params = parseRequest(op, z.object({ siteId: uuid }), { siteId });
    return this.#transport.call(op, { pathParams: params, body: parseRequest(op, UpdateSiteBody, body) }, Site, options);
  }

  /** `tasks.create`. Never retried after an ambiguous failure: see `ServiceApiError.mayHaveSucceeded`. */
  async createTask(body: CreateTaskBody, options?: RequestOptions): Promise<Task> {
    const op = "tasks.create";
    return this.#transport.call(op, { body: parseRequest(op, CreateTaskBody, body) }, Task, options);
  }

  /** `products.create` (version 2026-06-27). Never retried after an ambiguous failure. */
  async createProduct(body: CreateProductBody, options?: RequestOptions): Promise<Product> {
    const op = "products.create";
    return this.#transport.call(op, { body: parseRequest(op, CreateProductBody, body) }, Product, options);
  }

  /** `products.update`: sends only the fields given; `null` clears a nullable field; `{}` reads the record. */
  async updateProduct(productId: string, body: UpdateProductBody, options?: RequestOptions): Promise<Product> {
    const op = "products.update";
    const params = parseRequest(op, z.object({ productId: uuid }), { productId });
    return this.#transport.call(op, { pathParams: params, body: parseRequest(op, UpdateProductBody, body) }, Product, options);
  }

  /** Closes the client's keep-alive connections (not an injected dispatcher's). Later calls fail with `ClientUsageError`. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#transport.close();
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  /** Shared by both listings: the query is checked now, so a bad `limit` throws before any iteration. */
  #list<Q extends { cursor?: string | undefined; limit?: number | undefined }, T>(
    op: OperationName,
    querySchema: z.ZodType<Q>,
    query: Q,
    pageSchema: z.ZodType<{ data: T[]; has_more: boolean; next_cursor: string | null }>,
    options: RequestOptions | undefined,
  ): CursorList<T> {
    const q = parseRequest(op, querySchema, query);
    const fetchPage = async (cursor: string | undefined): Promise<Page<T>> => {
      const page = await this.#transport.call(
        op,
        { query: { ...q, cursor: cursor ?? q.cursor, limit: q.limit ?? MAX_PAGE_SIZE } },
        pageSchema,
        options,
      );
      return { items: page.data, hasMore: page.has_more, nextCursor: page.next_cursor };
    };
    return new CursorList(op, fetchPage, q.cursor, (text) => this.#transport.redact(text));
  }
}
