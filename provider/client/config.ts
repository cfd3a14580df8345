import { setTimeout as sleep } from "node:timers/promises";
import type { Dispatcher } from "undici";
import { ConfigError } from "./errors";
import type { TokenGate } from "./token-gate";

export type LogEvent =
  /** `emptyBody`: no body, or `{}` (a GET; the empty PATCH that reads a product). */
  | { type: "request"; operation: string; method: string; url: string; attempt: number; emptyBody: boolean }
  | { type: "response"; operation: string; status: number; attempt: number; durationMs: number; requestId?: string }
  | { type: "retry"; operation: string; attempt: number; delayMs: number; reason: string }
  /** Something the caller should be told once, such as a shared pacer that stopped answering; never contains the token. */
  | { type: "warning"; message: string };

/** Options for one call; they override the client's for that call only. */
export interface RequestOptions {
  /** Stops the request, any backoff sleep and the shared 429 wait at once (`AbortError`). */
  signal?: AbortSignal;
  /** Per-attempt timeout for this call, in ms (1 to 3,600,000). */
  timeoutMs?: number;
  /** Retries after the first attempt for this call (0 to 10); 429s are bounded by `maxRateLimitRetries` and `rateLimitBudgetMs` instead. */
  maxRetries?: number;
}

/** Client options that messages name, e.g. "more than maxRetryAfterMs (60000 ms)". */
export type OptionName = keyof typeof NUMERIC_OPTIONS | "baseUrl" | "publicBaseUrl" | "sharedPacerUrl";

export interface ClientOptions {
  /** API token. Defaults to `SERVICEAPI_TOKEN`. */
  token?: string;
  /** Origin (and optional path prefix) for the `/v1/...` operations. Defaults to `SERVICEAPI_BASE_URL`. */
  baseUrl?: string;
  /** Origin for the `/api/v1/public/...` operations. Defaults to `SERVICEAPI_PUBLIC_BASE_URL`, then `baseUrl`. */
  publicBaseUrl?: string;
  /** Per-attempt timeout covering the whole response, in ms. Default 30,000; 1 to 3,600,000. */
  timeoutMs?: number;
  /** Retries after the first attempt for 5xx, timeouts and dropped connections. Default 3; 0 to 10. */
  maxRetries?: number;
  /** First backoff delay in ms (doubles per retry, jittered). Default 500; 0 to 60,000. */
  initialRetryDelayMs?: number;
  /** Largest backoff delay in ms. Default 8,000; 0 to 600,000. */
  maxRetryDelayMs?: number;
  /** Longest single `Retry-After` (429 or 503) honoured, in ms; a longer one fails the call at once. Default 60,000; 0 to 3,600,000. */
  maxRetryAfterMs?: number;
  /** Total time one call may spend waiting on 429 responses, in ms. Default 300,000 (5 min); 0 to 3,600,000. */
  rateLimitBudgetMs?: number;
  /** Retries of one call after 429 responses; the next 429 fails it with `RateLimitError`. Default 20; 0 to 1,000. */
  maxRateLimitRetries?: number;
  /** Shortest wait after a 429, in ms, whatever `Retry-After` says (`0`) or backoff gives. Default 250; 10 to 60,000. */
  minRateLimitDelayMs?: number;
  /** Largest response body read, in bytes. Default 10 MiB; 1,024 to 1 GiB. */
  maxResponseBytes?: number;
  /** undici dispatcher to use instead of the client's own keep-alive Agent (tests, proxies). */
  dispatcher?: Dispatcher;
  /** Receives one event per request, response and retry. Events never contain the token. */
  logger?: (event: LogEvent) => void;
  /** Sent as `User-Agent`. */
  userAgent?: string;
  /**
   * How messages name an option, for callers that expose the options under other names: the Pulumi
   * provider passes `{ maxRetryAfterMs: "serviceapi:maxRetryAfterMs", … }`. Unlisted options keep their own names.
   */
  optionLabels?: Partial<Record<OptionName, string>>;
  /**
   * Once it fires, no new request or retry is sent (each call that would send one fails with
   * `AbortError`), while requests already in flight finish. Pulumi's Cancel uses it: stopping
   * started work could lose a create's answer; not starting more loses nothing.
   */
  stopSignal?: AbortSignal;
  /**
   * Shared by clients that should stop at a refused token (`token-gate.ts`): the first request with
   * a token goes alone, and after a 401 or 403 nothing more is sent with it. Default: none, every
   * call is sent.
   */
  tokenGate?: TokenGate;
  /** The client's time, for tests with scaled-down or virtual time. Default: the real clocks. */
  clock?: Clock;
  /**
   * The URL `startSharedPacer()` gave, so that clients in several processes (parallel stacks) pace
   * their requests together, as one client would. Defaults to `SERVICEAPI_SHARED_PACER_URL`. If it
   * stops answering, the client paces alone and logs one `warning` event. Default: none, the client paces alone.
   */
  sharedPacerUrl?: string;
  /**
   * Where the `SERVICEAPI_*` defaults above are read. Default: `process.env`. The provider passes the
   * environment it read its settings from, so a client never sees a variable its settings did not.
   */
  env?: NodeJS.ProcessEnv;
}

