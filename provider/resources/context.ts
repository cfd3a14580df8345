/**
 * Everything a provider process keeps between the engine's requests, in one object: the settings
 * and the one API client, the site listings (shared so N sites of a project cost one listing), the
 * `ledger` (what one operation leaves for a later one: `ledger.ts`), what was said already, and
 * where messages go. Each face makes
 * one per provider process and hands it to every lifecycle call — the dynamic face when its module
 * loads (`dynamic/context.ts`), the plugin in `main` — and a test makes its own, so no test depends
 * on another's configuration.
 *
 * The engine runs every resource of a provider in one process for one `pulumi` command — or two:
 * without `--skip-preview`, `up`, `refresh` and `destroy` run their preview, then themselves, each
 * in a process of its own — so the keep-alive connections, the shared 429 pause, the caches and the
 * token's verdict live exactly as long as one of those. What the process sent is counted, and said
 * in one line as it ends (`summary`). The engine does not tell a provider which command it serves
 * (a read or a delete carries no command and no "preview" flag), so no message here names one.
 */
import { ServiceApiClient, TokenGate, type LogEvent, type Site } from "../client";
import { CommandLedger } from "./ledger";
import { SETTINGS, readSettings, type ProviderSettings } from "./settings";

export type Severity = "info" | "warning";

/** Where a message goes: the CLI's output, through whatever the face has (a print, the engine's Log service). */
export type MessageSink = (severity: Severity, message: string) => void;

export interface ContextOptions {
  sink: MessageSink;
  /** The URN of the resource the current request is about, where the face knows it (the plugin does). */
  urn?: () => string | undefined;
  /** Where `SERVICEAPI_*` fallbacks are read. */
  env?: NodeJS.ProcessEnv;
  /** The program's folder (the provider's working directory), where the other stacks' read runs the CLI. Default: none. */
  projectDir?: string;
}

/** The stack a provider process serves: from the URN (the plugin, which cannot tell the organization) or as the program names it (the dynamic face). */
export interface OwnStack {
  organization?: string;
  project: string;
  stack: string;
}

/** Which provider the settings belong to: the default one (stack config) or an explicit one (its arguments, plugin only). */
export interface SettingsOwner {
  /** The provider resource's URN, when the face knows it. */
  urn?: string;
  explicit: boolean;
}

/**
 * Where a setting in use came from, for advice: the stack config (as it is now, or as recorded at the
 * last `up`: the provider is not told which), an explicit provider's argument, the environment.
 */
export interface SettingOrigin {
  /** As the user sets it: `serviceapi:token`, `SERVICEAPI_TOKEN`, or the explicit provider's `token` argument. */
  name: string;
  from: "config" | "argument" | "env";
}

/** What this process sent to the service, by kind: the summary line's numbers. */
interface Sent {
  /** Empty PATCHes: the API's only read of a product. */
  reads: number;
  /** GETs: listings (projects, sites) for lookups and site refreshes. */
  lookups: number;
  /** Everything else: creates, updates, renames, archives. */
  writes: number;
}

export class ProviderContext {
  readonly #sink: MessageSink;
  readonly #urn: () => string | undefined;
  readonly #env: NodeJS.ProcessEnv;
  readonly #projectDir: string | undefined;
  #settings: ProviderSettings | undefined;
  #settingsError: Error | undefined;
  #owner: SettingsOwner = { explicit: false };
  #client: ServiceApiClient | undefined;
  /** One verdict per token for the whole process (`client/token-gate.ts`): a refused token costs one request per command. */
  readonly #gate = new TokenGate();
  readonly #sent: Sent = { reads: 0, lookups: 0, writes: 0 };
  /** A lifecycle ran (anything but `configure`): the process has something to sum up. */
  #active = false;
  /** Pulumi's Cancel: no new request starts; those in flight finish. */
  readonly #stop = new AbortController();
  readonly #said = new Set<string>();
  readonly #memo = new Map<symbol, unknown>();
  #ownStack: OwnStack | undefined;

  /** projectId → the project's sites by id, listed once per command (a failed listing is dropped). */
  readonly siteListings = new Map<string, Promise<Map<string, Site & { id: string }>>>();
  /** What one operation of this command leaves for a later one. */
  readonly ledger = new CommandLedger();

  constructor(options: ContextOptions) {
    this.#sink = options.sink;
    this.#urn = options.urn ?? (() => undefined);
    this.#env = options.env ?? process.env;
    this.#projectDir = options.projectDir;
  }

