/**
 * The command line of `serviceapi-catalog` (the bin, `bin.ts`, checks Node, starts the reaper, owns
 * the process's signals, streams and exit, and calls `main`): parses it, runs one command of
 * `tool.ts`, and turns a refusal into one line on stderr and exit code 2 — before any stack runs.
 */
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { version as PACKAGE_VERSION } from "../../package.json";
import { closeNames } from "../resources/close-names";
import { ConfigError } from "../client";
import { UserError } from "../resources/errors";
import { SETTINGS } from "../resources/settings";
import { CatalogError } from "./errors";
import { EXIT, runImport, runPlan, runRecover, runReport, runSplit, runStacks, runWhere, type Output, type ToolOptions } from "./tool";
import type { KeyFrom } from "./import";
import { Workspaces } from "./workspace";

const USAGE = `usage: serviceapi-catalog <command> [options]

  plan      the stacks a change touches, the moves due, locked stacks (--json: for a CI matrix); no request, no write
  preview   what up would do, per stack, field by field (old → new), in one report
            --refresh: what up --refresh would do (the service's values read first)
  up        makes the moves that are due (splits, entries moved between files), then deploys
            --refresh: refresh each stack first, then set every drifted field back as the catalog declares
  drift     what changed on the service behind Pulumi's back, per field (exit 7 when anything did)
            --write: write the service's values of the drifted fields into the catalog files (for a pull request)
  refresh   accepts the service's values into the stacks' state (the catalog is not changed)
  destroy   destroys every stack (products archived or given back as each says) and removes the stacks (needs --yes)
  split     only the moves that are due (pulumi state move; no request to the service)
  recover   after a killed run: clears its locks, takes in its pending creates (nothing created twice)
            --force-unlock: also a lock held by another machine's run; --create-anew KEY: a lost create that is not on the service
  where     KEY...  the file, the stack and the id of each key
  import    IDS_FILE  existing products (a CSV or JSON of id and project) written into catalog files, each with adoptId
            --key-from slug|title|column: what a new entry's key is made from (default slug; column: the file's key column)
  import    --sites   every site of every project, written into <project>-sites.yaml with its live name (no ids file)
  report    FILE...  combines the --json reports of a CI matrix's jobs

options:
  --catalog DIR        the catalog folder (default catalog/)
  --base GIT_REF       only the stacks whose products changed since GIT_REF
  --stack NAME[,NAME]  only these stacks (repeatable; a CI matrix job)
  --parallel N         stacks at a time (default: the number of CPUs; drift: one more)
  --stack-prefix P     stack names are P + the group + the shard (default catalog-)
  --stack-size N       a stack splits when it holds more products (default 250)
  --project NAME       the Pulumi project of the stacks (default serviceapi-catalog)
  --work-dir DIR       the generated project folders, logs, journals (default .serviceapi-catalog/)
  --config KEY=VALUE   a serviceapi:* setting for every stack (repeatable; never the token;
                       a name that is no setting is refused, with the closest one)
  --batch-size N       plan --json: stacks per CI job in "batches" (default 8)
  --journal DIR        recover: a killed runner's create journals (default: the work folder's journal/;
                       an up that skipped Pulumi's checkpoints keeps its journal beside the state, always read)
  --created-log FILE   recover: a killed run's log, read for its "created Product" lines (repeatable)
  --all                run every stack, even those a failed run before already finished
  --yes                destroy: archive (or give back) every product and remove the stacks
  --policy DIR         Rego policies for preview, up and drift --write (repeatable; default: policy/
                       beside the catalog folder): a denial exits 3, an up refuses before any write
  --policy-off NAME    switch a default policy off: https_checkout_urls, removal_keeps_archived, archive_limit
  --policy-param N=V   input.params[N] for the policies (an approval, a limit); docs/policies.md
  --json               print the report as JSON
  --version            the tool's version

Exit codes: 0 done; 1 a stack failed or is blocked (locked, pending operations); 2 refused before any
stack ran; 3 denied by a policy (an up refuses before any write); 7 drift found; 130 cancelled.
Settings: SERVICEAPI_TOKEN, SERVICEAPI_BASE_URL and the other SERVICEAPI_* variables; state:
PULUMI_BACKEND_URL (or pulumi login) and PULUMI_CONFIG_PASSPHRASE; the rate limit, shared by the
runners of a PostgreSQL backend: SERVICEAPI_RATE_LIMIT_STORE (off, or another postgres:// URL) and
SERVICEAPI_RATE_LIMIT_KEY; the policies' OPA: SERVICEAPI_OPA (default: opa on PATH). Docs: docs/catalog.md`;

