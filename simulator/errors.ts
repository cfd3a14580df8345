/** Error codes the simulator sends in `error.code` (the spec does not list them; see docs/api-assumptions.md). */
export const ERROR_CODES = {
  invalid_request: {
    status: 400,
    description: "The query, path, headers or body break a documented rule (or a size limit); the message names the field.",
  },
  missing_api_version: { status: 400, description: "The Service-Api-Version header is missing." },
  unsupported_api_version: { status: 400, description: "The Service-Api-Version header names a version this endpoint does not accept." },
  unauthorized: { status: 401, description: "The bearer token is missing or invalid." },
  forbidden: { status: 403, description: "The token may not access this workspace or project." },
  not_found: { status: 404, description: "No record (or endpoint) with that id." },
  rate_limited: { status: 429, description: "Too many requests; retry after the Retry-After header." },
  internal_error: { status: 500, description: "The server failed; the request may or may not have been processed." },
  bad_gateway: { status: 502, description: "A proxy in front of the service failed (only as a scripted fault)." },
  service_unavailable: { status: 503, description: "Temporarily unavailable; the request was not processed." },
  gateway_timeout: { status: 504, description: "A proxy in front of the service timed out (only as a scripted fault)." },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export class HttpError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.headers = headers;
  }

  /** The spec's error envelope; `doc_url` points at `/_simulator/errors/<code>` under the simulator's public URL. */
  toEnvelope(publicUrl: string): { error: { code: string; message: string; doc_url: string } } {
    return { error: { code: this.code, message: this.message, doc_url: `${publicUrl}/_simulator/errors/${this.code}` } };
  }
}

export function codeForStatus(status: number): ErrorCode {
  const found = (Object.keys(ERROR_CODES) as ErrorCode[]).find((c) => ERROR_CODES[c].status === status);
  return found ?? "internal_error";
}
