import type { Dispatcher } from "undici";
import { ConfigError } from "./core/error";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./core/retry";

export type LogEvent =
  | { type: "request"; operation: string; method: string; url: string; attempt: number }
  | { type: "response"; operation: string; status: number; attempt: number; durationMs: number; requestId?: string }
  | { type: "retry"; operation: string; attempt: number; delayMs: number; reason: string };

export interface ClientOptions {
  /** API token. Defaults to `SERVICEAPI_TOKEN`. */
  token?: string;
  /** Origin (and optional path prefix) for the `/v1/...` operations. Defaults to `SERVICEAPI_BASE_URL`. */
  baseUrl?: string;
  /** Origin for the `/api/v1/public/...` operations. Defaults to `SERVICEAPI_PUBLIC_BASE_URL`, then `baseUrl`. */
  publicBaseUrl?: string;
  /** Per-attempt timeout covering the whole response, in ms. Default 30000. */
  timeoutMs?: number;
  /** Retries after the first attempt. Default 3. */
  maxRetries?: number;
  /** First backoff delay in ms (doubles per retry, jittered). Default 500. */
  initialRetryDelayMs?: number;
  /** Largest backoff delay in ms. Default 8000. */
  maxRetryDelayMs?: number;
  /** Longest `Retry-After` honoured, in ms; a longer one fails the call at once. Default 60000. */
  maxRetryAfterMs?: number;
  /** undici dispatcher to use instead of the client's own keep-alive Agent (tests, proxies). */
  dispatcher?: Dispatcher;
  /** Receives one event per request, response and retry. Events never contain the token. */
  logger?: (event: LogEvent) => void;
  /** Sent as `User-Agent`. */
  userAgent?: string;
}

export interface ResolvedConfig {
  token: string;
  baseUrl: URL;
  publicBaseUrl: URL;
  timeoutMs: number;
  retry: RetryPolicy;
}

export const DEFAULT_TIMEOUT_MS = 30_000;

export function resolveConfig(options: ClientOptions, env: NodeJS.ProcessEnv = process.env): ResolvedConfig {
  const token = options.token ?? env.SERVICEAPI_TOKEN;
  if (!token) throw new ConfigError("token is required: pass `token` or set SERVICEAPI_TOKEN");
  if (/\s/.test(token)) throw new ConfigError("token must not contain whitespace");
  const baseUrlText = options.baseUrl ?? env.SERVICEAPI_BASE_URL;
  if (!baseUrlText) throw new ConfigError("baseUrl is required: pass `baseUrl` or set SERVICEAPI_BASE_URL");
  const baseUrl = checkBaseUrl("baseUrl", baseUrlText);
  const publicText = options.publicBaseUrl ?? env.SERVICEAPI_PUBLIC_BASE_URL;
  const publicBaseUrl = publicText ? checkBaseUrl("publicBaseUrl", publicText) : baseUrl;
  return {
    token,
    baseUrl,
    publicBaseUrl,
    timeoutMs: count("timeoutMs", options.timeoutMs ?? DEFAULT_TIMEOUT_MS, 1),
    retry: {
      maxRetries: count("maxRetries", options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries, 0),
      initialDelayMs: count("initialRetryDelayMs", options.initialRetryDelayMs ?? DEFAULT_RETRY_POLICY.initialDelayMs, 0),
      maxDelayMs: count("maxRetryDelayMs", options.maxRetryDelayMs ?? DEFAULT_RETRY_POLICY.maxDelayMs, 0),
      maxRetryAfterMs: count("maxRetryAfterMs", options.maxRetryAfterMs ?? DEFAULT_RETRY_POLICY.maxRetryAfterMs, 0),
    },
  };
}

function count(name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min) {
    throw new ConfigError(`${name} must be an integer of at least ${min} (got ${value})`);
  }
  return value;
}

/** Accepts https URLs, and plain http only on loopback where nothing crosses a network. */
function checkBaseUrl(name: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${name} must be an absolute URL such as https://api.example.com (got ${JSON.stringify(value)})`);
  }
  if (url.username || url.password) {
    throw new ConfigError(`${name} must not contain credentials; pass the token as \`token\``);
  }
  if (url.search || url.hash) {
    throw new ConfigError(`${name} must not contain a query or fragment (got ${JSON.stringify(value)})`);
  }
  if (url.protocol === "https:") return url;
  if (url.protocol === "http:" && isLoopback(url.hostname)) return url;
  throw new ConfigError(
    `${name} must use https:// (got ${url.protocol}//${url.host}); plain http is allowed only for loopback hosts (localhost, 127.0.0.0/8, ::1)`,
  );
}

function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127(\.\d{1,3}){3}$/.test(hostname);
}
