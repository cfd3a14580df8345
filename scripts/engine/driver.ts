/**
 * Drives the real Pulumi CLI (through the Automation API) against a simulator, for the engine
 * tests, the demo and the bench: a program (by default `program/` here, which declares whatever
 * its `engine:spec` config says), one stack per scenario, a local file backend and PULUMI_HOME in a
 * scratch folder, update checks and plugin downloads off, and what went over the wire.
 *
 * The program runs from a copy under `<repo>/.engine-work/`, so `pulumi-serviceapi` resolves to
 * the packed copy `scripts/install-self.sh` put in the repo's node_modules — the form users
 * install, which serializes the provider as a one-line `require` stub.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import {
  LocalWorkspace,
  PulumiCommand,
  Stack,
  type EngineEvent,
  type OutputMap,
  type PreviewResult,
  type SummaryEvent,
  type UpdateKind,
  type UpdateSummary,
  type UpResult,
} from "@pulumi/pulumi/automation";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { REPO } from "../repo";
import type { ProgramSpec } from "./program/spec";
import { rejectionOf } from "./async";

// The bench may import the engine driver only (eslint.config.mjs): it reads the CLI's processes through it.
export { procFile, processTree, statFields } from "./processes";

export { REPO };
export const WORK = join(REPO, ".engine-work");
/**
 * Engine tests wait on several CLI runs; this bounds one scenario, not one run: a guard against a
 * hang, never a measure. At least twice what a scenario takes in CI, where three test files and the
 * bench share two CPUs (the slowest of the files that take it once: lifecycle, 214 s; catalog.test.ts,
 * three times it, 720 s — both in the CI run of f273319, where 240 s stopped catalog.test.ts).
 */
export const ENGINE_TIMEOUT_MS = 480_000;

let command: Promise<{ cmd: PulumiCommand; bin: string }> | undefined;

/** The CLI from scripts/install-pulumi.sh: on PATH (≥ 3.216), cached, or built once (~15 min). */
export function pulumiCli(): Promise<{ cmd: PulumiCommand; bin: string }> {
  command ??= (async () => {
    if (!existsSync(join(REPO, "node_modules", "pulumi-serviceapi", "package.json"))) {
      throw new Error("pulumi-serviceapi is not installed in node_modules: run `npm test` (its pretest runs scripts/install-self.sh)");
    }
    // Not --quiet: the script says on stderr where the CLI comes from, and when it has to build it.
    const bin = execFileSync("bash", [join(REPO, "scripts", "install-pulumi.sh")], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
      timeout: 30 * 60_000,
    })
      .trim()
      .split("\n")
      .pop()!
      .replace(/^PULUMI_BIN=/, "");
    // PulumiCommand wants <root>/bin/pulumi.
    let root = dirname(bin);
    if (basename(bin) !== "bin") {
      root = mkdtempSync(join(WORK, "cli-"));
      symlinkSync(bin, join(root, "bin"));
    }
    const cmd = await PulumiCommand.get({ root, skipVersionCheck: false });
    return { cmd, bin };
  })();
  return command;
}

let opa: string | undefined;

/**
 * The folder of the `opa` the catalog's policies run with (scripts/install-opa.sh: on PATH, cached,
 * or built once, about a minute): on the PATH of every catalog run, as a user's CI installs it.
 */
export function opaBin(): string {
  opa ??= execFileSync("bash", [join(REPO, "scripts", "install-opa.sh"), "--quiet"], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    timeout: 15 * 60_000,
  }).trim();
  return opa;
}

/**
 * The package as a user's program loads it (`npm run install-self` puts it in node_modules), for the
 * inline program: by path, since inside `dist/` the package's own name resolves to `dist/dist/…`.
 */
function installedPackage(): typeof import("pulumi-serviceapi") {
  return createRequire(join(REPO, "package.json"))(join(REPO, "node_modules", "pulumi-serviceapi")) as typeof import("pulumi-serviceapi");
}

/** What the engine-test program declares (its `spec` config): `program/spec.ts`. */
export type { ProductSpec, ProgramSpec, SiteSpec, TaskSpec } from "./program/spec";

