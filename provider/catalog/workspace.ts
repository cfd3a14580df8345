/**
 * Where the catalog's stacks run: Pulumi's Automation API over the user's own CLI and state
 * backend (`PULUMI_BACKEND_URL` or `pulumi login`), one project folder per stack under the work
 * folder (default `.serviceapi-catalog/`), each holding a generated Pulumi.yaml; a stack's records
 * are declared in this process (`stack-program.ts`, an inline program). One folder per stack because stacks run in
 * parallel, and the CLI keeps per-folder files (the selected stack, stack config) that concurrent
 * commands in one folder would race on. The folders are rebuilt every run: a clean runner needs
 * nothing from an earlier one.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import type { LocalWorkspace, PulumiCommand, Stack } from "@pulumi/pulumi/automation";
import { stringify } from "yaml";
import { TAKEN_OVER, type TakenOver } from "../resources/product";
import { exportedPlain } from "../resources/secret-output";
import { SITE, setKey } from "../resources/site";
import { KIND } from "./kinds";
import { CatalogError } from "./errors";
import type { ProgramItem } from "./stack-program";

/**
 * The Automation API, loaded at its first use: it loads the whole Pulumi SDK (TypeScript, npm's
 * package tools — about 1 s of CPU), which `plan`, `report`, `where`, `--help` and every refusal
 * before a stack runs do not need.
 */
type Automation = typeof import("@pulumi/pulumi/automation");
let automationModule: Promise<Automation> | undefined;
const automation = (): Promise<Automation> => (automationModule ??= import("@pulumi/pulumi/automation"));

/**
 * Pulumi's PostgreSQL backend (3.248) reads the stacks of `pulumi stack ls` with
 * PULUMI_DIY_BACKEND_PARALLEL workers (default 10), each holding a pooled connection while it asks
 * for a second one, from a pool of 2 × the CPUs: on a runner of 4 CPUs or fewer, listing 4 or more
 * stacks then waits forever (seen with 6 stacks on 2 CPUs: 4 workers, 4 connections, no progress).
 * One worker cannot starve the pool; it costs the listing little (one read per stack). A value the
 * user set is kept.
 */
const BACKEND_LIST_WORKERS: Record<string, string> =
  process.env.PULUMI_DIY_BACKEND_PARALLEL === undefined ? { PULUMI_DIY_BACKEND_PARALLEL: "1" } : {};

/** Pulumi's settings for compressed checkpoints (DIY backends); a user who set any of them decides. */
const COMPRESSION_SETTINGS = [
  "PULUMI_DIY_BACKEND_ZSTD",
  "PULUMI_SELF_MANAGED_STATE_ZSTD",
  "PULUMI_DIY_BACKEND_GZIP",
  "PULUMI_SELF_MANAGED_STATE_GZIP",
] as const;
/** The first Pulumi CLI that reads and writes zstd checkpoints (CHANGELOG, 3.224.0: "[backend/diy] Add zstd compression"). */
export const ZSTD_CHECKPOINTS_CLI = "3.224.0";

/**
 * What the stacks' `pulumi` processes are told about compressing checkpoints. A self-managed backend
 * writes a stack's whole checkpoint after every step; on PostgreSQL each write is the whole state
 * sent as one row (base64 in JSON), and Pulumi copies the previous one to a backup row first. At
 * 2,500 products that made the first `up` 2.0× as long as on files; zstd-compressed checkpoints
 * (Pulumi's own `PULUMI_DIY_BACKEND_ZSTD`) made it 1.04× (docs/scale.md). Only for PostgreSQL (on
 * files the write is local and the JSON stays readable), only with a CLI that reads them, and never
 * against a compression setting of the user's: `PULUMI_DIY_BACKEND_ZSTD=false` keeps plain JSON.
 */
export function checkpointCompression(env: NodeJS.ProcessEnv, postgres: boolean, cliVersion: string | undefined): Record<string, string> {
  if (!postgres || COMPRESSION_SETTINGS.some((name) => env[name] !== undefined)) return {};
  if (cliVersion === undefined || !atLeast(cliVersion, ZSTD_CHECKPOINTS_CLI)) return {};
  return { PULUMI_DIY_BACKEND_ZSTD: "true" };
}

/** `version` ≥ `least`, by major, minor and patch (a pre-release counts as its release). */
function atLeast(version: string, least: string): boolean {
  const parts = (v: string) => v.replace(/^v/, "").split(/[.+-]/).slice(0, 3).map(Number);
  const [a, b] = [parts(version), parts(least)];
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return true;
}

export interface WorkspaceOptions {
  /** The work folder, absolute. */
  workDir: string;
  /** The Pulumi project name of every catalog stack. */
  project: string;
  stackPrefix: string;
  /** `serviceapi:*` settings given with `--config`, written into every stack's Pulumi.yaml (never the token). */
  config: Record<string, string>;
  /** More environment for every `pulumi` command (a throw-away backend's URL for stacks a preview cannot find). */
  env: Record<string, string>;
  /** The folder under the work folder for the stacks' project folders (default `stacks`). */
  folder?: string;
}

