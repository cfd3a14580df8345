/**
 * Which `pulumi` command the provider process serves. The engine tells a provider nothing of it
 * (no request carries "refresh" or "preview"), yet two things the user must read depend on it:
 * whether the settings in use are the ones recorded at the last `pulumi up` (`refresh` and
 * `destroy`, and the refresh step of `--refresh`, unless `--run-program`), and what to call the
 * run in the summary line. A provider process is started by the `pulumi` CLI itself, so its
 * parent's command line says which command runs: read on Linux from `/proc/<ppid>/cmdline`,
 * elsewhere from `ps`. Anything that cannot be read or parsed gives `undefined`, and the messages
 * then name no command; nothing but messages depends on it.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, readdirSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface PulumiCommand {
  /** `preview`, `up`, `refresh`, `destroy` or `import` (aliases resolved: `update` → `up`, `down` → `destroy`, `pre` → `preview`). */
  name: "preview" | "up" | "refresh" | "destroy" | "import";
  /** `--run-program` (or `PULUMI_RUN_PROGRAM=true`): every step uses the current stack config. */
  runProgram: boolean;
  /** `--skip-preview` / `-f`: the command runs once, with no preview phase before it. */
  skipPreview: boolean;
  /** `--preview-only`, or `pulumi preview` itself: only the preview runs. */
  previewOnly: boolean;
  /** `--stack` / `-s`, as given (perhaps `org/project/stack`). */
  stack: string | undefined;
}

const NAMES: Record<string, PulumiCommand["name"]> = {
  preview: "preview",
  pre: "preview",
  up: "up",
  update: "up",
  refresh: "refresh",
  destroy: "destroy",
  down: "destroy",
  dn: "destroy",
  import: "import",
};

/**
 * The command in a `pulumi` argument list (`["pulumi", "refresh", "--yes", "--stack", "dev"]`): the
 * first argument naming one of the commands above. Flags before it (`--cwd x`, `--color never`)
 * are passed over; a flag value equal to a command name before the command would mislead it, which
 * no flag of these commands has.
 */
export function parseCommand(argv: readonly string[], env: NodeJS.ProcessEnv = {}): PulumiCommand | undefined {
  const at = argv.findIndex((arg, i) => i > 0 && NAMES[arg] !== undefined);
  if (at < 0) return undefined;
  const name = NAMES[argv[at]!]!;
  const args = argv.slice(at + 1);
  const flag = (long: string, short?: string): boolean | undefined => {
    let value: boolean | undefined;
    for (const arg of args) {
      if (arg === `--${long}` || (short !== undefined && arg === `-${short}`)) value = true;
      else if (arg.startsWith(`--${long}=`)) value = /^(true|1|yes)?$/i.test(arg.slice(long.length + 3));
    }
    return value;
  };
  let stack: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if ((arg === "--stack" || arg === "-s") && i + 1 < args.length) stack = args[i + 1];
    else if (arg.startsWith("--stack=")) stack = arg.slice("--stack=".length);
    else if (arg.startsWith("-s=")) stack = arg.slice(3);
  }
  const envRunProgram = /^(true|1)$/i.test(env.PULUMI_RUN_PROGRAM ?? "");
  return {
    name,
    runProgram: flag("run-program") ?? envRunProgram,
    skipPreview: flag("skip-preview", "f") ?? false,
    previewOnly: name === "preview" || (flag("preview-only") ?? false),
    stack,
  };
}

/** The command of the `pulumi` process that started this one, if it can be read. */
export function parentCommand(env: NodeJS.ProcessEnv = process.env): PulumiCommand | undefined {
  const argv = parentArgv();
  return argv === undefined ? undefined : parseCommand(argv, env);
}