export interface Run<R> {
  result: R;
  events: EngineEvent[];
  /** Every warning and error diagnostic, in order. */
  diagnostics: { severity: string; message: string; urn?: string }[];
  /** Engine text plus diagnostics: what a user reads in the terminal. */
  text: string;
  /** `text` without Pulumi's own debug-level events (`--debug`, `-v`), which print secret inputs by design. */
  visible: string;
}

export class EngineStack {
  readonly dir: string;
  #stack!: Stack;
  #env: Record<string, string> = {};
  readonly #sim: Simulator;

  readonly #scratch: string;
  /** The stack's name, as `--stack` takes it. */
  readonly name: string;
  #plugin = false;
  /** True when the stack's backend is its scratch folder's (no `env.PULUMI_BACKEND_URL` given). */
  #ownBackend = true;
  /** The last run's summary event, as the Automation API's `UpdateSummary` (what `stack.info()` gives here). */
  #summary: UpdateSummary | undefined;

  private constructor(sim: Simulator, dir: string, scratch: string, name: string) {
    this.#sim = sim;
    this.dir = dir;
    this.#scratch = scratch;
    this.name = name;
  }

  /** A new stack of the engine-test program, configured for `sim` (token as a secret). */
  static async create(
    sim: Simulator,
    options: {
      config?: Record<string, string>;
      token?: string | null;
      program?: string;
      inPlace?: boolean;
      env?: Record<string, string>;
      /** A Pulumi.yaml's text, written into the stack's scratch folder (instead of copying `program`). */
      yaml?: string;
      /** Load the serviceapi plugin from the repo's node_modules, as an npm project's `plugins.providers` entry does. */
      plugin?: boolean;
      /** The stack's name (default `test`): two stacks of one project can then share a backend (`env: { PULUMI_BACKEND_URL }`). */
      stack?: string;
      /** The project's name, written into the copied Pulumi.yaml (default: the program's own). */
      project?: string;
      /**
       * Run the default program as a Node.js process under the language host for the Automation API's
       * commands too, as a user's `pulumi up` does: for a test of what only that process shows (its
       * warnings once per process, its environment). By default those commands run it inline, in this
       * process (`program/declare.ts`); `spawnCli` always starts the process.
       */
      programProcess?: boolean;
    } = {},
  ): Promise<EngineStack> {
    const { cmd, bin } = await pulumiCli();
    mkdirSync(WORK, { recursive: true });
    const scratch = mkdtempSync(join(WORK, "stack-"));
    let dir = scratch;
    if (options.inPlace && options.program) {
      // Run the project where it is (e.g. the repo root's Pulumi.yaml); only state goes to scratch.
      dir = options.program;
    } else if (options.yaml !== undefined) {
      writeFileSync(join(dir, "Pulumi.yaml"), options.yaml);
    } else {
      const source = options.program ?? join(REPO, "scripts", "engine", "program");
      cpSync(source, dir, { recursive: true, filter: (path) => !path.slice(source.length).includes("node_modules") });
      // The dynamic-provider launcher runs ./node_modules/@pulumi/pulumi from the program folder.
      mkdirSync(join(dir, "node_modules", "@pulumi"), { recursive: true });
      symlinkSync(join(REPO, "node_modules", "@pulumi", "pulumi"), join(dir, "node_modules", "@pulumi", "pulumi"));
    }
    if (options.project !== undefined) {
      if (dir !== scratch) throw new Error("project needs a copy of the program, not inPlace");
      const file = join(dir, "Pulumi.yaml");
      writeFileSync(file, readFileSync(file, "utf8").replace(/^name:.*$/m, `name: ${options.project}`));
    }
    if (options.plugin) {
      if (dir !== scratch) throw new Error("plugin: true needs a copy of the program, not inPlace");
      appendFileSync(join(dir, "Pulumi.yaml"), `\n${PLUGIN_FROM_NODE_MODULES}`);
    }
    mkdirSync(join(scratch, ".state"));
    const engine = new EngineStack(sim, dir, scratch, options.stack ?? "test");
    engine.#plugin = options.plugin === true;
    engine.#env = {
      PULUMI_BACKEND_URL: `file://${join(scratch, ".state")}`,
      PULUMI_CONFIG_PASSPHRASE: "engine-tests",
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      // Type-checking is `npm run typecheck`'s job; the engine runs only need the JavaScript.
      PULUMI_NODEJS_TRANSPILE_ONLY: "true",
      PATH: `${bin}:${join(REPO, "node_modules", ".bin")}:${process.env.PATH ?? ""}`,
      // Stack config is the only source of settings here, as in a GitOps pipeline.
      SERVICEAPI_TOKEN: "",
      SERVICEAPI_BASE_URL: "",
      SERVICEAPI_PUBLIC_BASE_URL: "",
      PULUMI_HOME: join(scratch, ".pulumi-home"),
      ...options.env,
    };
    // The default program, declared in this process for the Automation API's commands (an inline
    // program: no language host, no program process — a third of a driver-based file's CPU). The
    // copied folder still holds it as a process program, for `spawnCli` and `programProcess`.
    const inline = options.program === undefined && options.yaml === undefined && options.programProcess !== true;
    const ws = await LocalWorkspace.create({
      workDir: dir,
      pulumiCommand: cmd,
      pulumiHome: join(scratch, ".pulumi-home"),
      envVars: engine.#env,
      ...(inline && { program: async () => (await import("./program/declare")).declareSpec(installedPackage()) }),
    });
    engine.#ownBackend = options.env?.PULUMI_BACKEND_URL === undefined;
    engine.#stack = await Stack.create(engine.name, ws);
    engine.#readBackFromEvents();
    const token = options.token === undefined ? sim.token : options.token;
    // One `pulumi config set-all`, not a process per key (each CLI process costs about 0.4 s of CPU).
    await engine.#stack.setAllConfig({
      ...(token !== null && { "serviceapi:token": { value: token, secret: true } }),
      "serviceapi:baseUrl": { value: sim.url },
      // Fast retries keep the fault scenarios short; the 429 budget stays generous.
      "serviceapi:initialRetryDelayMs": { value: "20" },
      "serviceapi:maxRetryDelayMs": { value: "200" },
      ...Object.fromEntries(Object.entries(options.config ?? {}).map(([key, value]) => [key, { value }])),
    });
    return engine;
  }

  get stack(): Stack {
    return this.#stack;
  }

  /**
   * After an up, refresh or destroy the Automation API reads back what it did with three more CLI
   * processes — `stack history` for the summary, `stack output` twice for the outputs — with the
   * per-key `config set`s, about a quarter of a driver-based file's CPU (CONTRIBUTING, "The CI
   * budget"). The catalog tool drops the same reads (`withoutResultReads`, provider/catalog/workspace.ts),
   * but a test reads the summary: here it is the engine's own summary event of the same run (the
   * counts `stack history` would report), and outputs are read when a test asks, with `outputs()`.
   */
  #readBackFromEvents(): void {
    const stack = this.#stack;
    stack.info = async () => this.#summary;
    stack.outputs = async () =>
      new Proxy({} as OutputMap, {
        get: (_, key) => {
          // `then` is asked by the `await` that resolves to this map.
          if (key === "then" || typeof key === "symbol") return undefined;
          throw new Error(`an engine run's outputs are not read back (outputs.${String(key)}): use \`await engine.outputs()\``);
        },
      });
  }

  /** Replaces a YAML program (`yaml` option) with `text`, as a user edits Pulumi.yaml; the plugin entry is kept. */
  writeProgram(text: string): void {
    writeFileSync(join(this.dir, "Pulumi.yaml"), this.#plugin ? `${text}\n${PLUGIN_FROM_NODE_MODULES}` : text);
  }

  /**
   * The program's spec, as stack config in the project's namespace (`engine:spec`, or `<project>:spec`
   * for a copy under another name); a secret one when it holds secrets (Pulumi shows plain config as it is).
   */
  async setSpec(spec: ProgramSpec): Promise<void> {
    await this.#stack.setConfig(`${this.#project()}:spec`, {
      value: JSON.stringify(spec),
      secret: spec.secretInputs === true || spec.lookups?.secretName === true,
    });
  }

  async up(options: { refresh?: boolean; runProgram?: boolean; replace?: string[] } = {}): Promise<Run<UpResult>> {
    return this.#run("update", (onEvent) => this.#stack.up({ onEvent, color: "never", ...options }));
  }

  async preview(
    options: { refresh?: boolean; diff?: boolean; expectNoChanges?: boolean; runProgram?: boolean; replace?: string[] } = {},
  ): Promise<Run<PreviewResult>> {
    return this.#run("preview", (onEvent) => this.#stack.preview({ onEvent, color: "never", ...options }));
  }

  async refresh(options: { runProgram?: boolean } = {}) {
    return this.#run("refresh", (onEvent) => this.#stack.refresh({ onEvent, color: "never", ...options }));
  }

  async destroy(options: { runProgram?: boolean } = {}) {
    return this.#run("destroy", (onEvent) => this.#stack.destroy({ onEvent, color: "never", ...options }));
  }

  /** Changes one environment variable for the next commands, as a CI job's environment changes between runs. */
  setEnv(key: string, value: string): void {
    this.#env[key] = value;
    this.#stack.workspace.envVars[key] = value;
  }

  /** Runs `commands` with `env` added to the stack's environment, then puts the environment back. */
  async withEnv<T>(env: Record<string, string>, commands: () => Promise<T>): Promise<T> {
    const before = Object.keys(env).map((key) => [key, this.#env[key] ?? process.env[key] ?? ""] as const);
    for (const [key, value] of Object.entries(env)) this.setEnv(key, value);
    try {
      return await commands();
    } finally {
      for (const [key, value] of before) this.setEnv(key, value);
    }
  }

  /** The stack's outputs, secrets decrypted and marked, as the Automation API reads them (`stack output`, twice). */
  async outputs(): Promise<OutputMap> {
    return this.#stack.workspace.stackOutputs(this.name);
  }

  /** `pulumi stack export` as a user runs it (secrets stay encrypted; the Automation API's own export decrypts them). */
  async exportText(): Promise<string> {
    return execFileSync(this.#stack.workspace.pulumiCommand.command, ["stack", "export", "--stack", this.name], {
      cwd: this.dir,
      env: { ...process.env, ...this.#env },
      encoding: "utf8",
    });
  }

  /** The environment every command of this stack runs with (CLI on PATH, backend, passphrase). */
  get env(): Record<string, string> {
    return { ...this.#env };
  }

  /** A shell line that runs `pulumi <args>` on this stack from a terminal (to reproduce or explore). */
  commandLine(args: string): string {
    const keys = [
      "PULUMI_BACKEND_URL",
      "PULUMI_CONFIG_PASSPHRASE",
      "PULUMI_HOME",
      "PULUMI_SKIP_UPDATE_CHECK",
      "PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION",
    ];
    const env = keys.map((k) => `${k}=${shellQuote(this.#env[k] ?? "")}`).join(" ");
    return `cd ${shellQuote(this.dir)} && PATH=${shellQuote(this.#env.PATH!.split(":").slice(0, 2).join(":"))}:$PATH ${env} pulumi ${args} --stack ${this.name}`;
  }

  /**
   * `pulumi <args> --stack <name>` in its own process group, as a CI runner starts a step, so a
   * signal can reach the CLI alone (`process.kill(pid, …)`); `killTree` is a lost runner.
   */
  spawnCli(args: string[]): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
    const child = spawn(this.#stack.workspace.pulumiCommand.command, [...args, "--stack", this.name], {
      cwd: this.dir,
      env: { ...process.env, ...this.#env },
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let text = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
    });
    child.stderr!.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    return { child, output: () => text, exited };
  }

  /** `pulumi stack export` as JSON (the Automation API's own export). */
  async deployment(): Promise<Deployment> {
    return ((await this.#stack.exportStack()) as unknown as { deployment: never }).deployment;
  }

  /** The stack's state file as the file backend stores it. */
  stateFileText(): string {
    return readFileSync(this.#stateFile(), "utf8");
  }

  /**
   * Overwrites the state file, as a backend that lost its last writes leaves it. The file backend's
   * blob store keeps a `.attrs` beside it (content type and MD5) that a SIGKILL mid-write can leave
   * empty (`failed to load checkpoint: EOF`, docs/recovery.md); written from outside the store, the
   * state gets none, as the store reads a blob without one.
   */
  writeStateFile(text: string): void {
    writeFileSync(this.#stateFile(), text);
    rmSync(`${this.#stateFile()}.attrs`, { force: true });
  }

  /**
   * docs/recovery.md, "A state file that will not load": a SIGKILL while the file backend writes
   * can leave the state's `.attrs` at 0 bytes, and every command then fails with `failed to load
   * checkpoint: EOF`; deleting that empty file is the fix. Returns whether it was needed.
   */
  repairEmptyAttrs(): boolean {
    const attrs = `${this.#stateFile()}.attrs`;
    if (!existsSync(attrs) || statSync(attrs).size > 0) return false;
    rmSync(attrs);
    return true;
  }

  #stateFile(): string {
    const backend = this.#env.PULUMI_BACKEND_URL!.replace(/^file:\/\//, "");
    return join(backend, ".pulumi", "stacks", this.#project(), `${this.name}.json`);
  }

  /** The project's name, as its Pulumi.yaml says now. */
  #project(): string {
    return /^name:\s*(\S+)/m.exec(readFileSync(join(this.dir, "Pulumi.yaml"), "utf8"))![1]!;
  }

  /** Resources of one type from the exported state: the dynamic resources, or with `face: "plugin"` the plugin's. */
  async resources(type: "Product" | "Site" | "Task", face: "dynamic" | "plugin" = "dynamic"): Promise<StateResource[]> {
    const state = (await this.#stack.exportStack()) as { deployment: { resources?: StateResource[] } };
    const token = face === "dynamic" ? `pulumi-nodejs:dynamic/serviceapi:${type}` : `serviceapi:index:${type}`;
    return (state.deployment.resources ?? []).filter((r) => r.type === token);
  }

  /** Runs one CLI command; a failure carries what the user would have seen. */
  async #run<R>(kind: UpdateKind, go: (onEvent: (e: EngineEvent) => void) => Promise<R>): Promise<Run<R>> {
    const events: EngineEvent[] = [];
    this.#sim.clearRequests();
    this.#summary = undefined;
    let result: R;
    try {
      result = await go((e) => {
        events.push(e);
        if (e.summaryEvent) this.#summary = summaryOf(kind, e.summaryEvent);
      });
    } catch (error) {
      throw Object.assign(error as Error, {
        events,
        diagnostics: diagnosticsOf(events),
        text: textOf(events, error),
        visible: textOf(withoutDebug(events), error),
      });
    }
    return {
      result,
      events,
      diagnostics: diagnosticsOf(events),
      text: textOf(events, result),
      visible: textOf(withoutDebug(events), result),
    };
  }

  async dispose(): Promise<void> {
    // A backend of its own goes with the scratch folder; a shared one keeps no stack of this one's.
    if (!this.#ownBackend) {
      try {
        await this.#stack.workspace.removeStack(this.name, { force: true });
      } catch {
        // best effort: the folder goes anyway
      }
    }
    if (this.dir === this.#scratch) rmSync(this.dir, { recursive: true, force: true });
    else rmSync(join(this.dir, `Pulumi.${this.name}.yaml`), { force: true });
    rmSync(this.#scratch, { recursive: true, force: true });
  }
}

/** A run's summary event as the `UpdateSummary` that `stack history` would give for it (the counts are the engine's, the same). */
function summaryOf(kind: UpdateKind, event: SummaryEvent): UpdateSummary {
  return {
    kind,
    // Not known from the event, and no test reads them.
    startTime: new Date(0),
    endTime: new Date(0),
    version: 0,
    message: "",
    environment: {},
    config: {},
    result: "succeeded",
    resourceChanges: event.resourceChanges,
  };
}

/** The parts of a deployment (`pulumi stack export`, or the state file's `checkpoint.latest`) the tests read. */
export interface Deployment {
  resources?: { type: string; id?: string; urn: string; inputs?: Record<string, unknown> }[];
  pending_operations?: { resource: { urn: string; type: string }; type: string }[];
}

export interface StateResource {
  type: string;
  id: string;
  urn: string;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
}

/**
 * The `plugins.providers` entry that loads the serviceapi plugin from the package installed in the
 * repo's node_modules, as an npm project's Pulumi.yaml does.
 */
export const PLUGIN_FROM_NODE_MODULES = `plugins:\n  providers:\n    - name: serviceapi\n      path: ${join(REPO, "node_modules", "pulumi-serviceapi", "plugin")}\n`;

/**
 * The environment that starts the clock of a CLI run's Node.js processes (the program, the dynamic
 * providers, the plugin) at `at`, from where it runs on: libfaketime (Debian's `faketime` package)
 * preloaded. A scenario that needs "later" gets it by running its earlier commands at an earlier
 * time, not by waiting. The CLI and its Go language hosts are statically linked: they keep the real clock.
 */
export function clockAt(at: Date): Record<string, string> {
  const library = ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib"]
    .map((dir) => join(dir, "faketime", "libfaketime.so.1"))
    .find((path) => existsSync(path));
  if (library === undefined) throw new Error("this test sets the engine's clock with libfaketime: install it (apt-get install faketime)");
  // An absolute start is read in local time, so the processes get TZ=UTC: their dates print in UTC anyway.
  return { LD_PRELOAD: library, FAKETIME: `@${at.toISOString().slice(0, 19).replace("T", " ")}`, TZ: "UTC" };
}

/** A spec of `count` products in one project, named and titled `<prefix><i>` / `<prefix> <i>` (and slugged, with `slug`). */
export function catalog(projectId: string, count: number, prefix: string, options: { slug?: boolean } = {}): ProgramSpec {
  return {
    products: Object.fromEntries(
      Array.from({ length: count }, (_, i) => [
        `${prefix}${i}`,
        {
          projectId,
          title: `${prefix} ${i}`,
          ...(options.slug && { slug: `${prefix.toLowerCase()}-${i}` }),
        },
      ]),
    ),
  };
}

/** What a failed CLI run produced (attached by `EngineStack`). */
export interface FailedRun extends Error {
  events: EngineEvent[];
  diagnostics: { severity: string; message: string; urn?: string }[];
  text: string;
  visible: string;
}

/** What a CLI command that must fail showed (`rejectionOf` for an `EngineStack` run); fails the test if it succeeded. */
export async function expectFailure(run: Promise<unknown>): Promise<FailedRun> {
  return (await rejectionOf(run)) as unknown as FailedRun;
}

function diagnosticsOf(events: EngineEvent[]) {
  return events.flatMap((e) =>
    e.diagnosticEvent ? [{ severity: e.diagnosticEvent.severity, message: e.diagnosticEvent.message, urn: e.diagnosticEvent.urn }] : [],
  );
}

function withoutDebug(events: EngineEvent[]): EngineEvent[] {
  return events.filter((e) => (e.diagnosticEvent?.severity as string | undefined) !== "debug");
}

function textOf(events: EngineEvent[], result: unknown): string {
  const r = result as { stdout?: string; stderr?: string; message?: string };
  return [r.stdout ?? "", r.stderr ?? "", r.message ?? "", ...events.map((e) => JSON.stringify(e))].join("\n");
}

/** Steps the engine reported, as `op urn-name` (e.g. `update pro`), without the stack itself. */
export function steps(events: EngineEvent[]): string[] {
  return events
    .flatMap((e) => {
      const m = e.resourcePreEvent?.metadata;
      if (!m || m.type === "pulumi:pulumi:Stack" || m.type.startsWith("pulumi:providers:")) return [];
      return [`${m.op} ${m.urn.split("::").pop()}`];
    })
    .sort();
}

/** The simulator's request log as `METHOD path body` lines — what went over the wire. */
export function wire(sim: Simulator): { operation: string | null; method: string; path: string; body: unknown }[] {
  return sim
    .requests()
    .filter((r) => r.operation !== null)
    .map((r) => ({ operation: r.operation, method: r.method, path: r.path, body: r.body }));
}

/** The requests the simulator saw, as "N (operation ×n, …)" in operation order, or "0". */
export function requestSummary(sim: Simulator): string {
  const counts = new Map<string, number>();
  for (const c of wire(sim)) counts.set(c.operation!, (counts.get(c.operation!) ?? 0) + 1);
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  return total === 0
    ? "0"
    : `${total} (${[...counts]
        .sort()
        .map(([op, n]) => `${op} ×${n}`)
        .join(", ")})`;
}

function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`;
}
