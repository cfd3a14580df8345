/**
 * Provider settings: where the `serviceapi:*` stack config and the `SERVICEAPI_*` environment meet.
 * Used by the dynamic providers (`configure()`, in the provider process) and by the data sources
 * (`pulumi.Config`, in the program process), so both read the same keys the same way.
 */
import {
  ConfigError,
  NUMERIC_OPTIONS,
  OPTION_ENV,
  checkClientOptions,
  checkNumericOption,
  givenOrEnv,
  type ClientOptions,
} from "../client";

/** The numeric client options a stack may set as `serviceapi:<name>`. */
const NUMERIC_KEYS = [
  "timeoutMs",
  "maxRetries",
  "initialRetryDelayMs",
  "maxRetryDelayMs",
  "maxRetryAfterMs",
  "rateLimitBudgetMs",
  "maxRateLimitRetries",
  "minRateLimitDelayMs",
] as const satisfies readonly (keyof typeof NUMERIC_OPTIONS)[];

const NUMERIC_DESCRIPTIONS: Record<(typeof NUMERIC_KEYS)[number], string> = {
  timeoutMs: "Per-attempt timeout covering the whole response, in ms.",
  maxRetries: "Retries after the first attempt for 5xx, timeouts and dropped connections.",
  initialRetryDelayMs: "First backoff delay in ms (doubles per retry, jittered).",
  maxRetryDelayMs: "Largest backoff delay in ms.",
  maxRetryAfterMs: "Longest single Retry-After (429 or 503) honoured, in ms; a longer one fails the call at once.",
  rateLimitBudgetMs: "Total time one call may spend waiting on 429 responses, in ms.",
  maxRateLimitRetries: "Retries of one call answered 429.",
  minRateLimitDelayMs: "Least wait between attempts after a 429, in ms, whatever Retry-After says.",
};

/** Messages name a setting as the user sets it here: `serviceapi:maxRetryAfterMs`, not the client's option name. */
const NUMERIC_LABELS = Object.fromEntries(NUMERIC_KEYS.map((key) => [key, `serviceapi:${key}`]));

interface Setting {
  type: "string" | "boolean" | "integer";
  secret?: boolean;
  env?: string;
  /** A string setting that takes one of these words; the first is the default. The check (`readSettings`) and the schema's description follow from it. */
  values?: readonly string[];
  description: string;
}

/** `serviceapi:adoptManaged`: what an adoption of a product another stack of the same state backend manages does (`product/managed-elsewhere.ts`). */
export const ADOPT_MANAGED = ["refuse", "allow"] as const;
export type AdoptManaged = (typeof ADOPT_MANAGED)[number];

/**
 * Every `serviceapi:*` setting, as the plugin schema and the docs describe it. Numeric settings take
 * their default and range from the client's `NUMERIC_OPTIONS`.
 */
export const SETTINGS: Record<string, Setting> = {
  token: {
    type: "string",
    secret: true,
    env: OPTION_ENV.token,
    description:
      "The API bearer token, at least 8 printable ASCII characters. Prefer SERVICEAPI_TOKEN in the environment: it then appears in no state or log.",
  },
  baseUrl: {
    type: "string",
    env: OPTION_ENV.baseUrl,
    description: "Origin of the /v1/... operations: https://, or http:// on loopback only.",
  },
  publicBaseUrl: {
    type: "string",
    env: OPTION_ENV.publicBaseUrl,
    description: "Origin of the /api/v1/public/... operations. Default: baseUrl.",
  },
  productRefresh: {
    type: "boolean",
    description:
      "Read products at refresh with an empty PATCH (default true); false keeps the stored state, so drift in products is not seen.",
  },
  adoptManaged: {
    type: "string",
    env: "SERVICEAPI_ADOPT_MANAGED",
    values: ADOPT_MANAGED,
    description:
      "An adoption (adoptId, an import) of a product that another stack of the same state backend manages: refuse (the default) fails its preview and up, naming that stack; allow warns and adopts, for a deliberate hand-over.",
  },
  ...Object.fromEntries(
    NUMERIC_KEYS.map((key) => {
      const { default: fallback, min, max } = NUMERIC_OPTIONS[key];
      return [key, { type: "integer" as const, description: `${NUMERIC_DESCRIPTIONS[key]} Default ${fallback}; ${min} to ${max}.` }];
    }),
  ),
};