/**
 * The files of a stack's project folder (beside its links): Pulumi.yaml, and an index.js for
 * `pulumi` run there by hand, which says to run the tool instead (`outsideTheTool`: the tool runs
 * the stack's program in its own process). Plain JavaScript, and said so (`typescript: false`), so
 * a language host that reads the option starts no ts-node.
 */
export function projectFiles(
  options: Pick<WorkspaceOptions, "project" | "config">,
  program = join(__dirname, "stack-program.js"),
): Record<string, string> {
  // Written here, not through the Automation API's projectSettings, whose type has no project-level `config` values.
  const project = {
    name: options.project,
    description: "The products of a serviceapi-catalog stack. Generated by serviceapi-catalog on every run; edit the catalog instead.",
    runtime: { name: "nodejs", options: { typescript: false } },
    main: "index.js",
    ...(Object.keys(options.config).length > 0 && { config: options.config }),
  };
  return { "Pulumi.yaml": stringify(project), "index.js": `module.exports = require(${JSON.stringify(program)}).outsideTheTool;\n` };
}

/**
 * The stack, without the reads the Automation API makes after every `up`, `refresh` and `destroy`
 * to fill in a result the tool does not use (its report comes from the engine's events, and a
 * catalog stack has no outputs): its outputs, twice (`pulumi stack output`, with and without
 * secrets), and its last update (`pulumi stack history`) — three more `pulumi` processes per stack,
 * each reading the whole state. At 1,000 products in 6 stacks they took 7 s of the `up`'s 36 s of
 * the CLIs' CPU (`npm run bench:catalog`, "CLIs and hosts by command"). The bench's `up` floor runs
 * its stacks the same way.
 */
export function withoutResultReads(stack: Stack): Stack {
  return Object.assign(stack, {
    outputs: () => Promise.resolve({}),
    info: () => Promise.resolve(undefined),
  });
}

export class Workspaces {
  readonly #options: WorkspaceOptions;
  #cli: Promise<PulumiCommand> | undefined;

  constructor(options: WorkspaceOptions) {
    this.#options = options;
  }

  get options(): WorkspaceOptions {
    return this.#options;
  }

  /** The `pulumi` on PATH (the Automation API checks its version once). */
  cli(): Promise<PulumiCommand> {
    this.#cli ??= automation()
      .then(({ PulumiCommand }) => PulumiCommand.get())
      .catch((error: unknown) => {
        throw new CatalogError(
          `the Pulumi CLI is needed (${String((error as Error).message ?? error).split("\n")[0]}): install it (https://www.pulumi.com/docs/install/) and put it on PATH`,
        );
      });
    return this.#cli;
  }