function parentArgv(): string[] | undefined {
  const ppid = process.ppid;
  try {
    return readFileSync(`/proc/${ppid}/cmdline`, "utf8").split("\0").filter(Boolean);
  } catch {
    // No /proc (macOS, the BSDs): `ps` prints the arguments joined by spaces, enough for flags and the command.
  }
  if (process.platform === "win32") return undefined;
  try {
    const line = execFileSync("ps", ["-o", "args=", "-p", String(ppid)], {
      encoding: "utf8",
      timeout: 2000,
      stdio: ["ignore", "pipe", "ignore"],
    });
    return line.trim().split(/\s+/);
  } catch {
    return undefined;
  }
}

/**
 * Whether an operation of this command uses the settings recorded at the last `pulumi up` rather
 * than the current stack config (docs/resources.md, "Which command uses which configuration"):
 * every operation of `refresh` and `destroy`, and the refresh reads of `preview`/`up --refresh`,
 * unless `--run-program`. `undefined` when the command is not known.
 */
export function usesRecordedSettings(command: PulumiCommand | undefined, operation: "read" | "remove"): boolean | undefined {
  if (command === undefined) return undefined;
  if (command.runProgram) return false;
  if (command.name === "refresh" || command.name === "destroy") return true;
  // `preview`/`up`: only their refresh step (`--refresh`) reads, and it reads with the recorded settings.
  return (command.name === "preview" || command.name === "up") && operation === "read";
}

/** The command as a noun: "preview", "update" (`up`), "refresh", "destroy", "import". */
export function noun(command: PulumiCommand): string {
  return command.name === "up" ? "update" : command.name;
}

/** The part of the command that uses the recorded settings: "this refresh", or "the refresh step of this preview". */
export function recordedRun(command: PulumiCommand): string {
  return command.name === "refresh" || command.name === "destroy" ? `this ${command.name}` : `the refresh step of this ${noun(command)}`;
}

/** What to run to use the stack config as it is now instead of the recorded settings. */
export function withCurrentSettings(command: PulumiCommand): string {
  return command.name === "refresh" || command.name === "destroy"
    ? `pulumi ${command.name} --run-program`
    : `pulumi ${command.name} --refresh --run-program`;
}

const MARKER = "pulumi-serviceapi-phase-";

/**
 * For a command the CLI runs twice — its preview, then itself, each in a provider process of its
 * own, with nothing else to tell them apart (no request says "preview") — whether this process is
 * the first of the two: the preview. The first leaves a marker file named after the CLI process
 * (its pid and start time) and `provider` (the plugin's provider URN, or "dynamic"); the second
 * finds and removes it. `executed` (a create, update or delete ran) means this is the command
 * itself, whatever the marker says. Only messages depend on it; `undefined` if it cannot be told.
 */
export function firstOfTwo(provider: string, executed: boolean): boolean | undefined {
  const ppid = process.ppid;
  const file = join(tmpdir(), `${MARKER}${ppid}-${startOf(ppid)}-${createHash("sha256").update(provider).digest("hex").slice(0, 16)}`);
  try {
    writeFileSync(file, "", { flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") return undefined;
    unlinkSync(file);
    return false;
  }
  if (!executed) {
    removeStaleMarkers();
    return true;
  }
  unlinkSync(file);
  return false;
}

/** The CLI process's start time (`/proc/<pid>/stat`, field 22), so a reused pid is another CLI; "" where there is no /proc. */
function startOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ").pop()!.split(" ")[19] ?? "";
  } catch {
    return "";
  }
}

/** Markers of CLI processes that are gone (a preview whose command never ran: failed, or declined). */
function removeStaleMarkers(): void {
  try {
    for (const name of readdirSync(tmpdir())) {
      if (!name.startsWith(MARKER)) continue;
      const pid = Number(name.slice(MARKER.length).split("-")[0]);
      if (!Number.isInteger(pid) || alive(pid)) continue;
      unlinkSync(join(tmpdir(), name));
    }
  } catch {
    // A marker left behind is harmless: it names a process that no longer exists.
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
