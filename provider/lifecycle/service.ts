/**
 * The settings and the one API client of a provider process. The engine runs every resource of a
 * type in one provider process for one `pulumi` command, so this module state is shared by all of
 * them, and the keep-alive connections and the shared 429 pause with it.
 */
import { ServiceApiClient } from "../client";
import type { ProviderSettings } from "../settings";
import { readSettings } from "../settings";

let settings: ProviderSettings | undefined;
let settingsError: Error | undefined;
let client: ServiceApiClient | undefined;

/**
 * Takes the settings a face read from its configuration. Never throws: a problem (no token, a value
 * out of range) is raised instead by the first `check` or API call, which is where the user sees it.
 */
export function useSettings(read: () => ProviderSettings): void {
  try {
    const next = read();
    if (settings === undefined || JSON.stringify(next) !== JSON.stringify(settings)) client = undefined;
    settings = next;
    settingsError = undefined;
  } catch (error) {
    settingsError = error as Error;
  }
}

/** The settings, read from the environment alone when no configuration was given. */
export function currentSettings(): ProviderSettings {
  if (settingsError) throw settingsError;
  settings ??= readSettings(() => undefined);
  return settings;
}

/** One client per provider process. */
export function apiClient(): ServiceApiClient {
  client ??= new ServiceApiClient(currentSettings().client);
  return client;
}
