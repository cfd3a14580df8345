/**
 * Everything a provider process keeps between the engine's requests, in one object: the settings
 * and the one API client, the site listings (shared so N sites of a project cost one listing), the
 * `ledger` (what one operation leaves for a later one: `ledger.ts`), what was said already, and
 * where messages go. Each face makes
 * one per provider process and hands it to every lifecycle call — the dynamic face when its module
 * loads (`dynamic/context.ts`), the plugin in `main` — and a test makes its own, so no test depends
 * on another's configuration.
 *
 * The engine runs every resource of a provider in one process for one `pulumi` command, so "per
 * process" is "per command": the keep-alive connections, the shared 429 pause and the caches live
 * exactly as long as the command.
 */
import { ServiceApiClient, type Site } from "../client";
import { CommandLedger } from "./ledger";
import { readSettings, type ProviderSettings } from "./settings";

export type Severity = "info" | "warning";

/** Where a message goes: the CLI's output, through whatever the face has (a print, the engine's Log service). */
export type MessageSink = (severity: Severity, message: string) => void;

export interface ContextOptions {
  sink: MessageSink;
  /** The URN of the resource the current request is about, where the face knows it (the plugin does). */
  urn?: () => string | undefined;
  /** Where `SERVICEAPI_*` fallbacks are read. */
  env?: NodeJS.ProcessEnv;
}

export class ProviderContext {
  readonly #sink: MessageSink;
  readonly #urn: () => string | undefined;
  readonly #env: NodeJS.ProcessEnv;
  #settings: ProviderSettings | undefined;
  #settingsError: Error | undefined;
  #client: ServiceApiClient | undefined;
  /** Pulumi's Cancel: no new request starts; those in flight finish. */
  readonly #stop = new AbortController();
  readonly #said = new Set<string>();

  /** projectId → the project's sites by id, listed once per command (a failed listing is dropped). */
  readonly siteListings = new Map<string, Promise<Map<string, Site & { id: string }>>>();
  /** What one operation of this command leaves for a later one. */
  readonly ledger = new CommandLedger();

  constructor(options: ContextOptions) {
    this.#sink = options.sink;
    this.#urn = options.urn ?? (() => undefined);
    this.#env = options.env ?? process.env;
  }

  /**
   * Takes the settings a face read from its configuration. Never throws: a problem (no token, a value
   * out of range) is raised instead by the first `check` or API call, which is where the user sees it.
   */
  useSettings(read: () => ProviderSettings): void {
    try {
      const next = read();
      if (this.#settings === undefined || JSON.stringify(next) !== JSON.stringify(this.#settings)) {
        void this.#client?.close();
        this.#client = undefined;
      }
      this.#settings = next;
      this.#settingsError = undefined;
    } catch (error) {
      this.#settingsError = error as Error;
    }
  }

  /** The settings, read from the environment alone when no configuration was given. */
  settings(): ProviderSettings {
    if (this.#settingsError) throw this.#settingsError;
    this.#settings ??= readSettings(() => undefined, this.#env);
    return this.#settings;
  }

  /** The one client of the process. */
  client(): ServiceApiClient {
    this.#client ??= new ServiceApiClient({ ...this.settings().client, stopSignal: this.#stop.signal });
    return this.#client;
  }

  /** Pulumi's Cancel: requests in flight finish, no new one starts. */
  cancel(): void {
    this.#stop.abort(new Error("Pulumi cancelled the operation"));
  }

  async close(): Promise<void> {
    await this.#client?.close();
  }

  info(message: string): void {
    this.#sink("info", `serviceapi: ${message}`);
  }

  warn(message: string): void {
    this.#sink("warning", `serviceapi: ${message}`);
  }

  /** Says `message` unless this process said it already: the engine may ask the same question twice. */
  once(severity: Severity, message: string): void {
    if (this.#said.has(message)) return;
    this.#said.add(message);
    if (severity === "info") this.info(message);
    else this.warn(message);
  }

  /** The current request's resource URN, if the face knows it. */
  urn(): string | undefined {
    return this.#urn();
  }
}
