/**
 * The typed client: transport, headers, retries and the six operations. Each operation validates
 * its arguments with the zod schema before sending, and its response after receiving.
 */
import { Agent, request, type Dispatcher } from "undici";
import { z } from "zod";
import { resolveConfig, type ClientOptions, type LogEvent, type ResolvedConfig } from "./config";
import {
  ApiError, ConnectionError, ResponseValidationError, TimeoutError, type ApiErrorInit,
} from "./core/error";
import { CursorList, type Page } from "./core/pagination";
import {
  SharedBackoff, backoffDelay, describeTransportError, isAmbiguousStatus, isIdempotent, parseRetryAfter, sleep,
  wasNeverSent,
} from "./core/retry";
import { parseRequest, parseResponse } from "./core/validation";
import { OPERATIONS, type OperationName } from "./operations";
import {
  CreateProductBody, CreateTaskBody, ErrorEnvelope, ListProjectsQuery, ListSitesQuery, Product, ProjectList, Site,
  SiteList, Task, UpdateProductBody, UpdateSiteBody, uuid, type Project,
} from "./schemas";

const VERSION = "0.1.0";
/** Lists ask for the largest page the API allows, so a full listing costs ⌈N/100⌉ requests. */
const MAX_PAGE_SIZE = 100;

interface CallInput {
  pathParams?: Record<string, string>;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
}

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export class ServiceApiClient {
  readonly #token: string;
  readonly #config: ResolvedConfig;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #backoff = new SharedBackoff();
  readonly #logger: ((event: LogEvent) => void) | undefined;
  readonly #userAgent: string;

  constructor(options: ClientOptions = {}) {
    this.#config = resolveConfig(options);
    this.#token = this.#config.token;
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#dispatcher = options.dispatcher ?? new Agent({ keepAliveTimeout: 10_000 });
    this.#logger = options.logger;
    this.#userAgent = options.userAgent ?? `pulumi-serviceapi/${VERSION}`;
  }

  get baseUrl(): string {
    return this.#config.baseUrl.href;
  }

  get publicBaseUrl(): string {
    return this.#config.publicBaseUrl.href;
  }

  /** `projects.list`: every project the token can act on, optionally within one workspace. */
  listProjects(query: ListProjectsQuery = {}): CursorList<Project> {
    const op = "projects.list";
    return new CursorList(op, async (cursor) => {
      const q = parseRequest(op, ListProjectsQuery, query);
      return this.#fetchPage(op, { ...q, cursor: cursor ?? q.cursor, limit: q.limit ?? MAX_PAGE_SIZE }, ProjectList);
    }, query.cursor);
  }

  /** `sites.list`: the sites of one project. */
  listSites(query: ListSitesQuery): CursorList<Site> {
    const op = "sites.list";
    return new CursorList(op, async (cursor) => {
      const q = parseRequest(op, ListSitesQuery, query);
      return this.#fetchPage(op, { ...q, cursor: cursor ?? q.cursor, limit: q.limit ?? MAX_PAGE_SIZE }, SiteList);
    }, query.cursor);
  }

  /** `sites.update`: renames a site. */
  async updateSite(siteId: string, body: UpdateSiteBody): Promise<Site> {
    const op = "sites.update";
    const params = parseRequest(op, z.object({ siteId: uuid }), { siteId });
    return this.#call(op, { pathParams: params, body: parseRequest(op, UpdateSiteBody, body) }, Site);
  }

  /** `tasks.create`. Never retried after an ambiguous failure: see `ServiceApiError.mayHaveSucceeded`. */
  async createTask(body: CreateTaskBody): Promise<Task> {
    const op = "tasks.create";
    return this.#call(op, { body: parseRequest(op, CreateTaskBody, body) }, Task);
  }

  /** `products.create` (version 2026-06-27). Never retried after an ambiguous failure. */
  async createProduct(body: CreateProductBody): Promise<Product> {
    const op = "products.create";
    return this.#call(op, { body: parseRequest(op, CreateProductBody, body) }, Product);
  }

  /** `products.update`: sends only the fields given; `null` clears a nullable field. */
  async updateProduct(productId: string, body: UpdateProductBody): Promise<Product> {
    const op = "products.update";
    const params = parseRequest(op, z.object({ productId: uuid }), { productId });
    return this.#call(op, { pathParams: params, body: parseRequest(op, UpdateProductBody, body) }, Product);
  }

  /** Closes the client's keep-alive connections (not an injected dispatcher). */
  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  async #fetchPage<T>(
    op: OperationName,
    query: Record<string, string | number | undefined>,
    schema: z.ZodType<{ data: T[]; has_more: boolean; next_cursor: string | null }>,
  ): Promise<Page<T>> {
    const list = await this.#call(op, { query }, schema);
    return { items: list.data, hasMore: list.has_more, nextCursor: list.next_cursor };
  }

  async #call<T extends z.ZodType>(op: OperationName, input: CallInput, schema: T): Promise<z.infer<T>> {
    const spec = OPERATIONS[op];
    const url = this.#url(op, input);
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#token}`,
      "service-api-version": spec.version,
      accept: "application/json",
      "user-agent": this.#userAgent,
    };
    const body = input.body === undefined ? undefined : JSON.stringify(input.body);
    if (body !== undefined) headers["content-type"] = "application/json";
    const idempotent = isIdempotent(spec.method);
    const { retry } = this.#config;

    for (let attempt = 1; ; attempt++) {
      const retriesLeft = attempt <= retry.maxRetries;
      await this.#backoff.wait();
      this.#log({ type: "request", operation: op, method: spec.method, url: url.href, attempt });
      const started = performance.now();
      let res: RawResponse;
      try {
        res = await this.#send(url, spec.method, headers, body);
      } catch (err) {
        const timedOut = err === TIMED_OUT;
        const safe = idempotent || (!timedOut && wasNeverSent(err));
        if (safe && retriesLeft) {
          await this.#retryAfterDelay(op, attempt, backoffDelay(attempt - 1, retry), timedOut ? "timeout" : "connection error");
          continue;
        }
        if (timedOut) throw new TimeoutError(op, this.#config.timeoutMs, { mayHaveSucceeded: !safe });
        throw new ConnectionError(op, this.#redact(describeTransportError(err)), { cause: err, mayHaveSucceeded: !safe });
      }
      const requestId = header(res.headers, "x-request-id");
      this.#log({
        type: "response", operation: op, status: res.status, attempt,
        durationMs: Math.round(performance.now() - started), ...(requestId ? { requestId } : {}),
      });

      if (res.status >= 200 && res.status < 300) {
        return parseResponse(op, res.status, schema, parseJson(op, res));
      }

      const retryAfterMs = parseRetryAfter(header(res.headers, "retry-after"));
      const init = this.#errorInit(op, res, requestId, retryAfterMs);
      if (res.status === 429) {
        if (retryAfterMs !== undefined && retryAfterMs > retry.maxRetryAfterMs) {
          throw ApiError.from(init, `The server asked to wait ${retryAfterMs} ms, more than maxRetryAfterMs (${retry.maxRetryAfterMs} ms).`);
        }
        if (!retriesLeft) throw ApiError.from(init, `Gave up after ${attempt} attempts.`);
        const delay = retryAfterMs ?? backoffDelay(attempt - 1, retry);
        // Shared: every call of this client holds off until the limit has passed.
        this.#backoff.pauseFor(delay);
        this.#log({ type: "retry", operation: op, attempt, delayMs: delay, reason: "429 rate limited" });
        continue;
      }
      if (res.status === 503 && retriesLeft) {
        const delay = retryAfterMs !== undefined ? Math.min(retryAfterMs, retry.maxRetryAfterMs) : backoffDelay(attempt - 1, retry);
        await this.#retryAfterDelay(op, attempt, delay, "503 unavailable");
        continue;
      }
      if (isAmbiguousStatus(res.status)) {
        if (idempotent && retriesLeft) {
          await this.#retryAfterDelay(op, attempt, backoffDelay(attempt - 1, retry), `${res.status} server error`);
          continue;
        }
        if (!idempotent) throw ApiError.from({ ...init, mayHaveSucceeded: true });
      }
      const exhausted = attempt > 1 && res.status >= 500;
      throw ApiError.from(init, exhausted ? `Gave up after ${attempt} attempts.` : undefined);
    }
  }

  async #retryAfterDelay(op: string, attempt: number, delayMs: number, reason: string): Promise<void> {
    this.#log({ type: "retry", operation: op, attempt, delayMs, reason });
    await sleep(delayMs);
  }

  /** One attempt; always reads the body to the end so the connection can be reused. */
  async #send(url: URL, method: string, headers: Record<string, string>, body: string | undefined): Promise<RawResponse> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(TIMED_OUT), this.#config.timeoutMs);
    try {
      const res = await request(url, { method, headers, body, dispatcher: this.#dispatcher, signal: controller.signal });
      const text = await res.body.text();
      return { status: res.statusCode, headers: res.headers, text };
    } catch (err) {
      throw controller.signal.aborted ? TIMED_OUT : err;
    } finally {
      clearTimeout(timer);
    }
  }

  #url(op: OperationName, input: CallInput): URL {
    const spec = OPERATIONS[op];
    const base = spec.host === "public" ? this.#config.publicBaseUrl : this.#config.baseUrl;
    const path = spec.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(input.pathParams?.[name] ?? ""));
    const url = new URL(base.pathname.replace(/\/+$/, "") + path, base);
    for (const [key, value] of Object.entries(input.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url;
  }

  #errorInit(op: string, res: RawResponse, requestId: string | undefined, retryAfterMs: number | undefined): ApiErrorInit {
    let envelope: ErrorEnvelope["error"] | undefined;
    try {
      const parsed = ErrorEnvelope.safeParse(JSON.parse(res.text));
      if (parsed.success) envelope = parsed.data.error;
    } catch {
      // Not JSON (a proxy's HTML page, say): reported from the raw text below.
    }
    if (envelope) {
      envelope = { code: this.#redact(envelope.code), message: this.#redact(envelope.message), doc_url: this.#redact(envelope.doc_url) };
    }
    return { operation: op, status: res.status, envelope, bodyText: this.#redact(res.text), requestId, retryAfterMs };
  }

  /** The token must never reach an error or a log, even if a server or proxy echoes it back. */
  #redact(text: string): string {
    return text.split(this.#token).join("[REDACTED]");
  }

  #log(event: LogEvent): void {
    this.#logger?.(event);
  }
}

const TIMED_OUT = Symbol("timed out");

function header(headers: RawResponse["headers"], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function parseJson(op: string, res: RawResponse): unknown {
  try {
    return JSON.parse(res.text);
  } catch {
    throw new ResponseValidationError(op, res.status, [{ path: "", message: "body is not valid JSON" }]);
  }
}
