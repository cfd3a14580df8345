/**
 * An output the state keeps as a secret, whatever the program marked. An output is secret when the
 * input of the same name was — the engine marks it so for the dynamic face, which takes plain values
 * (`acceptSecrets: false`), and the plugin, which takes secrets, marks its results the same way
 * itself (`plugin/wire.ts`, `sealed`) — but a hidden output holding a record's *other* values (what
 * a product or site was when this stack took it over — `product/taken-over.ts`, `site.ts`) has no
 * such input, and any of those values may be as secret as the field it came from. The engine reads
 * every provider's outputs keeping secrets (pulumi/pulumi `sdk/go/common/resource/plugin/provider_plugin.go`:
 * `UnmarshalProperties(…, KeepSecrets: true)` for create, read and update, partial failures
 * included), so an output in the wire's secret form is stored encrypted, and comes back in the next
 * request's state — plain to the dynamic face, marked to the plugin, which takes the mark off.
 */

/**
 * How the wire protocol marks a secret value (`{"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
 * "value": …}`: pulumi/pulumi `sdk/go/common/resource/sig/sig.go`, and the SDK's `runtime/rpc` for
 * Node.js). Written out so no provider process loads the program-side SDK; a test keeps the two equal.
 */
export const SECRET_SIG_KEY = "4dabf18193072939515e22adb298388d";
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

export interface Secret<T> {
  [SECRET_SIG_KEY]: typeof SECRET_SIG;
  value: T;
}

/** `value` in the form the engine stores as a secret. */
export function secret<T>(value: T): Secret<T> {
  return { [SECRET_SIG_KEY]: SECRET_SIG, value };
}

/** The value itself: the engine hands it over plain; one still in the secret form is opened. */
export function revealed<T>(value: T | Secret<T> | undefined): T | undefined {
  if (typeof value === "object" && value !== null && (value as Record<string, unknown>)[SECRET_SIG_KEY] === SECRET_SIG)
    return (value as Secret<T>).value;
  return value as T | undefined;
}

/**
 * A value as `pulumi stack export --show-secrets` prints it: a secret as `{<sig>: <secret sig>,
 * "plaintext": <its JSON text>}`, decoded; any other value as it is.
 */
export function exportedPlain(value: unknown): unknown {
  if (typeof value !== "object" || value === null || (value as Record<string, unknown>)[SECRET_SIG_KEY] !== SECRET_SIG) return value;
  const text = (value as { plaintext?: unknown }).plaintext;
  return typeof text === "string" ? (JSON.parse(text) as unknown) : value;
}
