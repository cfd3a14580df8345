/**
 * A user of `serviceapi-catalog` for the engine test: a scratch git repository holding a catalog
 * folder, a file backend and a PULUMI_HOME of its own, and the installed bin run as a child process
 * (the packed copy in the repo's node_modules, as `npx serviceapi-catalog` runs it), with the real
 * Pulumi CLI and this Node.js first on PATH — the dynamic-provider launcher starts `node` from PATH.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { stringify } from "yaml";
import { afterAll, beforeAll, onTestFinished } from "vitest";
import { openStateBackend } from "../../provider/backend";
import { planningLine } from "../../provider/catalog/progress";
import type { RunCommand } from "../../provider/catalog/stack-run";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { REPO, WORK, opaBin, pulumiCli } from "../../scripts/engine/driver";
import { simulator } from "../helpers";

/** The installed bin (package.json's `bin`), as `npx serviceapi-catalog` runs it. */
export const BIN = join(REPO, "node_modules", "pulumi-serviceapi", "dist", "provider", "catalog", "bin.js");
/** The project the tool gives its stacks by default (`--project`). */
const PROJECT = "serviceapi-catalog";

export interface ToolRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A catalog entry as the files hold it. */
export type Entry = Record<string, string>;

export class CatalogUser {
  /** The git repository; the tool runs here (its work folder is `.serviceapi-catalog/` under it). */
  readonly repo: string;
  readonly #scratch: string;
  readonly #env: Record<string, string>;
  /** The catalog as the files hold it now, by file name. */
  readonly files: Record<string, Record<string, Entry>> = {};

  private constructor(scratch: string, env: Record<string, string>) {
    this.#scratch = scratch;
    this.repo = join(scratch, "repo");
    this.#env = env;
  }

  static async create(sim: Simulator): Promise<CatalogUser> {
    const { bin } = await pulumiCli();
    mkdirSync(WORK, { recursive: true });
    const scratch = mkdtempSync(join(WORK, "catalog-"));
    const env: Record<string, string> = {};
    // Inherited settings of the machine or of other tests must not reach the tool.
    for (const [key, value] of Object.entries(process.env))
      if (value !== undefined && !/^(SERVICEAPI_|PULUMI_)/.test(key)) env[key] = value;
    // The suite's marker (test/global-setup.ts) stays, so a process left behind is found.
    if (process.env.SERVICEAPI_TEST_RUN !== undefined) env.SERVICEAPI_TEST_RUN = process.env.SERVICEAPI_TEST_RUN;
    Object.assign(env, {
      // OPA for the catalog's policies (its default set is on in every run, as for a user).
      PATH: `${bin}:${opaBin()}:${dirname(process.execPath)}:${process.env.PATH ?? ""}`,
      PULUMI_BACKEND_URL: `file://${join(scratch, "backend")}`,
      PULUMI_HOME: join(scratch, "pulumi-home"),
      PULUMI_CONFIG_PASSPHRASE: "",
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      SERVICEAPI_BASE_URL: sim.url,
      SERVICEAPI_TOKEN: sim.token,
      GIT_AUTHOR_NAME: "Catalog Test",
      GIT_AUTHOR_EMAIL: "catalog@example.com",
      GIT_COMMITTER_NAME: "Catalog Test",
      GIT_COMMITTER_EMAIL: "catalog@example.com",
    });
    const user = new CatalogUser(scratch, env);
    mkdirSync(join(scratch, "backend"));
    mkdirSync(join(user.repo, "catalog"), { recursive: true });
    user.git("init", "--quiet", "--initial-branch=main");
    return user;
  }

  /** Runs `serviceapi-catalog <args>` in the repository; `env` overrides a setting for this run. */
  tool(args: string[], env: Record<string, string> = {}): Promise<ToolRun> {
    return this.start(args, env).run;
  }

  /**
   * Runs the tool as a CI job holding read-only access to the state (a bucket's read-only
   * credentials, a read-only role): the backend folder is mounted read-only for its processes alone
   * (a private mount namespace, util-linux's `unshare`), so any write to it fails with EROFS — root
   * included — while the test and other runs see it as ever.
   */
  toolWithReadOnlyState(args: string[]): Promise<ToolRun> {
    const mountReadOnly = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"';
    return this.start(args, {}, ["unshare", "--mount", "--propagation", "private", "sh", "-c", mountReadOnly, "sh", this.backendDir]).run;
  }

