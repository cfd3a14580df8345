/**
 * Provider settings: where the `serviceapi:*` stack config and the `SERVICEAPI_*` environment meet.
 * Used by the dynamic providers (`configure()`, in the provider process) and by the data sources
 * (`pulumi.Config`, in the program process), so both read the same keys the same way.
 */
import { ConfigError, NUMERIC_OPTIONS, checkClientOptions, checkNumericOption, type ClientOptions } from "../client";

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
    env: "SERVICEAPI_TOKEN",
    description:
      "The API bearer token, at least 8 printable ASCII characters. Prefer SERVICEAPI_TOKEN in the environment: it then appears in no state or log.",
  },
  baseUrl: {
    type: "string",
    env: "SERVICEAPI_BASE_URL",
    description: "Origin of the /v1/... operations: https://, or http:// on loopback only.",
  },
  publicBaseUrl: {
    type: "string",
    env: "SERVICEAPI_PUBLIC_BASE_URL",
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

/**
 * Builds the settings from a config lookup (`key` is the short name, e.g. `token`) and the
 * environment. Stack config wins over the environment. Never puts the token in a message.
 */
export function readSettings(get: (key: string) => string | undefined, env: NodeJS.ProcessEnv = process.env): ProviderSettings {
  const value = (key: string) => {
    const v = get(key);
    return v === undefined || v === "" ? undefined : v;
  };
  const token = value("token") ?? env.SERVICEAPI_TOKEN;
  if (!token) throw new ConfigError(MISSING_TOKEN);
  const baseUrl = value("baseUrl") ?? env.SERVICEAPI_BASE_URL;
  if (!baseUrl) throw new ConfigError(MISSING_BASE_URL);
  const publicBaseUrl = value("publicBaseUrl") ?? env.SERVICEAPI_PUBLIC_BASE_URL;
  // A URL is named by where it came from: the stack config key, or the environment variable.
  const optionLabels = {
    ...NUMERIC_LABELS,
    baseUrl: value("baseUrl") === undefined ? "SERVICEAPI_BASE_URL" : "serviceapi:baseUrl",
    publicBaseUrl: value("publicBaseUrl") === undefined ? "SERVICEAPI_PUBLIC_BASE_URL" : "serviceapi:publicBaseUrl",
    sharedPacerUrl: "SERVICEAPI_SHARED_PACER_URL",
  };
  const client: ClientOptions = { token, baseUrl, optionLabels };
  if (publicBaseUrl) client.publicBaseUrl = publicBaseUrl;
  // Environment only, never a stack setting: a tool running stacks in parallel sets it for one run
  // (`client/shared-pacer.ts`), and the CLI passes it to every provider process; nothing records it.
  const sharedPacerUrl = env.SERVICEAPI_SHARED_PACER_URL;
  if (sharedPacerUrl) client.sharedPacerUrl = sharedPacerUrl;
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
  const source = (key: string, fallback: string | undefined) => (value(key) !== undefined ? "config" : fallback ? "env" : undefined);
  return {
    client,
    productRefresh: readBoolean("productRefresh", value("productRefresh"), true),
    adoptManaged: readWord("adoptManaged", value("adoptManaged"), env) as AdoptManaged,
    sources: {
      token: source("token", env.SERVICEAPI_TOKEN),
      baseUrl: source("baseUrl", env.SERVICEAPI_BASE_URL),
      publicBaseUrl: source("publicBaseUrl", env.SERVICEAPI_PUBLIC_BASE_URL),
      adoptManaged: source("adoptManaged", env.SERVICEAPI_ADOPT_MANAGED),
    },
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
function readWord(key: string, configured: string | undefined, env: NodeJS.ProcessEnv): string {
  const { values, env: variable } = SETTINGS[key]!;
  const fromEnv = variable === undefined ? undefined : env[variable] || undefined;
  const raw = configured ?? fromEnv;
  if (raw === undefined) return values![0]!;
  const word = raw.trim().toLowerCase();
  if (values!.includes(word)) return word;
  const name = configured !== undefined ? `serviceapi:${key}` : variable!;
  throw new ConfigError(`${name} must be ${values!.join(" or ")} (got ${JSON.stringify(raw)})`);
}