const COMMANDS = ["plan", "preview", "up", "drift", "refresh", "destroy", "split", "recover", "where", "import", "report"] as const;
/** Options that only one command takes, and that command. */
const ONLY: Record<string, readonly string[]> = {
  refresh: ["preview", "up"],
  write: ["drift"],
  "force-unlock": ["recover"],
  "create-anew": ["recover"],
  journal: ["recover"],
  "created-log": ["recover"],
  "batch-size": ["plan"],
  yes: ["destroy"],
  "key-from": ["import"],
  sites: ["import"],
  policy: ["preview", "up", "drift"],
  "policy-off": ["preview", "up", "drift"],
  "policy-param": ["preview", "up", "drift"],
};

/** The options, as parseArgs reads them (and the names a misspelled one is compared with). */
const OPTIONS = {
  catalog: { type: "string", default: "catalog" },
  base: { type: "string" },
  stack: { type: "string", multiple: true, default: [] },
  parallel: { type: "string" },
  "stack-prefix": { type: "string", default: "catalog-" },
  "stack-size": { type: "string", default: "250" },
  project: { type: "string", default: "serviceapi-catalog" },
  "work-dir": { type: "string", default: ".serviceapi-catalog" },
  config: { type: "string", multiple: true, default: [] },
  "batch-size": { type: "string" },
  "key-from": { type: "string" },
  journal: { type: "string", multiple: true, default: [] },
  "created-log": { type: "string", multiple: true, default: [] },
  "create-anew": { type: "string", multiple: true, default: [] },
  policy: { type: "string", multiple: true, default: [] },
  "policy-off": { type: "string", multiple: true, default: [] },
  "policy-param": { type: "string", multiple: true, default: [] },
  "force-unlock": { type: "boolean", default: false },
  refresh: { type: "boolean", default: false },
  write: { type: "boolean", default: false },
  sites: { type: "boolean", default: false },
  all: { type: "boolean", default: false },
  yes: { type: "boolean", default: false },
  json: { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
  version: { type: "boolean", default: false },
} as const satisfies ParseArgsConfig["options"];
const OPTION_NAMES = Object.keys(OPTIONS);

export async function main(argv: string[], io: Output, signal: AbortSignal): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: OPTIONS,
    });
  } catch (error) {
    // Node's own words for an unknown option or a missing value, the closest option to a misspelled one, and where to read the right ones.
    const said = (error as Error).message.split(". ")[0]!.replace(/'/g, "");
    const unknown = /^Unknown option (--[\w-]+)/.exec(said)?.[1];
    const close =
      unknown === undefined
        ? []
        : closeNames(
            unknown,
            [...OPTION_NAMES].map((o) => `--${o}`),
            1,
          );
    io.err(
      `serviceapi-catalog: ${said.charAt(0).toLowerCase()}${said.slice(1)}${close.length > 0 ? ` (did you mean ${close[0]}?)` : ""}: see serviceapi-catalog --help`,
    );
    return EXIT.refused;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.version) {
    io.out(`serviceapi-catalog ${PACKAGE_VERSION}`);
    return EXIT.ok;
  }
  if (values.help || command === undefined || command === "help") {
    const asked = values.help || command === "help";
    (asked ? io.out : io.err)(USAGE);
    return asked ? EXIT.ok : EXIT.refused;
  }
  try {
    if (!(COMMANDS as readonly string[]).includes(command)) {
      throw new CatalogError(`${command} is not a command: one of ${COMMANDS.join(", ")} (serviceapi-catalog --help)`);
    }
    for (const [option, commands] of Object.entries(ONLY)) {
      const given = values[option as keyof typeof values];
      if (given !== undefined && given !== false && !(Array.isArray(given) && given.length === 0) && !commands.includes(command)) {
        throw new CatalogError(`--${option} is an option of ${commands.join(", ")}, not of ${command}`);
      }
    }
    if (command === "report") return runReport(rest, io);
    // A drift without --write writes nothing, so no policy judges it: an option that would do nothing is refused.
    const policyOption = (["policy", "policy-off", "policy-param"] as const).find((o) => values[o].length > 0);
    if (command === "drift" && !values.write && policyOption !== undefined)
      throw new CatalogError(`--${policyOption} is an option of drift --write (a drift alone writes nothing for a policy to judge)`);
    if (rest.length > 0 && command !== "where" && command !== "import")
      throw new CatalogError(`${command} takes no arguments (got ${rest.length}); options start with --`);
    const options: ToolOptions = {
      catalogDir: resolve(values.catalog),
      workDir: resolve(values["work-dir"]),
      project: name("--project", values.project),
      stackPrefix: prefix(values["stack-prefix"]),
      stackSize: integer("--stack-size", values["stack-size"], 1, 100_000),
      // Drift waits on the rate limit more than on the CPU: one stack more than the CPUs keeps the limit busy while
      // others start (two stacks of equal size otherwise finish and start together, leaving it idle; docs/scale.md).
      parallel:
        values.parallel === undefined
          ? availableParallelism() + (command === "drift" ? 1 : 0)
          : integer("--parallel", values.parallel, 1, 64),
      base: values.base,
      // `--stack a,b` (a CI batch) as well as `--stack a --stack b`.
      stacks: [
        ...new Set(
          values.stack
            .flatMap((s) => s.split(","))
            .map((s) => s.trim())
            .filter((s) => s !== ""),
        ),
      ],
      json: values.json,
      all: values.all,
      config: config(values.config),
      refresh: values.refresh,
      write: values.write,
      sites: values.sites,
      forceUnlock: values["force-unlock"],
      createAnew: values["create-anew"],
      journals: values.journal.map((dir) => resolve(dir)),
      logs: values["created-log"].map((file) => resolve(file)),
      batchSize: values["batch-size"] === undefined ? 8 : integer("--batch-size", values["batch-size"], 1, 256),
      keyFrom: keyFrom(values["key-from"] ?? "slug"),
      policies: {
        dirs: values.policy.map((dir) => resolve(dir)),
        off: values["policy-off"]
          .flatMap((n) => n.split(","))
          .map((n) => n.trim())
          .filter((n) => n !== ""),
        params: policyParams(values["policy-param"]),
      },
    };
    const workspaces = new Workspaces({
      workDir: options.workDir,
      project: options.project,
      stackPrefix: options.stackPrefix,
      config: options.config,
      env: {},
    });
    if (command === "destroy" && !values.yes) {
      const which = options.stacks.length > 0 ? `the stack(s) ${options.stacks.join(", ")}` : "the catalog's stacks";
      throw new CatalogError(
        `destroy archives every product ${which} created (or gives back those they took over) and removes ${options.stacks.length > 0 ? "them" : "the stacks"}: run it again with --yes`,
      );
    }
    if (command === "plan") return await runPlan(options, workspaces, io);
    if (command === "split") return await runSplit(options, workspaces, io);
    if (command === "recover") return await runRecover(options, workspaces, io);
    if (command === "where") return await runWhere(rest, options, workspaces, io);
    if (command === "import") return await runImport(rest, options, workspaces, io);
    return await runStacks(command as "preview" | "up" | "drift" | "refresh" | "destroy", options, workspaces, io, signal);
  } catch (error) {
    // A setting the client refuses (no token, a token too short, a bad URL) is a refusal too: one line, before any stack ran.
    if (error instanceof UserError || error instanceof ConfigError) {
      io.err(`serviceapi-catalog: ${error.message}`);
      return EXIT.refused;
    }
    throw error;
  }
}