  /**
   * Starts `serviceapi-catalog <args>` as `tool()` does, for a test that acts on the running process:
   * the child, its stderr so far, and its run once it has ended and every process holding its output
   * has closed it.
   */
  start(
    args: string[],
    env: Record<string, string> = {},
    /** A command that execs the tool (its arguments follow), e.g. one that mounts the state read-only. */
    wrapper: string[] = [],
  ): { child: ChildProcess; stderr: () => string; run: Promise<ToolRun> } {
    const command = [...wrapper, process.execPath, BIN, ...args];
    const child = spawn(command[0]!, command.slice(1), { cwd: this.repo, env: { ...this.#env, ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const run = new Promise<ToolRun>((resolve, reject) => {
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, stdout, stderr }));
    });
    return { child, stderr: () => stderr, run };
  }

  /** The file backend's folder (PULUMI_BACKEND_URL). */
  get backendDir(): string {
    return join(this.#scratch, "backend");
  }

  /** This user's PULUMI_HOME: every process of its runs carries it (to find those left running). */
  get pulumiHome(): string {
    return this.#env.PULUMI_HOME!;
  }

  /** The environment the tool runs with. */
  get env(): Record<string, string> {
    return { ...this.#env };
  }

  git(...args: string[]): string {
    return execFileSync("git", args, { cwd: this.repo, env: this.#env, encoding: "utf8" });
  }

  /** Changes the entries of one catalog file (made if new), then writes the catalog. */
  edit(file: string, change: (entries: Record<string, Entry>) => void): void {
    change((this.files[file] ??= {}));
    this.writeCatalog();
  }

  /** Writes every file of `files` as YAML (each a map from key to entry). */
  writeCatalog(): void {
    for (const [file, entries] of Object.entries(this.files)) writeFileSync(join(this.repo, "catalog", file), stringify(entries));
  }

  /** The catalog's stacks in the backend, by short name, as `pulumi stack ls --all` lists them. */
  stacks(): string[] {
    const listed = JSON.parse(this.#pulumi(["stack", "ls", "--all", "--json"])) as { name: string }[];
    return listed.map((s) => s.name.split("/").pop()!).sort();
  }

  /** Every product in every catalog stack's state (`pulumi stack export`): key → its stack and its record's id. */
  products(): Map<string, { stack: string; id: string }> {
    const out = new Map<string, { stack: string; id: string }>();
    for (const stack of this.stacks()) {
      const state = JSON.parse(this.#pulumi(["stack", "export", "--stack", `organization/${PROJECT}/${stack}`])) as {
        deployment: { resources?: { urn: string; type: string; id?: string }[] };
      };
      for (const r of state.deployment.resources ?? []) {
        if (r.type === "pulumi:pulumi:Stack" || r.type.startsWith("pulumi:providers:")) continue;
        const key = r.urn.split("::").pop()!;
        if (out.has(key)) throw new Error(`${key} is in the state of both ${out.get(key)!.stack} and ${stack}`);
        out.set(key, { stack, id: r.id! });
      }
    }
    return out;
  }

  /** The keys a stack's state holds as pending creates (a killed `up`), read from the backend as the tool reads it. */
  async pendingCreates(stack: string): Promise<string[]> {
    return (await this.pendingIds(stack)).map((p) => p.key);
  }

  /**
   * The same, each with the id the run recorded, if it did: on the pending operation (the engine, a
   * create that returned just before the kill), or — for a run that skipped Pulumi's checkpoints, whose
   * state names none of its creates — in the journal beside the state (read here as plain JSON lines:
   * a line before each create is sent, `{"op":"creating","name":…}`, and one with its id after).
   */
  async pendingIds(stack: string): Promise<{ key: string; id?: string }[]> {
    const backend = await openStateBackend({ url: this.#env.PULUMI_BACKEND_URL, env: this.#env });
    try {
      const state = await backend.state({ organization: "organization", project: PROJECT, stack });
      const keyOf = (urn: string) => urn.split("::").pop()!;
      const pending = new Map(
        (state?.pending ?? []).filter((op) => op.type === "creating").map((op) => [keyOf(op.resource.urn), op.resource.id] as const),
      );
      const recorded = new Set((state?.resources ?? []).filter((r) => r.id !== undefined).map((r) => keyOf(r.urn)));
      for (const line of this.journalBeside(stack)) {
        if (typeof line.name !== "string" || recorded.has(line.name)) continue;
        if (line.op === "creating" && !pending.has(line.name)) pending.set(line.name, undefined);
        if (line.op === undefined && typeof line.id === "string") pending.set(line.name, line.id);
      }
      return [...pending].map(([key, id]) => ({ key, ...(id !== undefined && { id }) })).sort((a, b) => (a.key < b.key ? -1 : 1));
    } finally {
      await backend.close();
    }
  }

  /** The journal beside a stack's state (a run that skipped the checkpoints and did not finish), as JSON lines; none: []. */
  journalBeside(stack: string): { op?: string; name?: unknown; id?: unknown }[] {
    let text: string;
    try {
      text = readFileSync(join(this.backendDir, ".pulumi", "serviceapi", "journal", PROJECT, `${stack}.jsonl`), "utf8");
    } catch {
      return [];
    }
    return text
      .split("\n")
      .filter((l) => l.trim() !== "")
      .flatMap((l) => {
        try {
          return [JSON.parse(l) as { op?: string; name?: unknown; id?: unknown }];
        } catch {
          return [];
        }
      });
  }

  /** Runs the user's own `pulumi` in a stack's folder of the tool's work folder (where `pulumi stack init` finds the project). */
  pulumi(args: string[]): string {
    const stacks = join(this.repo, ".serviceapi-catalog", "stacks");
    return execFileSync("pulumi", [...args, "--non-interactive"], {
      cwd: join(stacks, readdirSync(stacks)[0]!),
      env: { ...this.#env, PULUMI_DIY_BACKEND_PARALLEL: "1" },
      encoding: "utf8",
    });
  }

  /** A digest of every file of the backend (names and contents): equal digests, nothing written. */
  backendDigest(): string {
    const root = join(this.#scratch, "backend");
    const hash = createHash("sha256");
    const walk = (dir: string) => {
      for (const dirent of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
        const path = join(dir, dirent.name);
        if (dirent.isDirectory()) walk(path);
        else hash.update(`${relative(root, path)}\n`).update(readFileSync(path));
      }
    };
    walk(root);
    return hash.digest("hex");
  }

  /** A fresh CI runner: no work folder and no PULUMI_HOME from an earlier run, only the backend. */
  cleanRunner(): void {
    rmSync(join(this.repo, ".serviceapi-catalog"), { recursive: true, force: true });
    rmSync(join(this.#scratch, "pulumi-home"), { recursive: true, force: true });
  }

  dispose(): void {
    rmSync(this.#scratch, { recursive: true, force: true });
  }

  #pulumi(args: string[]): string {
    return execFileSync("pulumi", [...args, "--non-interactive"], { cwd: this.#scratch, env: this.#env, encoding: "utf8" });
  }
}

/**
 * A user whose catalog is one file per name of `files` (`<f>.yaml`), each of `perFile` products
 * `<f>-<i>` in "Acme Web"; its scratch folder goes when the test ends.
 */
export async function userWithCatalog(sim: Simulator, files: string[], perFile: number): Promise<CatalogUser> {
  const user = await CatalogUser.create(sim);
  onTestFinished(() => user.dispose());
  for (const file of files) {
    user.files[`${file}.yaml`] = Object.fromEntries(
      Array.from({ length: perFile }, (_, i): [string, Entry] => [`${file}-${i}`, { project: "Acme Web", title: `${file} ${i}` }]),
    );
  }
  user.writeCatalog();
  return user;
}

/** A report's lines with each stack's seconds as `N` (the only part that changes from run to run). */
export function reportLines(text: string): string[] {
  return text
    .trimEnd()
    .split("\n")
    .map((line) => line.replace(/\b\d+\.\d s\b/g, "N s"));
}

/** stderr without the line a run says when its planning takes more than a second (a busy machine): what else it said. */
export function withoutPlanning(stderr: string, command: RunCommand): string {
  return stderr.replace(`${planningLine(command)}\n`, "");
}

/** The line the tool prints on stderr as each stack ends (`catalog-00: ok (1.2 s)`), sorted, seconds left out. */
export function progressLines(text: string): string[] {
  return text
    .split("\n")
    .filter((line) => /^\S+: \w+ \(\d+\.\d s\)$/.test(line))
    .map((line) => line.replace(/ \(\d+\.\d s\)$/, ""))
    .sort();
}

/** The simulator's API requests counted by `METHOD path`, ids as `:id` — what reached the service. */
export function byRoute(sim: Simulator): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of sim.requests()) {
    if (r.operation === null) continue;
    const route = `${r.method} ${r.path.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, ":id")}`;
    counts[route] = (counts[route] ?? 0) + 1;
  }
  return counts;
}

/**
 * A simulator and a catalog user for the steps of one `describe`, handed to `assign` before its
 * first test (a CLI build can take minutes: outside any test's timeout) and disposed after its last.
 */
export function catalogUserFor(assign: (made: { sim: Simulator; user: CatalogUser }) => void): void {
  let user: CatalogUser | undefined;
  beforeAll(async () => {
    await pulumiCli();
    const sim = await simulator();
    user = await CatalogUser.create(sim);
    assign({ sim, user });
  }, 30 * 60_000);
  afterAll(() => user?.dispose());
}