export interface ProviderSettings {
  client: ClientOptions;
  /** `serviceapi:productRefresh`: read products with an empty PATCH at refresh (default true). */
  productRefresh: boolean;
  /** `serviceapi:adoptManaged` / `SERVICEAPI_ADOPT_MANAGED` (default "refuse"). */
  adoptManaged: AdoptManaged;
  /** Where the token and each URL came from: the configuration (`serviceapi:*`, or an explicit provider's arguments) or `SERVICEAPI_*`. */
  sources: Record<"token" | "baseUrl" | "publicBaseUrl" | "adoptManaged", "config" | "env" | undefined>;
}

const MISSING_TOKEN =
  "serviceapi: no API token. Set it with `pulumi config set --secret serviceapi:token <token>` " +
  "or the SERVICEAPI_TOKEN environment variable.";
const MISSING_BASE_URL =
  "serviceapi: no base URL. Set it with `pulumi config set serviceapi:baseUrl <url>` " + "or the SERVICEAPI_BASE_URL environment variable.";

/** A setting as the configuration gives it, else from its environment variable: where it came from, and its name there. */
interface Found {
  value: string | undefined;
  source: "config" | "env" | undefined;
  /** `serviceapi:<key>`, or the variable when the value is (or would be) the environment's. */
  name: string;
}

/**
 * Builds the settings from a config lookup (`key` is the short name, e.g. `token`) and the
 * environment. Stack config wins over the environment. Never puts the token in a message.
 */
export function readSettings(get: (key: string) => string | undefined, env: NodeJS.ProcessEnv = process.env): ProviderSettings {
  const value = (key: string) => {
    const v = get(key);
    return v === undefined || v === "" ? undefined : v;
  };
  // Where a setting that has a variable came from, worked out once: the client's fallback rule, an empty value unset.
  const find = (key: "token" | "baseUrl" | "publicBaseUrl" | "adoptManaged"): Found => {
    const variable = SETTINGS[key]!.env!;
    const { value: raw, from } = givenOrEnv(value(key), variable, env);
    const found = raw === "" ? undefined : raw;
    const source = found === undefined ? undefined : from === "given" ? "config" : "env";
    return { value: found, source, name: from === "given" ? `serviceapi:${key}` : variable };
  };
  const token = find("token");
  if (!token.value) throw new ConfigError(MISSING_TOKEN);
  const baseUrl = find("baseUrl");
  if (!baseUrl.value) throw new ConfigError(MISSING_BASE_URL);
  const publicBaseUrl = find("publicBaseUrl");
  const adoptManaged = find("adoptManaged");
  // A URL is named by where it came from. The shared pacer's URL is the environment's only, never a
  // stack setting (a tool running stacks in parallel sets it for one run: `client/shared-pacer.ts`):
  // the client reads it there itself, and names it so.
  const optionLabels = { ...NUMERIC_LABELS, baseUrl: baseUrl.name, publicBaseUrl: publicBaseUrl.name };
  const client: ClientOptions = { token: token.value, baseUrl: baseUrl.value, optionLabels };
  if (publicBaseUrl.value) client.publicBaseUrl = publicBaseUrl.value;
  for (const key of NUMERIC_KEYS) {
    const raw = value(key);
    if (raw === undefined) continue;
    // Config values are strings; the range rule (and its message) is the client's own.
    const n = /^\s*\d+\s*$/.test(raw) ? Number(raw) : Number.NaN;
    try {
      client[key] = checkNumericOption(key, n);
    } catch (error) {
      throw new ConfigError(`serviceapi:${(error as Error).message.replace(/\(got .*\)$/, `(got ${JSON.stringify(raw)})`)}`);
    }
  }
  // The client's own checks (token shape and length, URL scheme and form) run here too, so a bad
  // setting fails the preview, not the first request of `up`.
  checkClientOptions(client, env);
  return {
    client,
    productRefresh: readBoolean("productRefresh", value("productRefresh"), true),
    adoptManaged: readWord("adoptManaged", adoptManaged) as AdoptManaged,
    sources: { token: token.source, baseUrl: baseUrl.source, publicBaseUrl: publicBaseUrl.source, adoptManaged: adoptManaged.source },
  };
}

function readBoolean(key: string, raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined) return fallback;
  const v = raw.trim().toLowerCase();
  if (v === "true") return true;
  if (v === "false") return false;
  throw new ConfigError(`serviceapi:${key} must be true or false (got ${JSON.stringify(raw)})`);
}

/** A setting of `values` (`SETTINGS[key].values`), from the config or else its environment variable; the first value when neither sets it. */
function readWord(key: string, found: Found): string {
  const { values } = SETTINGS[key]!;
  if (found.value === undefined) return values![0]!;
  const word = found.value.trim().toLowerCase();
  if (values!.includes(word)) return word;
  throw new ConfigError(`${found.name} must be ${values!.join(" or ")} (got ${JSON.stringify(found.value)})`);
}