  /** Has the stacks' `pulumi` processes compress checkpoints where `checkpointCompression` says to (a PostgreSQL backend). */
  async compressCheckpoints(postgres: boolean): Promise<void> {
    Object.assign(this.#options.env, checkpointCompression(process.env, postgres, (await this.cli()).version?.version));
  }

  /** The folder `pulumi` commands about the whole backend run in (the CLI needs a project folder). */
  async projectDir(): Promise<string> {
    const dir = join(this.#options.workDir, "project");
    await this.#workspace(dir, {});
    return dir;
  }

  /**
   * Opens the backend once, in one process, before stacks run side by side. Pulumi's PostgreSQL
   * backend creates its table in every process that opens it (`CREATE TABLE IF NOT EXISTS`), and two
   * first processes at once can both try: one of them then fails (a duplicate key in `pg_type`), so a
   * team's first parallel `up` on a new database lost a stack at random. After one `pulumi whoami`
   * the table exists and the stacks' processes find it. The runners of a deploy matrix, each opening
   * the same new database at once, race the same way: the one that loses tries once more and finds
   * the other's table (a backend that cannot be opened fails twice, and the run stops on it).
   */
  async openBackend(): Promise<void> {
    const ws = await this.#workspace(join(this.#options.workDir, "project"), {});
    await ws.whoAmI().catch(() => ws.whoAmI());
  }

  /**
   * A stack, created in the backend if it is not there yet (no request to the service). With
   * `items`, its program declares them (for preview, up, drift); `more` is environment for its
   * `pulumi` commands (the shared pacer's URL, the create journal). `exists`: what the tool read of
   * the backend, so a new stack costs one `pulumi` process (`stack init`), not a failed
   * `stack select` first (another process may have made it since: `stack select` then), and a
   * stack it found costs none.
   */
  async stack(name: string, items?: ProgramItem[], more: Record<string, string> = {}, exists?: boolean): Promise<Stack> {
    const dir = join(this.#options.workDir, this.#options.folder ?? "stacks", name);
    // Loaded with the Automation API, at the first stack that runs (it loads Pulumi's resource SDK).
    const { declareItems } = await import("./stack-program");
    const ws = await this.#workspace(dir, more, items === undefined ? undefined : () => declareItems(items));
    const { Stack, StackAlreadyExistsError } = await automation();
    if (exists === true) {
      // The tool has just read this stack in the backend, and every command it runs names the stack
      // (`--stack`): a `pulumi stack select` would only look it up again — one more process, about
      // 0.4 s of CPU, per stack and command (64 of them in one engine test's run of the tool).
      ws.selectStack = () => Promise.resolve();
      return withoutResultReads(await Stack.select(name, ws));
    }
    const stack =
      exists === false
        ? await Stack.create(name, ws).catch((error: unknown) => {
            if (error instanceof StackAlreadyExistsError) return Stack.select(name, ws);
            throw error;
          })
        : await Stack.createOrSelect(name, ws);
    return withoutResultReads(stack);
  }

  /** A `pulumi` command on a stack the Automation API has no method for (`state move`, `cancel`, `state delete`); returns its stdout. */
  async run(name: string, args: string[]): Promise<string> {
    const stack = await this.stack(name);
    const ws = stack.workspace as LocalWorkspace;
    const cli = await this.cli();
    try {
      const { stdout } = await promisify(execFile)(cli.command, [...args, "--non-interactive"], {
        cwd: ws.workDir,
        env: { ...process.env, ...ws.envVars },
        maxBuffer: 64 * 1024 * 1024,
      });
      return stdout;
    } catch (error) {
      const stderr = String((error as { stderr?: unknown }).stderr ?? "").trim();
      throw new Error(`pulumi ${args.slice(0, 2).join(" ")} failed: ${stderr.split("\n").pop() || (error as Error).message}`, {
        cause: error,
      });
    }
  }

  /** `program`: the stack's records, declared in this process (an inline program); without it, commands that run no program. */
  async #workspace(dir: string, env: Record<string, string>, program?: () => void): Promise<LocalWorkspace> {
    mkdirSync(join(dir, "node_modules", "@pulumi"), { recursive: true });
    // Pulumi's dynamic-provider launcher starts ./node_modules/@pulumi/pulumi from the program folder
    // (its `pulumi-resource-pulumi-nodejs` script); linking the SDK this package runs with also gives the language host and
    // the program one and the same SDK.
    const sdk = join(dir, "node_modules", "@pulumi", "pulumi");
    if (!existsSync(sdk)) symlinkSync(dirname(require.resolve("@pulumi/pulumi/package.json")), sdk, "dir");
    // The serialized provider of every Product is `require("pulumi-serviceapi/dynamic/product")`, run
    // from the program folder too: this very package (dist/provider/catalog → the package root).
    const self = join(dir, "node_modules", "pulumi-serviceapi");
    if (!existsSync(self)) symlinkSync(join(__dirname, "..", "..", ".."), self, "dir");
    for (const [file, text] of Object.entries(projectFiles(this.#options))) writeFileSync(join(dir, file), text);
    const { LocalWorkspace } = await automation();
    return LocalWorkspace.create({
      workDir: dir,
      pulumiCommand: await this.cli(),
      ...(program !== undefined && { program: () => Promise.resolve(program()) }),
      envVars: { ...BACKEND_LIST_WORKERS, ...this.#options.env, ...env },
    });
  }
}

/**
 * What each product of the stack taken over was when taken over, by key: the hidden output the
 * provider keeps as a secret (`resources/product/taken-over.ts`), so only the CLI with the stack's
 * secrets provider can read it — `pulumi stack export --show-secrets`, whose secrets come as
 * `{<sig>: <secret sig>, "plaintext": <JSON text>}`. Read before a run that removes such a product,
 * so its report lists each field the give-back sets back (the engine's events show the record as
 * `[secret]`). Held in memory only; the report prints the product's own fields, as for any change.
 * A site's record is what this stack last set each field to (its hidden secret outputs, `set` only):
 * a site's give-back is judged against it (`stack-run.ts`, `siteChangeOf`).
 */
export async function takenOverRecords(spaces: Workspaces, stack: string): Promise<Map<string, TakenOver>> {
  const exported = JSON.parse(await spaces.run(stack, ["stack", "export", "--show-secrets", "--stack", stack])) as {
    deployment?: { resources?: { urn: string; type?: string; outputs?: Record<string, unknown> }[] };
  };
  const records = new Map<string, TakenOver>();
  for (const resource of exported.deployment?.resources ?? []) {
    // A site: what this stack last set each field to (`__nameSet`, a secret: `resources/site.ts`), by the field's name.
    if (resource.type === KIND.site.type) {
      const set = Object.fromEntries(
        SITE.updatable.flatMap((f) =>
          resource.outputs?.[setKey(f)] === undefined ? [] : [[SITE.property(f), exportedPlain(resource.outputs[setKey(f)])]],
        ),
      );
      records.set(resource.urn.split("::").pop()!, { found: {}, set } as unknown as TakenOver);
      continue;
    }
    const value = resource.outputs?.[TAKEN_OVER];
    if (value === undefined || value === null) continue;
    const record = exportedPlain(value);
    if (typeof record === "object" && record !== null && "found" in record && "set" in record)
      records.set(resource.urn.split("::").pop()!, record as TakenOver);
  }
  return records;
}