/** Every wait and every time the client reads goes through this, so a test can run it without real waits. */
export interface Clock {
  /** Monotonic milliseconds, as `performance.now()`. */
  now(): number;
  /** Milliseconds since the epoch, as `Date.now()`: for a `Retry-After` given as an HTTP date. */
  date(): number;
  /** Resolves after `ms`; rejects with the signal's reason if it fires first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * A request's timeout: a signal that aborts after `ms` of this clock, unless `cancel` (the request
   * ended) aborts first. Optional: without it, `AbortSignal.timeout(ms)` on the real clock. A test clock
   * gives it so that its time, not how fast a busy machine answers, decides when an attempt times out.
   */
  timeout?(ms: number, cancel: AbortSignal): AbortSignal;
}

export const SYSTEM_CLOCK: Clock = {
  now: () => performance.now(),
  date: () => Date.now(),
  sleep: async (ms, signal) => {
    await sleep(ms, undefined, signal === undefined ? undefined : { signal });
  },
};

/** The retry options, by the same names as in `ClientOptions`. */
export type RetryPolicy = Pick<
  Required<ClientOptions>,
  | "maxRetries"
  | "initialRetryDelayMs"
  | "maxRetryDelayMs"
  | "maxRetryAfterMs"
  | "rateLimitBudgetMs"
  | "maxRateLimitRetries"
  | "minRateLimitDelayMs"
>;

export interface ResolvedConfig {
  token: string;
  baseUrl: URL;
  publicBaseUrl: URL;
  timeoutMs: number;
  maxResponseBytes: number;
  retry: RetryPolicy;
  /** The name messages use for an option (`optionLabels`, else the option's own name). */
  label: (name: OptionName) => string;
  stopSignal: AbortSignal | undefined;
  tokenGate: TokenGate | undefined;
  clock: Clock;
  /** The shared pacer to admit requests through, and how messages name its setting. */
  sharedPacer: { url: URL; setting: string } | undefined;
}

/** Every numeric option: default and inclusive range. All stay below 2^31 ms, the limit of Node timers. */
export const NUMERIC_OPTIONS = {
  timeoutMs: { default: 30_000, min: 1, max: 3_600_000 },
  maxRetries: { default: 3, min: 0, max: 10 },
  initialRetryDelayMs: { default: 500, min: 0, max: 60_000 },
  maxRetryDelayMs: { default: 8_000, min: 0, max: 600_000 },
  maxRetryAfterMs: { default: 60_000, min: 0, max: 3_600_000 },
  rateLimitBudgetMs: { default: 300_000, min: 0, max: 3_600_000 },
  maxRateLimitRetries: { default: 20, min: 0, max: 1_000 },
  // Above 0, so a server answering 429 with `Retry-After: 0` cannot make the client spin.
  minRateLimitDelayMs: { default: 250, min: 10, max: 60_000 },
  maxResponseBytes: { default: 10 * 1024 * 1024, min: 1024, max: 1024 * 1024 * 1024 },
} as const;
type NumericOption = keyof typeof NUMERIC_OPTIONS;

/** The environment variable a shared rate-limit pacer's URL is handed to every process in (a tool's protocol: `resources/tool-protocol.ts`). */
export const SHARED_PACER_URL_ENV = "SERVICEAPI_SHARED_PACER_URL";

/** The environment variable each option falls back to when it is not given. */
export const OPTION_ENV = {
  token: "SERVICEAPI_TOKEN",
  baseUrl: "SERVICEAPI_BASE_URL",
  publicBaseUrl: "SERVICEAPI_PUBLIC_BASE_URL",
  sharedPacerUrl: SHARED_PACER_URL_ENV,
} as const;

/**
 * A value as given, else the environment variable `variable`, and which of the two it is (`given`
 * when it is not `undefined`, even empty): the one fallback rule, for the client's options here and
 * the provider's settings (`resources/settings.ts`), which name a value by where it came from.
 */
export function givenOrEnv(
  given: string | undefined,
  variable: string,
  env: NodeJS.ProcessEnv,
): { value: string | undefined; from: "given" | "env" } {
  return given !== undefined ? { value: given, from: "given" } : { value: env[variable], from: "env" };
}

