/**
 * Runs in the program process: a `serviceapi:token` stored without `--secret` sits in plain text in
 * `Pulumi.<stack>.yaml` (and so in the repository) and in the state. Said once per program process
 * (one per `pulumi` command), from the first resource or data source; the token is never printed.
 */
// Pulumi's SDK by module: see resource-props.ts.
import { Config } from "@pulumi/pulumi/config";
import * as log from "@pulumi/pulumi/log";
import * as runtimeConfig from "@pulumi/pulumi/runtime/config";

const TOKEN_KEY = "serviceapi:token";

/** The warning for a token set in stack config (`set`) without `--secret`, if one is due. */
export function tokenWarning(set: boolean, secret: boolean): string | undefined {
  if (!set || secret) return undefined;
  return (
    `${TOKEN_KEY} is set in plain text in the stack config, so the token is readable in Pulumi.<stack>.yaml and in the state. ` +
    `Set it with \`pulumi config set --secret ${TOKEN_KEY} <token>\`, or better, remove it ` +
    `(\`pulumi config rm ${TOKEN_KEY}\`) and provide SERVICEAPI_TOKEN in the environment of pulumi.`
  );
}

/** What the program process has said already: the only state of the program side, kept here in one object. */
export const programProcess = { tokenChecked: false };

export function warnIfTokenNotSecret(process = programProcess): void {
  if (process.tokenChecked) return;
  process.tokenChecked = true;
  const warning = tokenWarning(new Config("serviceapi").get("token") !== undefined, isConfigSecret(TOKEN_KEY));
  if (warning !== undefined) void log.warn(warning);
}

/**
 * Whether a config key was set as a secret. The SDK knows (`PULUMI_CONFIG_SECRET_KEYS`, which the
 * language host sets since pulumi/pulumi#6896), but its `isConfigSecret` is internal — there is no
 * public API for it (pulumi/pulumi#13063 asks for one) — so it is used when present and the same
 * variable is read otherwise.
 */
function isConfigSecret(key: string): boolean {
  const runtime = runtimeConfig as unknown as { isConfigSecret?: (k: string) => boolean };
  if (typeof runtime.isConfigSecret === "function") return runtime.isConfigSecret(key);
  try {
    const keys: unknown = JSON.parse(process.env.PULUMI_CONFIG_SECRET_KEYS ?? "[]");
    return Array.isArray(keys) && keys.includes(key);
  } catch {
    return false;
  }
}
