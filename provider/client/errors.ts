/**
 * Every error the client throws is a `ServiceApiError` with a stable `code`. Failures the server
 * reported are `ApiError`s (one subclass per status family) built from the error envelope. How a
 * message reads is decided here — the operation first, then the failure, the retry verdict
 * (`GIVE_UP`) and, when the outcome is unknown, what to check — so every error reads alike. The
 * failure's own words come from where it is found: `config.ts` (a setting), `pagination.ts`,
 * `internal/transport.ts` (a connection error's detail, a 2xx body that is not JSON),
 * `internal/transport-errors.ts` (misuse) and `internal/validation.ts` (the contract's issues).
 */
import { formatIssues, type ErrorIssue } from "../contract/issues";
import type { ErrorEnvelope, HttpMethod } from "../contract/schemas";

export type { ErrorIssue };

export class ServiceApiError extends Error {
  /** Stable, machine-readable code. For an `ApiError` it is the envelope's `error.code`. */
  readonly code: string;
  /** The operation that failed, e.g. `products.create`. */
  readonly operation: string | undefined;
  /**
   * True when the request may have taken effect although the call failed: a create or update that
   * timed out, lost its connection after sending, got 500/502/504 (after any retries), was
   * aborted in flight, or got a success status with an unreadable body. Such a failure is never
   * retried for a create; check the record before trying again.
   */
  readonly mayHaveSucceeded: boolean;

  constructor(code: string, message: string, opts: { operation?: string; cause?: unknown; mayHaveSucceeded?: boolean } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.code = code;
    this.operation = opts.operation;
    this.mayHaveSucceeded = opts.mayHaveSucceeded ?? false;
  }
}

export const MAY_HAVE_CREATED =
  "The request was not retried because the record may have been created: check for it before creating it again.";
const MAY_HAVE_UPDATED = "The update may have been applied: read the record again before relying on its state.";

/** What a caller should know when the outcome is unknown, by method. */
function outcomeNote(method: HttpMethod): string {
  return method === "POST" ? MAY_HAVE_CREATED : MAY_HAVE_UPDATED;
}

export interface ApiErrorInit {
  operation: string;
  method: HttpMethod;
  status: number;
  envelope: ErrorEnvelope["error"] | undefined;
  /** Raw body text, used only when the response is not an error envelope. */
  bodyText: string;
  requestId: string | undefined;
  retryAfterMs: number | undefined;
  mayHaveSucceeded?: boolean;
}

/** An HTTP error response from the service. Branch with `instanceof` on the subclasses or on `status`. */
export class ApiError extends ServiceApiError {
  readonly status: number;
  readonly docUrl: string | undefined;
  readonly requestId: string | undefined;
  /** The wait the server asked for in `Retry-After`, in milliseconds. */
  readonly retryAfterMs: number | undefined;
  /** The server's own message, without the operation/status/doc prefix added for display. */
  readonly serverMessage: string;

  constructor(init: ApiErrorInit, extra?: string) {
    const code = init.envelope?.code ?? `http_${init.status}`;
    const serverMessage =
      init.envelope?.message ??
      `unexpected ${init.status} response without an error envelope${init.bodyText ? `: ${truncate(init.bodyText, 200)}` : ""}`;
    const parts = [`${init.operation} failed: ${init.status} ${code}: ${serverMessage}`];
    if (init.envelope?.doc_url) parts.push(`(docs: ${init.envelope.doc_url})`);
    if (init.requestId) parts.push(`[request id ${init.requestId}]`);
    if (extra) parts.push(extra);
    if (init.mayHaveSucceeded) parts.push(outcomeNote(init.method));
    super(code, parts.join(" "), { operation: init.operation, mayHaveSucceeded: init.mayHaveSucceeded ?? false });
    this.status = init.status;
    this.docUrl = init.envelope?.doc_url;
    this.requestId = init.requestId;
    this.retryAfterMs = init.retryAfterMs;
    this.serverMessage = serverMessage;
  }

  /** Picks the subclass for the status, so callers can branch with `instanceof`. */
  static from(init: ApiErrorInit, extra?: string): ApiError {
    const Class = errorClassFor(init.status);
    return new Class(init, extra);
  }
}

export class BadRequestError extends ApiError {}
export class AuthenticationError extends ApiError {}
export class PermissionDeniedError extends ApiError {}
export class NotFoundError extends ApiError {}
export class RateLimitError extends ApiError {}
export class InternalServerError extends ApiError {}
export class ServiceUnavailableError extends InternalServerError {}

function errorClassFor(status: number): typeof ApiError {
  if (status === 400) return BadRequestError;
  if (status === 401) return AuthenticationError;
  if (status === 403) return PermissionDeniedError;
  if (status === 404) return NotFoundError;
  if (status === 429) return RateLimitError;
  if (status === 503) return ServiceUnavailableError;
  if (status >= 500) return InternalServerError;
  return ApiError;
}

/** Texts that explain why the client stopped retrying. */
export const GIVE_UP = {
  attempts: (n: number) => `Gave up after ${n} attempts.`,
  retryAfterTooLong: (waitMs: number, maxMs: number, setting = "maxRetryAfterMs") =>
    `The server asked to wait ${waitMs} ms, more than ${setting} (${maxMs} ms); not retried.`,
  rateLimitBudget: (waitedMs: number, nextMs: number, budgetMs: number, setting = "rateLimitBudgetMs") =>
    `Waited ${waitedMs} ms on 429 responses; another ${nextMs} ms would pass ${setting} (${budgetMs} ms).`,
  rateLimitRetries: (answered: number, max: number, setting = "maxRateLimitRetries") =>
    `Answered 429 on ${answered} attempt${answered === 1 ? "" : "s"}; ${setting} (${max}) allows no further retry.`,
} as const;

