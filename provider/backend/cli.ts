/**
 * Any backend through the Pulumi CLI: `pulumi stack ls --all --json -Q` for the stacks and
 * `pulumi stack export --stack <org>/<project>/<stack>` for one stack's state, each a CLI start
 * (0.3 to 1 s). What an S3, GCS or Azure bucket and Pulumi Cloud need, and the comparison for the
 * backends read directly. The CLI shows no locks. Every call is `--non-interactive`, with
 * PULUMI_DIY_BACKEND_PARALLEL=1 (the CLI's PostgreSQL listing deadlocks on a small machine with
 * more workers: provider/catalog/workspace.ts) and PULUMI_SKIP_UPDATE_CHECK=true unless the
 * environment sets them; no more CLIs run at once than there are CPUs.
 */
import { execFile } from "node:child_process";
import { availableParallelism } from "node:os";
import { exportState } from "./checkpoint";
import { DIY_ORGANIZATION } from "./layout";
import { fullName, type StackLock, type StackRef, type StackState, type StateBackend } from "./model";

/** Pulumi's exit code for a stack that does not exist (`cmd/exit_codes.go`, a stable contract since v3.226.0). */
const EXIT_STACK_NOT_FOUND = 6;
/** A state of many thousands of resources is tens of megabytes of JSON. */
const MAX_OUTPUT = 1024 * 1024 * 1024;

/** A failed `pulumi` call: the command and its last stderr line (masked), and its exit code. */
export class CliFailure extends Error {
  constructor(
    message: string,
    readonly exitCode: number | undefined,
  ) {
    super(message);
  }
}

export class PulumiCli {
  readonly #env: NodeJS.ProcessEnv;
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(
    private readonly command: string,
    env: NodeJS.ProcessEnv,
    private readonly cwd: string | undefined,
    private readonly mask: (text: string) => string,
  ) {
    this.#env = { PULUMI_DIY_BACKEND_PARALLEL: "1", PULUMI_SKIP_UPDATE_CHECK: "true", ...env };
  }

  /** The same CLI with `PULUMI_BACKEND_URL` set, so every call reads that backend whatever the CLI is logged in to. */
  forBackend(url: string): PulumiCli {
    return new PulumiCli(this.command, { ...this.#env, PULUMI_BACKEND_URL: url }, this.cwd, this.mask);
  }

  /** `pulumi <args> --non-interactive`'s stdout. */
  async run(args: string[]): Promise<string> {
    const all = [...args, "--non-interactive"];
    await this.#slot();
    try {
      return await new Promise<string>((resolve, reject) => {
        execFile(this.command, all, { env: this.#env, cwd: this.cwd, maxBuffer: MAX_OUTPUT, encoding: "utf8" }, (error, stdout, stderr) => {
          if (error === null) return resolve(stdout);
          const line = stderr.trim().split("\n").pop()?.trim() || error.message.split("\n")[0]!;
          const code = typeof error.code === "number" ? error.code : undefined;
          reject(new CliFailure(this.mask(`${this.command} ${all.join(" ")} failed: ${line}`), code));
        });
      });
    } finally {
      this.#running--;
      this.#waiting.shift()?.();
    }
  }

  async #slot(): Promise<void> {
    while (this.#running >= availableParallelism()) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#running++;
  }
}

/** The backend the CLI is logged in to (`pulumi whoami --verbose --json`, its `url`). */
export async function loggedInUrl(cli: PulumiCli): Promise<string> {
  const { url } = JSON.parse(await cli.run(["whoami", "--verbose", "--json"])) as { url?: unknown };
  if (typeof url !== "string" || url === "") throw new Error("pulumi whoami --verbose --json named no backend URL");
  return url;
}

export class CliBackend implements StateBackend {
  readonly via = "cli";
  readonly seesLocks = false;

  constructor(
    readonly url: string,
    private readonly cli: PulumiCli,
    private readonly fail: (problem: string, cause: unknown) => never,
  ) {}

  async stacks(project?: string): Promise<StackRef[]> {
    try {
      const listed = await this.cli.run(["stack", "ls", "--all", "--json", "-Q", ...(project === undefined ? [] : ["--project", project])]);
      const names = (JSON.parse(listed) as { name: string }[]).map((s) => s.name);
      return names.map(refOf).sort((a, b) => (fullName(a) < fullName(b) ? -1 : fullName(a) > fullName(b) ? 1 : 0));
    } catch (error) {
      return this.fail(error instanceof Error ? error.message : String(error), error);
    }
  }

  async state(ref: StackRef): Promise<StackState | undefined> {
    let exported: string;
    try {
      exported = await this.cli.run(["stack", "export", "--stack", fullName(ref)]);
    } catch (error) {
      if (error instanceof CliFailure && error.exitCode === EXIT_STACK_NOT_FOUND) return undefined;
      // A CLI older than its exit codes says "not found" only in words: the listing tells.
      if (!(await this.stacks(ref.project || undefined)).some((s) => fullName(s) === fullName(ref))) return undefined;
      return this.fail(error instanceof Error ? error.message : String(error), error);
    }
    try {
      return exportState(exported);
    } catch (error) {
      return this.fail(`pulumi stack export --stack ${fullName(ref)} printed ${(error as Error).message}`, error);
    }
  }

  /** The CLI reads what it can: nothing here to find or repair. */
  unreadable(_ref: StackRef): Promise<string[]> {
    return Promise.resolve([]);
  }

  repair(_ref: StackRef): Promise<string[]> {
    return Promise.resolve([]);
  }

  locks(_ref: StackRef): Promise<StackLock[]> {
    return Promise.resolve([]);
  }

  /** The tool keeps no journal beside a state it reads through the CLI: its `up` keeps Pulumi's checkpoints there. */
  journalPath(_ref: StackRef): string | undefined {
    return undefined;
  }

  journal(_ref: StackRef): Promise<string | undefined> {
    return Promise.resolve(undefined);
  }

  removeJournal(_ref: StackRef): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** A name `stack ls -Q` prints: `org/project/stack`, or a legacy DIY stack's bare name. */
function refOf(name: string): StackRef {
  const parts = name.split("/");
  if (parts.length === 3) return { organization: parts[0]!, project: parts[1]!, stack: parts[2]! };
  if (parts.length === 1) return { organization: DIY_ORGANIZATION, project: "", stack: name };
  throw new Error(`pulumi stack ls printed a stack name of an unknown form: ${name}`);
}