function policyParams(pairs: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    if (at <= 0)
      throw new CatalogError(
        `--policy-param ${pair}: give NAME=VALUE (e.g. --policy-param archive-limit=40); a policy reads input.params[NAME]`,
      );
    out[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return out;
}

function keyFrom(text: string): KeyFrom {
  if (text !== "slug" && text !== "title" && text !== "column") throw new CatalogError("--key-from must be slug, title or column");
  return text;
}

function integer(option: string, text: string, min: number, max: number): number {
  const n = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(n >= min && n <= max)) throw new CatalogError(`${option} must be a whole number from ${min} to ${max}`);
  return n;
}

function name(option: string, text: string): string {
  if (!/^[A-Za-z0-9_.-]{1,100}$/.test(text)) throw new CatalogError(`${option} must be letters, digits, '_', '.' or '-'`);
  return text;
}

function prefix(text: string): string {
  // Not ending in a digit: `eu-1` + shard `0` would read as prefix `eu-` + shard `10`.
  if (!/^([A-Za-z0-9_.-]{0,79}[A-Za-z_.-])?$/.test(text)) {
    throw new CatalogError(
      "--stack-prefix must be letters, digits, '_', '.' or '-', not ending in a digit (stack names are the prefix and the shard's bits)",
    );
  }
  return text;
}

function config(pairs: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    const key = at < 0 ? pair : pair.slice(0, at);
    if (at < 0 || !/^serviceapi:[A-Za-z]+$/.test(key)) {
      throw new CatalogError(`--config ${key}: give serviceapi:KEY=VALUE (e.g. --config serviceapi:baseUrl=https://api.example.com)`);
    }
    // A misspelt setting would be passed to every stack and read by none: refused here, with the closest name.
    const name = key.slice("serviceapi:".length);
    if (!Object.hasOwn(SETTINGS, name)) {
      const close = closeNames(name, Object.keys(SETTINGS), 1);
      throw new CatalogError(
        `--config ${key}: no such setting${close.length > 0 ? ` (did you mean serviceapi:${close[0]}?)` : ""}; ` +
          `the settings are ${Object.keys(SETTINGS).join(", ")} (docs/resources.md#configuration)`,
      );
    }
    out[key] = pair.slice(at + 1);
  }
  return out;
}