  /**
   * Takes the settings a face read from its configuration. Never throws: a problem (no token, a value
   * out of range) is raised instead by the first `check` or API call, which is where the user sees it.
   */
  useSettings(read: () => ProviderSettings, owner: SettingsOwner = { explicit: false }): void {
    this.#owner = owner;
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
    this.#active = true;
    if (this.#settingsError) throw this.#settingsError;
    this.#settings ??= readSettings(() => undefined, this.#env);
    return this.#settings;
  }

  /** The one client of the process; every request it sends is counted for the summary line. */
  client(): ServiceApiClient {
    this.#client ??= new ServiceApiClient({
      ...this.settings().client,
      env: this.#env,
      stopSignal: this.#stop.signal,
      tokenGate: this.#gate,
      // A client's warning (a shared pacer that stopped answering) reaches the user once, as a Pulumi warning.
      logger: (event) => (event.type === "warning" ? this.once("warning", event.message) : this.#count(event)),
    });
    return this.#client;
  }

  #count(event: LogEvent): void {
    if (event.type !== "request") return;
    if (event.method === "GET") this.#sent.lookups += 1;
    else if (event.emptyBody) this.#sent.reads += 1;
    else this.#sent.writes += 1;
  }

  /** A create, update or delete ran (even one that sent nothing): the process has something to sum up. */
  noteWork(): void {
    this.#active = true;
  }

  /** Where the setting in use for `key` came from, as advice names it. */
  origin(key: "token" | "baseUrl" | "publicBaseUrl"): SettingOrigin | undefined {
    let settings: ProviderSettings;
    try {
      settings = this.settings();
    } catch {
      return undefined;
    }
    const source = settings.sources[key];
    if (source === undefined) return undefined;
    if (source === "env") return { name: SETTINGS[key]!.env!, from: "env" };
    if (this.#owner.explicit) return { name: `the explicit provider's \`${key}\` argument`, from: "argument" };
    return { name: `serviceapi:${key}`, from: "config" };
  }

  /**
   * Says the summary line, once, as the process ends: each face knows when (`dynamic/context.ts`,
   * `plugin/main.ts`: the engine stops a provider process with SIGINT once its deployment is
   * done, and still shows what the process says then).
   */
  end(): void {
    const line = this.summary();
    if (line !== undefined) this.once("info", line);
  }

  /**
   * What this process sent to the service, by kind (without the `serviceapi: ` every message
   * starts with); `undefined` if it did nothing. It names the process, not a command: a command
   * with a preview phase runs two processes, each with its own line, and neither is told which it is.
   */
  summary(): string | undefined {
    if (!this.#active) return undefined;
    const { reads, lookups, writes } = this.#sent;
    let line =
      `this provider process sent ${count(reads + lookups + writes, "request")}: ${count(reads, "read")} (empty PATCH), ` +
      `${count(lookups, "lookup")}, ${count(writes, "write")}`;
    const notSent = this.#gate.notSent;
    if (notSent > 0) line += `; ${notSent} not sent, as the service refused the token`;
    return line;
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
   * The stack this process serves: the plugin's from the current request's URN; the dynamic face's
   * as its program named it (`noteOwnStack`). `undefined` when neither can tell.
   */
  ownStack(): OwnStack | undefined {
    return stackOfUrn(this.#urn()) ?? this.#ownStack;
  }

  /** The dynamic face: the stack the program says it runs in (`organization/project/stack`, a hidden input of every resource). */
  noteOwnStack(fullName: string): void {
    const [organization, project, stack] = fullName.split("/");
    if (organization && project && stack) this.#ownStack = { organization, project, stack };
  }

  /** Where `SERVICEAPI_*` fallbacks (and any other variable the provider reads) come from. */
  env(): NodeJS.ProcessEnv {
    return this.#env;
  }

  /** The program's folder (the provider's working directory), if the face gave it. */
  projectDir(): string | undefined {
    return this.#projectDir;
  }

  /**
   * A value made once per process, on first use, and shared by every later caller: `key` is the
   * owning module's own symbol (the other stacks' read: `product/other-stacks.ts`). Kept here, not
   * in that module, so each context — each process, each test — has its own.
   */
  memo<T>(key: symbol, make: () => T): T {
    if (!this.#memo.has(key)) this.#memo.set(key, make());
    return this.#memo.get(key) as T;
  }
}

/** `urn:pulumi:<stack>::<project>::<type>::<name>` → its stack and project; `undefined` for anything else. */
function stackOfUrn(urn: string | undefined): OwnStack | undefined {
  const match = /^urn:pulumi:([^:]+)::([^:]+)::/.exec(urn ?? "");
  return match === null ? undefined : { project: match[2]!, stack: match[1]! };
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? "" : "s"}`;
}
