/**
 * Every error the client throws is a `ServiceApiError` with a stable `code`. Failures the server
 * reported are `ApiError`s (one subclass per status family) built from the error envelope.
 */
import type { ErrorEnvelope } from "../schemas";

export type ErrorIssue = { path: string; message: string };

export class ServiceApiError extends Error {
  /** Stable, machine-readable code. For an `ApiError` it is the envelope's `error.code`. */
  readonly code: string;
  /** The operation that failed, e.g. `products.create`. */
  readonly operation: string | undefined;
  /**
   * True when a create request failed in a way that does not tell whether the server processed it
   * (500/502/504, timeout, connection reset after sending). The record may exist; it was not retried.
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

export interface ApiErrorInit {
  operation: string;
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
    const serverMessage = init.envelope?.message
      ?? `unexpected ${init.status} response without an error envelope${init.bodyText ? `: ${truncate(init.bodyText, 200)}` : ""}`;
    const parts = [`${init.operation} failed: ${init.status} ${code}: ${serverMessage}`];
    if (init.envelope?.doc_url) parts.push(`(docs: ${init.envelope.doc_url})`);
    if (init.requestId) parts.push(`[request id ${init.requestId}]`);
    if (extra) parts.push(extra);
    if (init.mayHaveSucceeded) parts.push(MAY_HAVE_CREATED);
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

/** The request never got a response: connection refused or reset, or the socket closed. */
export class ConnectionError extends ServiceApiError {
  constructor(operation: string, detail: string, opts: { cause?: unknown; mayHaveSucceeded?: boolean } = {}) {
    super("SERVICEAPI_CONNECTION", withOutcome(`${operation} failed: connection error: ${detail}`, opts.mayHaveSucceeded), { operation, ...opts });
  }
}

/** No complete response within the per-request timeout. */
export class TimeoutError extends ServiceApiError {
  constructor(operation: string, timeoutMs: number, opts: { mayHaveSucceeded?: boolean } = {}) {
    super("SERVICEAPI_TIMEOUT", withOutcome(`${operation} failed: no response within ${timeoutMs} ms`, opts.mayHaveSucceeded), { operation, ...opts });
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

/** The server answered with a success status but a body that breaks the documented schema. */
export class ResponseValidationError extends ServiceApiError {
  readonly issues: ErrorIssue[];
  readonly status: number;
  constructor(operation: string, status: number, issues: ErrorIssue[]) {
    super("SERVICEAPI_INVALID_RESPONSE", `${operation}: the ${status} response does not match the API schema: ${formatIssues(issues)}`, { operation });
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

/** The client was configured with a missing or unsafe setting. */
export class ConfigError extends ServiceApiError {
  constructor(message: string) {
    super("SERVICEAPI_CONFIG", message);
  }
}

export function formatIssues(issues: ErrorIssue[]): string {
  return issues.map((i) => (i.path ? `${i.path} ${i.message}` : i.message)).join("; ");
}

function withOutcome(message: string, mayHaveSucceeded: boolean | undefined): string {
  return mayHaveSucceeded ? `${message}. ${MAY_HAVE_CREATED}` : message;
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