/** Shorter tokens are refused: redacting a one-letter token would corrupt every message it appears in. */
export const MIN_TOKEN_LENGTH = 8;

export function resolveConfig(options: ClientOptions, fallbackEnv: NodeJS.ProcessEnv = process.env): ResolvedConfig {
  const env = options.env ?? fallbackEnv;
  const labels = { ...options.optionLabels };
  const label = (name: OptionName) => labels[name] ?? name;
  const fallback = (name: keyof typeof OPTION_ENV) => givenOrEnv(options[name], OPTION_ENV[name], env);
  const token = fallback("token").value;
  if (!token) throw new ConfigError(`token is required: pass \`token\` or set ${OPTION_ENV.token}`);
  checkToken(token);
  if (options.userAgent !== undefined && !/^[\x20-\x7e]+$/.test(options.userAgent)) {
    throw new ConfigError("userAgent must be printable ASCII (it is sent as a header)");
  }
  const baseUrlText = fallback("baseUrl").value;
  if (!baseUrlText) throw new ConfigError(`baseUrl is required: pass \`baseUrl\` or set ${OPTION_ENV.baseUrl}`);
  const baseUrl = checkBaseUrl(label("baseUrl"), baseUrlText);
  const publicText = fallback("publicBaseUrl").value;
  const publicBaseUrl = publicText ? checkBaseUrl(label("publicBaseUrl"), publicText) : baseUrl;
  const n = (name: NumericOption) => checkNumber(name, options[name], label(name));
  const pacer = fallback("sharedPacerUrl");
  const pacerText = pacer.value;
  const pacerSetting = pacer.from === "env" ? OPTION_ENV.sharedPacerUrl : label("sharedPacerUrl");
  return {
    token,
    baseUrl,
    publicBaseUrl,
    timeoutMs: n("timeoutMs"),
    maxResponseBytes: n("maxResponseBytes"),
    retry: {
      maxRetries: n("maxRetries"),
      initialRetryDelayMs: n("initialRetryDelayMs"),
      maxRetryDelayMs: n("maxRetryDelayMs"),
      maxRetryAfterMs: n("maxRetryAfterMs"),
      rateLimitBudgetMs: n("rateLimitBudgetMs"),
      maxRateLimitRetries: n("maxRateLimitRetries"),
      minRateLimitDelayMs: n("minRateLimitDelayMs"),
    },
    label,
    stopSignal: options.stopSignal,
    tokenGate: options.tokenGate,
    clock: options.clock ?? SYSTEM_CLOCK,
    sharedPacer: pacerText ? { url: checkPacerUrl(pacerSetting, pacerText), setting: pacerSetting } : undefined,
  };
}

/**
 * Checks options as the constructor does — token, URLs, every numeric range — and throws the same
 * `ConfigError` naming the option; nothing is sent. For callers that read options from elsewhere
 * (the Pulumi provider's settings) and want a bad one refused before any request.
 */
export function checkClientOptions(options: ClientOptions, env: NodeJS.ProcessEnv = process.env): void {
  resolveConfig(options, env);
}

/** Checks one numeric option against its documented range; `undefined` gives the default. */
export function checkNumber(name: NumericOption, value: number | undefined, label: string = name): number {
  const spec = NUMERIC_OPTIONS[name];
  if (value === undefined) return spec.default;
  if (!Number.isInteger(value) || value < spec.min || value > spec.max) {
    throw new ConfigError(`${label} must be an integer from ${spec.min} to ${spec.max} (got ${value})`);
  }
  return value;
}

/** The token is sent in a header, so it must be a valid header value; the message never shows it. */
function checkToken(token: string): void {
  if (!/^[\x21-\x7e]+$/.test(token)) {
    throw new ConfigError(
      "token must be printable ASCII without spaces, control characters or non-ASCII letters (it is sent in the Authorization header)",
    );
  }
  if (token.length < MIN_TOKEN_LENGTH) {
    throw new ConfigError(
      `token is too short (${token.length} characters; at least ${MIN_TOKEN_LENGTH}): check SERVICEAPI_TOKEN or serviceapi:token`,
    );
  }
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

/**
 * The pacer is a plain-http server of this machine (`shared-pacer.ts`): anything else is a mistake. The
 * value is not echoed, as its path is the pacer's secret.
 */
function checkPacerUrl(name: string, value: string): URL {
  const fix = "use the URL startSharedPacer() returned, or unset it";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${name} is not a URL: ${fix}`);
  }
  if (url.protocol !== "http:" || !isLoopback(url.hostname)) {
    throw new ConfigError(`${name} must be an http:// URL on a loopback host (got ${url.protocol}//${url.host}): ${fix}`);
  }
  return url;
}

function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127(\.\d{1,3}){3}$/.test(hostname);
}
