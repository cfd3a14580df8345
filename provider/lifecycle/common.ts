/**
 * What the three dynamic providers share inside the provider process: settings from `configure()`,
 * one API client, input checks built from the client's zod schemas, and the rules for turning live
 * records back into inputs at refresh.
 *
 * The engine runs every dynamic resource of a program in one provider process and calls
 * `configure()` once per resource type; module state here is therefore shared by all of them and
 * lives for one `pulumi` command.
 */
import * as log from "@pulumi/pulumi/log";
import { ServiceApiClient, type ServiceApiError } from "../client";
import { readSettings, type ProviderSettings } from "../settings";

/**
 * How the dynamic-provider server passes a value that is not known yet (during preview): this
 * exact string (`unknownValue` in `@pulumi/pulumi/runtime/rpc`).
 */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** The engine's config view, as `configure()` receives it. */
export interface ConfigureRequest {
  config: { get(key: string): string | undefined };
}

let settings: ProviderSettings | undefined;
let settingsError: Error | undefined;
let client: ServiceApiClient | undefined;

/**
 * Reads `serviceapi:*` from the stack config (the engine passes the whole stack config, secrets
 * decrypted), with `SERVICEAPI_*` as the fallback. Never throws: the engine caches the provider
 * before `configure` returns, so a throw here would leave it half set up. A problem is raised
 * instead by the first `check` or API call, which is where the user sees it.
 */
export async function configure(req: ConfigureRequest): Promise<void> {
  try {
    const next = readSettings((key) => req.config.get(`serviceapi:${key}`));
    if (settings === undefined || JSON.stringify(next) !== JSON.stringify(settings)) client = undefined;
    settings = next;
    settingsError = undefined;
  } catch (error) {
    settingsError = error as Error;
  }
}

/** The settings, read from the environment alone when the engine never called `configure`. */
export function currentSettings(): ProviderSettings {
  if (settingsError) throw settingsError;
  settings ??= readSettings(() => undefined);
  return settings;
}

/** One client per provider process, so keep-alive connections and the shared 429 pause are shared. */
export function apiClient(): ServiceApiClient {
  client ??= new ServiceApiClient(currentSettings().client);
  return client;
}

/**
 * Inputs as the program declared them, minus the engine's own `__provider`, with `null` dropped:
 * for every nullable field "absent" and "null" both mean "no value", and storing one form keeps
 * a program that switches between them from showing a diff. The hidden logical name is kept.
 */
export function cleanInputs<T extends object>(news: object, known: readonly (keyof T & string)[]): T & Named {
  const source = news as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of known) {
    const value = source[key];
    if (value !== undefined && value !== null) out[key] = value;
  }
  if (typeof source[NAME_KEY] === "string") out[NAME_KEY] = source[NAME_KEY];
  return out as T & Named;
}

/**
 * The input names a program declared, kept in the outputs under a `__` key (the CLI hides those
 * from diffs) because `read` receives only outputs and must hand back inputs of the same shape.
 */
export const DECLARED = "__declared";

export function declaredKeys(inputs: object): string[] {
  return Object.keys(inputs).filter((k) => !k.startsWith("__")).sort();
}

/**
 * Inputs rebuilt from a refreshed record: every declared input takes its live value, and a
 * nullable field the program left out appears only when the live record has a value for it. The
 * engine stores these as the new inputs, so `preview --refresh --diff` names the drifted field.
 */
export function refreshedInputs(
  declared: readonly string[], live: Record<string, unknown>, optionalNullable: readonly string[],
): Record<string, unknown> {
  const inputs: Record<string, unknown> = {};
  for (const key of declared) inputs[key] = live[key] ?? null;
  for (const key of optionalNullable) {
    if (!declared.includes(key) && live[key] !== null && live[key] !== undefined) inputs[key] = live[key];
  }
  return inputs;
}

/**
 * The resource's logical name (the name in the program and the URN), carried as a hidden input and
 * output by the resource class. Messages name records by it and by id, never by a field value.
 */
export const NAME_KEY = "__logicalName";
export type Named = { [NAME_KEY]?: string };

/** Just the logical name of `source`, to spread into outputs. */
export function named(source: Named): Named {
  return source[NAME_KEY] === undefined ? {} : { [NAME_KEY]: source[NAME_KEY] };
}

/** `Product "pro" (id 0b3f…)`, or `Product 0b3f…` for state written before the name was carried. */
export function label(type: string, id: string, props: Named | undefined): string {
  const name = props?.[NAME_KEY];
  return typeof name === "string" ? `${type} ${JSON.stringify(name)} (id ${id})` : `${type} ${id}`;
}

/**
 * One line the moment a create returns: `serviceapi: created Product "pro-plan" <id>`. If the
 * `pulumi up` is then killed before it writes its state (a lost CI runner, OOM), the run's log —
 * which outlives the runner — names every record it made, so each can be taken over with
 * `adoptId` instead of being created twice (docs/recovery.md).
 */
export function logCreated(type: string, id: string, props: Named): void {
  const name = props[NAME_KEY];
  info(`created ${type} ${name === undefined ? "(unnamed)" : JSON.stringify(name)} ${id}`);
}

export function info(message: string): void {
  void log.info(`serviceapi: ${message}`);
}

export function warn(message: string): void {
  void log.warn(`serviceapi: ${message}`);
}

/** A 404 from the API: the record is gone (or the token can no longer see it). */
export function isNotFound(error: unknown): error is ServiceApiError {
  return (error as { status?: number } | undefined)?.status === 404;
}

/**
 * The error shape the dynamic-provider server turns into a partial failure: the engine records
 * `id` with `properties` as the outputs and shows `reasons` (not `message`). The next `up` then
 * runs an update for the resource instead of a second create.
 */
export function partialFailure(id: string, properties: Record<string, unknown>, message: string): Error {
  return Object.assign(new Error(message), { id, properties, reasons: [message] });
}