/**
 * Not sent: the service answered an earlier request with the same token 401 or 403, and the
 * client's `tokenGate` sends nothing more with a refused token. `refusal` is that answer.
 */
export class TokenRefusedError extends ServiceApiError {
  /** The refusal's status, 401 or 403. */
  readonly status: number;
  readonly refusal: ApiError;
  constructor(operation: string, refusal: ApiError) {
    super(
      "SERVICEAPI_TOKEN_REFUSED",
      `${operation} was not sent: the service refused this token (${refusal.status} ${refusal.code}) on an earlier request`,
      { operation },
    );
    this.status = refusal.status;
    this.refusal = refusal;
  }
}

/** The request never got a complete response: connection refused or reset, socket closed, or a timeout. */
export class ConnectionError extends ServiceApiError {
  /**
   * The service could not be reached at all (connection refused, unknown host, no route): no byte
   * of the request was sent. Usually a wrong or outdated base URL, or the service is down.
   */
  readonly unreachable: boolean;
  constructor(
    operation: string,
    detail: string,
    opts: { cause?: unknown; mayHaveSucceeded?: boolean; method?: HttpMethod; code?: string; unreachable?: boolean } = {},
  ) {
    super(opts.code ?? "SERVICEAPI_CONNECTION", withOutcome(`${operation} failed: ${detail}`, opts), { operation, ...opts });
    this.unreachable = opts.unreachable ?? false;
  }
}

/** No complete response within the per-attempt timeout. A kind of `ConnectionError`. */
export class TimeoutError extends ConnectionError {
  readonly timeoutMs: number;
  constructor(operation: string, timeoutMs: number, opts: { mayHaveSucceeded?: boolean; method?: HttpMethod; attempts?: number } = {}) {
    const tries = opts.attempts && opts.attempts > 1 ? ` (${opts.attempts} attempts)` : "";
    super(operation, `no response within ${timeoutMs} ms${tries}`, { ...opts, code: "SERVICEAPI_TIMEOUT" });
    this.timeoutMs = timeoutMs;
  }
}

/** The caller's `AbortSignal` fired: the request, a backoff sleep or a shared 429 wait was stopped. */
export class AbortError extends ServiceApiError {
  constructor(operation: string, opts: { mayHaveSucceeded?: boolean; method?: HttpMethod; cause?: unknown; stopped?: boolean } = {}) {
    const what = opts.stopped
      ? `${operation} was not sent: the client was stopped (its stopSignal fired)`
      : `${operation} was aborted by the caller`;
    super("SERVICEAPI_ABORTED", withOutcome(what, opts), { operation, ...opts });
  }
}

/** The response body was larger than `maxResponseBytes`; it was not read further. */
export class ResponseTooLargeError extends ServiceApiError {
  constructor(
    operation: string,
    status: number,
    maxBytes: number,
    opts: { mayHaveSucceeded?: boolean; method?: HttpMethod; setting?: string } = {},
  ) {
    super(
      "SERVICEAPI_RESPONSE_TOO_LARGE",
      withOutcome(
        `${operation}: the ${status} response body is larger than ${opts.setting ?? "maxResponseBytes"} (${maxBytes} bytes)`,
        opts,
      ),
      { operation, ...opts },
    );
  }
}

/**
 * The request could not be sent because of how the client is used: it was closed, or undici
 * refused an argument. Never retried; nothing reached the server.
 */
export class ClientUsageError extends ServiceApiError {
  constructor(operation: string, detail: string, opts: { cause?: unknown } = {}) {
    super("SERVICEAPI_USAGE", `${operation} was not sent: ${detail}`, { operation, ...opts });
  }
}

/** The arguments break a documented limit; nothing was sent. */
export class RequestValidationError extends ServiceApiError {
  readonly issues: ErrorIssue[];
  constructor(operation: string, issues: ErrorIssue[]) {
    super("SERVICEAPI_INVALID_REQUEST", `${operation}: invalid request, nothing was sent: ${formatIssues(issues)}`, { operation });
    this.issues = issues;
  }
}

/**
 * The server answered with a success status but a body that breaks the documented schema. For a
 * create or update the change was made (`mayHaveSucceeded`), only its record could not be read.
 */
export class ResponseValidationError extends ServiceApiError {
  readonly issues: ErrorIssue[];
  readonly status: number;
  constructor(operation: string, status: number, issues: ErrorIssue[], opts: { method?: HttpMethod; requestId?: string } = {}) {
    const applied = opts.method !== undefined && opts.method !== "GET";
    const id = opts.requestId ? ` [request id ${opts.requestId}]` : "";
    const note = !applied
      ? ""
      : opts.method === "POST"
        ? " The service accepted the request, so the record was created: find it before creating it again."
        : " The service accepted the update; read the record again to see its state.";
    super(
      "SERVICEAPI_INVALID_RESPONSE",
      `${operation}: the ${status} response does not match the API schema: ${formatIssues(issues)}${id}.${note}`,
      { operation, mayHaveSucceeded: applied },
    );
    this.issues = issues;
    this.status = status;
  }
}

/** A list response that would make pagination loop forever. */
export class PaginationError extends ServiceApiError {
  constructor(operation: string, detail: string) {
    super("SERVICEAPI_PAGINATION", `${operation}: pagination stopped: ${detail}`, { operation });
  }
}

/** The client was configured with a missing, out-of-range or unsafe setting. */
export class ConfigError extends ServiceApiError {
  constructor(message: string) {
    super("SERVICEAPI_CONFIG", message);
  }
}

function withOutcome(message: string, opts: { mayHaveSucceeded?: boolean; method?: HttpMethod }): string {
  return opts.mayHaveSucceeded ? `${message}. ${outcomeNote(opts.method ?? "POST")}` : message;
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
