/**
 * Everything a provider process keeps between the engine's requests, in one object: the settings
 * and the one API client, what saves requests within one `pulumi` command (the site listings, the
 * read an adoption's preview made), what was said already, and where messages go. Each face makes
 * one per provider process and hands it to every lifecycle call — the dynamic face when its module
 * loads (`dynamic/context.ts`), the plugin in `main` — and a test makes its own, so no test depends
 * on another's configuration.
 *
 * The engine runs every resource of a provider in one process for one `pulumi` command, so "per
 * process" is "per command": the keep-alive connections, the shared 429 pause and the caches live
 * exactly as long as the command.
 */
import { ServiceApiClient, type Product, type Site } from "../client";
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
  readonly #checked = new Set<string>();
  readonly #imported = new Set<string>();

  /** projectId → the project's sites by id, listed once per command (a failed listing is dropped). */
  readonly siteListings = new Map<string, Promise<Map<string, Site & { id: string }>>>();
  /** Product id → the record `check` read to preview an adoption, for the create of the same command. */
  readonly adoptionReads = new Map<string, Product>();
  /** Product id → the logical name of the resource that manages (or adopts) it, as seen in this command. */
  readonly #claims = new Map<string, string>();

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

  /**
   * `check` saw this resource in this command: a later `diff` of it is planning (against the
   * program), not refreshing (against the last `up`'s inputs), which the engine does not say.
   */
  noteChecked(type: string, name: string | undefined): void {
    this.#checked.add(`${type} ${name}`);
  }

  wasChecked(type: string, name: string | undefined): boolean {
    return this.#checked.has(`${type} ${name}`);
  }

  /**
   * A record an import took into the stack during this command. Pulumi 3.248 forgets an `import:`
   * id in the state when the import is followed by an update in the same run; if that id differs
   * from the resource's id (`<projectId>/<recordId>`), the next `up` imports the record again as an
   * "import replacement" and then deletes the "original" — the same record. So a delete of a record
   * imported (or adopted) in the same command is never sent.
   */
  noteImported(type: string, id: string): void {
    this.#imported.add(`${type}:${id}`);
  }

  importedThisRun(type: string, id: string): boolean {
    return this.#imported.has(`${type}:${id}`);
  }

  /**
   * Records that the resource `name` manages (or will adopt) product `productId`, and returns the
   * other resource's name if one already does: one product, one resource. Seen per command, in the
   * order the engine asks, so it catches what that order shows (two adoptions of one product; an
   * adoption of a product another resource of the stack holds, when that one is asked first).
   */
  claim(productId: string, name: string | undefined): string | undefined {
    if (name === undefined) return undefined;
    const key = productId.toLowerCase();
    const other = this.#claims.get(key);
    if (other !== undefined && other !== name) return other;
    this.#claims.set(key, name);
    return undefined;
  }

  /** The resource (by logical name) other than `name` that manages `productId` in this command, if any. */
  claimant(productId: string, name: string | undefined): string | undefined {
    const other = this.#claims.get(productId.toLowerCase());
    return other !== undefined && other !== name ? other : undefined;
  }
}
