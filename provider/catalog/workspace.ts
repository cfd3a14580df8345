/**
 * Where the catalog's stacks run: Pulumi's Automation API over the user's own CLI and state
 * backend (`PULUMI_BACKEND_URL` or `pulumi login`), one project folder per stack under the work
 * folder (default `.serviceapi-catalog/`), each holding a generated Pulumi.yaml and a one-line
 * program that loads `program.ts` of this package. One folder per stack because stacks run in
 * parallel, and the CLI keeps per-folder files (the selected stack, stack config) that concurrent
 * commands in one folder would race on. The folders are rebuilt every run: a clean runner needs
 * nothing from an earlier one.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { LocalWorkspace, PulumiCommand, Stack } from "@pulumi/pulumi/automation";
import { stringify } from "yaml";
import { CatalogError } from "./errors";
import { PRODUCTS_ENV, writeProgramInput, type ProgramProduct } from "./program-input";

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
    this.#cli ??= PulumiCommand.get().catch((error: unknown) => {
      throw new CatalogError(
        `the Pulumi CLI is needed (${String((error as Error).message ?? error).split("\n")[0]}): install it (https://www.pulumi.com/docs/install/) and put it on PATH`,
      );
    });
    return this.#cli;
  }

  /** The folder `pulumi` commands about the whole backend run in (the CLI needs a project folder). */
  async projectDir(): Promise<string> {
    const dir = join(this.#options.workDir, "project");
    await this.#workspace(dir, {});
    return dir;
  }

  /**
   * A stack, created in the backend if it is not there yet (no request to the service). With
   * `products`, its program declares them (for preview, up, drift); `more` is environment for its
   * `pulumi` commands (the shared pacer's URL, the create journal).
   */
  async stack(name: string, products?: ProgramProduct[], more: Record<string, string> = {}): Promise<Stack> {
    const dir = join(this.#options.workDir, this.#options.folder ?? "stacks", name);
    const env: Record<string, string> = { ...more };
    if (products !== undefined) {
      mkdirSync(dir, { recursive: true });
      env[PRODUCTS_ENV] = writeProgramInput(dir, { stack: name, products });
    }
    return Stack.createOrSelect(name, await this.#workspace(dir, env));
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

  async #workspace(dir: string, env: Record<string, string>): Promise<LocalWorkspace> {
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
    // The program of this package, by absolute path: the user's program folder has no code of its own.
    writeFileSync(join(dir, "index.js"), `require(${JSON.stringify(join(__dirname, "program.js"))});\n`);
    // Written here, not through the Automation API's projectSettings, whose type has no project-level `config` values.
    const project = {
      name: this.#options.project,
      description: "The products of a serviceapi-catalog stack. Generated by serviceapi-catalog on every run; edit the catalog instead.",
      runtime: { name: "nodejs", options: { typescript: false } },
      main: "index.js",
      ...(Object.keys(this.#options.config).length > 0 && { config: this.#options.config }),
    };
    writeFileSync(join(dir, "Pulumi.yaml"), stringify(project));
    return LocalWorkspace.create({
      workDir: dir,
      pulumiCommand: await this.cli(),
      envVars: { ...BACKEND_LIST_WORKERS, ...this.#options.env, ...env },
    });
  }
}
