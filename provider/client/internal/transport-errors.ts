/**
 * What a failed send means for a retry: nothing was sent, it may have been processed, the client
 * was misused, or we cannot tell. Judged from the error codes undici and Node put on the error and
 * its causes; anything not listed is "unknown" and never retried.
 */

/** Transport error codes proving that no byte of the request reached the server. */
const NOT_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENETDOWN",
  "UND_ERR_CONNECT_TIMEOUT",
]);
/** Transport error codes after which the request may or may not have been processed. */
const MAYBE_SENT_CODES = new Set([
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "ECONNABORTED",
  "UND_ERR_SOCKET",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);
/** Errors undici raises before sending, caused by how the client is used. */
const USAGE_CODES: Record<string, string> = {
  UND_ERR_DESTROYED: "the client is closed; create a new ServiceApiClient",
  UND_ERR_CLOSED: "the client is closed; create a new ServiceApiClient",
  UND_ERR_INVALID_ARG: "undici refused an argument",
  UND_ERR_NOT_SUPPORTED: "undici does not support this request",
  ERR_INVALID_CHAR: "a header has an invalid character",
  ERR_INVALID_ARG_TYPE: "an argument has the wrong type",
  ERR_INVALID_ARG_VALUE: "an argument has an invalid value",
  ERR_HTTP_INVALID_HEADER_VALUE: "a header has an invalid value",
  ERR_INVALID_HTTP_TOKEN: "a header name is invalid",
};

export type TransportFailure = { kind: "not-sent" | "maybe-sent" | "unknown"; detail: string } | { kind: "usage"; detail: string };

export function classifyTransportError(err: unknown): TransportFailure {
  const detail = describeError(err);
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== "string") continue;
    if (NOT_SENT_CODES.has(code)) return { kind: "not-sent", detail };
    if (MAYBE_SENT_CODES.has(code)) return { kind: "maybe-sent", detail };
    if (USAGE_CODES[code]) return { kind: "usage", detail: `${USAGE_CODES[code]} (${code}: ${(e as Error).message})` };
  }
  return { kind: "unknown", detail };
}

function describeError(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    parts.push(typeof code === "string" ? `${e.message} (${code})` : e.message);
  }
  return parts.length > 0 ? parts.join(": ") : String(err);
}
