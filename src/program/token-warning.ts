/**
 * Runs in the program process: a `serviceapi:token` stored without `--secret` sits in plain text in
 * `Pulumi.<stack>.yaml` (and so in the repository) and in the state. Said once per program run,
 * from the first resource or data source; the token itself is never printed.
 */
import * as pulumi from "@pulumi/pulumi";

const TOKEN_KEY = "serviceapi:token";
let checked = false;

export function warnIfTokenNotSecret(): void {
  if (checked) return;
  checked = true;
  if (new pulumi.Config("serviceapi").get("token") === undefined || isConfigSecret(TOKEN_KEY)) return;
  void pulumi.log.warn(
    `${TOKEN_KEY} is set in plain text in the stack config, so the token is readable in Pulumi.<stack>.yaml and in the state. ` +
    `Set it with \`pulumi config set --secret ${TOKEN_KEY} <token>\`, or better, remove it ` +
    `(\`pulumi config rm ${TOKEN_KEY}\`) and provide SERVICEAPI_TOKEN in the environment of pulumi.`);
}

/**
 * The SDK knows which config keys are secret (`PULUMI_CONFIG_SECRET_KEYS`, set by the language
 * host); its `isConfigSecret` is internal, so the same source is read here.
 */
function isConfigSecret(key: string): boolean {
  const runtime = pulumi.runtime as unknown as { isConfigSecret?: (k: string) => boolean };
  if (typeof runtime.isConfigSecret === "function") return runtime.isConfigSecret(key);
  try {
    const keys: unknown = JSON.parse(process.env.PULUMI_CONFIG_SECRET_KEYS ?? "[]");
    return Array.isArray(keys) && keys.includes(key);
  } catch {
    return false;
  }
}
