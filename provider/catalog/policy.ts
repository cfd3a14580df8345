/**
 * The catalog's policies: Rego, run by OPA (the `opa` binary: the engine a team's `opa test` runs,
 * with every built-in — the npm WebAssembly SDK's `sprintf` refused `%q`, measured 2026-11-30), over
 * every change of the typed plan (`changes.ts`) with its before → after. A policy is a Rego package
 * under `serviceapi.` with `deny` and `warn` rules (docs/policies.md): a denial fails `preview` and
 * makes `up` refuse before any write (exit `EXIT.denied`); a warning is shown in the report.
 *
 * The default set (`policies/*.rego`, shipped in the package) is on unless switched off by name
 * (`--policy-off`); a team's own policies come from `--policy DIR` (or `policy/` beside the catalog).
 * Everything OPA says back is read as JSON (`opa check --format json`, `opa eval --format json`).
 *
 * The input holds no command name: `preview` and `up` give the policies the same input for the same
 * change, so what a preview denies an up refuses, and nothing else. For the same reason a policy is a
 * pure function of that input: OPA runs with capabilities that leave out the network, the clock,
 * randomness and the environment (`IMPURE`), so a preview and its up cannot disagree, and a pull
 * request's policy cannot send the catalog (or anything) anywhere.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { archives, writes, type Operation, type PlannedChange } from "./changes";
import { closeNames } from "../resources/close-names";
import { CatalogError } from "./errors";
import type { StackReport } from "./stack-run";

/** The version of `PolicyInput`'s shape (docs/schema/policy-input-v1.json). */
export const POLICY_INPUT_VERSION = 1;

/** The default set: each a file `policies/<name>.rego` holding the package `serviceapi.<name>`. */
export const DEFAULT_POLICIES = ["https_checkout_urls", "removal_keeps_archived", "archive_limit"] as const;

/** Where the default set is (beside this module in the source and in the package's dist/). */
const DEFAULTS_DIR = join(__dirname, "policies");

/** The variable naming the `opa` binary when it is not `opa` on PATH. */
export const OPA_ENV = "SERVICEAPI_OPA";

/** Built-ins a policy may not call: what would make it depend on more than its input, or reach out. */
export const IMPURE = ["http.send", "net.lookup_ip_addr", "opa.runtime", "time.now_ns", "rand.intn", "uuid.rfc4122"] as const;

/** One change as a policy sees it: the typed plan's, with where it is and what it means. */
export interface PolicyChange {
  key: string;
  kind: "product" | "site" | "task";
  op: Operation;
  /** The stack it is in (a new stack's name as the deploy will make it). */
  stack: string;
  /** The catalog file of its entry, relative to the catalog folder; absent for a removed entry. */
  file?: string;
  /** It archives a product: a removal that archives, or an update that sets status to archived. */
  archives: boolean;
  /** It sends a write that changes a record (`writes` in changes.ts). */
  writes: boolean;
  /** Each field, before → after (`from` absent: no value before; `to` absent: none after; secrets as "[secret]"). */
  fields: { field: string; from?: unknown; to?: unknown; stackOnly?: true }[];
  renamedFrom?: string;
  adoptId?: string;
  then?: Operation;
  /** The codes of the reasons the plan gives (docs/schema/report-v2.json has their data). */
  reasons: string[];
}

/** What every policy reads as `input` (docs/policies.md). */
export interface PolicyInput {
  version: typeof POLICY_INPUT_VERSION;
  project: string;
  stackPrefix: string;
  /** `--policy-param NAME=VALUE`: what CI passes in (an approval, a label, a limit). Always strings. */
  params: Record<string, string>;
  /** `--config serviceapi:*` values given to every stack. */
  settings: Record<string, string>;
  changes: PolicyChange[];
}

export interface Verdict {
  level: "deny" | "warn";
  /** The policy's package below `serviceapi.`, e.g. `https_checkout_urls`. */
  policy: string;
  message: string;
  key?: string;
  field?: string;
}

export interface PolicyOptions {
  /** `--policy DIR` (repeatable); none: `policy/` beside the catalog folder when there is one. */
  dirs: string[];
  /** `--policy-off NAME` (repeatable): default policies switched off. */
  off: string[];
  /** `--policy-param NAME=VALUE`. */
  params: Record<string, string>;
}

/** The policies a run evaluates: their files, checked, and the opa that runs them. */
export class Policies {
  private constructor(
    readonly opa: string,
    readonly files: string[],
    readonly params: Record<string, string>,
    /** Where opa is looked for: the tool's PATH, and nothing else of its environment. */
    private readonly path: string,
    /** The team's own files (not the default set): what needs OPA even with every default off. */
    private readonly teams: string[],
    /** The tool's work folder (`--work-dir`): where OPA's capabilities file is written. */
    private readonly workDir: string,
  ) {}

  /** OPA's capabilities without the `IMPURE` built-ins, as a file (`--capabilities`). */
  #capabilities = "";

  /**
   * The policies of this run, checked before any stack runs: an unknown `--policy-off` name, a
   * missing folder, no opa, a Rego error (file:line) each stop the command with one line.
   * Undefined when every policy is off and the team has none: nothing to evaluate.
   */
  static load(options: PolicyOptions, catalogDir: string, workDir: string, env: NodeJS.ProcessEnv = process.env): Policies | undefined {
    for (const name of options.off) {
      if (!(DEFAULT_POLICIES as readonly string[]).includes(name)) {
        const close = closeNames(name, [...DEFAULT_POLICIES], 1);
        throw new CatalogError(
          `--policy-off ${name}: no such default policy${close.length > 0 ? ` (did you mean ${close[0]}?)` : ""}; they are ${DEFAULT_POLICIES.join(", ")}`,
        );
      }
    }
    const files = DEFAULT_POLICIES.filter((name) => !options.off.includes(name)).map((name) => join(DEFAULTS_DIR, `${name}.rego`));
    const beside = join(dirname(catalogDir), "policy");
    const dirs = options.dirs.length > 0 ? options.dirs : existsSync(beside) ? [beside] : [];
    const teams: string[] = [];
    for (const dir of dirs) {
      if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new CatalogError(`--policy ${dir}: no such folder`);
      teams.push(...regoFiles(dir));
    }
    files.push(...teams);
    if (files.length === 0) return undefined;
    const opa = env[OPA_ENV] ?? "opa";
    const policies = new Policies(opa, files, options.params, env.PATH ?? "", teams, workDir);
    policies.#check();
    return policies;
  }

  /** `opa check`: a file that does not parse or compile is named with its line, before anything runs. */
  #check(): void {
    this.#capabilities = this.#pureCapabilities();
    const result = this.#opa(["check", "--format", "json", "--capabilities", this.#capabilities, ...this.files]);
    if (result.status === 0) return;
    // `opa check --format json` prints its errors on stderr (v1.22.3), `opa eval` on stdout: either is read.
    const errors = (parsed<{ errors?: OpaError[] }>(result.stdout) ?? parsed<{ errors?: OpaError[] }>(result.stderr))?.errors ?? [];
    if (errors.length === 0)
      throw new CatalogError(`the policies could not be checked: ${this.opa} check exited ${result.status}: ${result.stderr.trim()}`);
    throw new CatalogError(`a policy does not compile: ${errors.map(describeOpaError).join("; ")}`);
  }

  /** Every `deny` and `warn` of every policy over this input. */
  evaluate(input: Omit<PolicyInput, "version" | "params">): Verdict[] {
    const full: PolicyInput = { version: POLICY_INPUT_VERSION, ...input, params: this.params };
    // Every package's rules: `serviceapi.*` as the docs say, and Conftest's `package main` too (a policy brought from Conftest is run, not skipped).
    const result = this.#opa(
      ["eval", "--format", "json", "--stdin-input", "--capabilities", this.#capabilities, ...this.files.flatMap((f) => ["-d", f]), "data"],
      JSON.stringify(full),
    );
    type Out = { result?: { expressions: { value: unknown }[] }[]; errors?: OpaError[] };
    const out = parsed<Out>(result.stdout) ?? parsed<Out>(result.stderr);
    if (out?.errors !== undefined && out.errors.length > 0)
      throw new CatalogError(`a policy failed: ${out.errors.map(describeOpaError).join("; ")}`);
    if (result.status !== 0 || out === undefined)
      throw new CatalogError(`the policies could not be evaluated: ${this.opa} eval exited ${result.status}: ${result.stderr.trim()}`);
    const verdicts: Verdict[] = [];
    collect(out.result?.[0]?.expressions[0]?.value, [], verdicts);
    for (const verdict of verdicts) verdict.policy = verdict.policy.replace(/^serviceapi\./, "");
    return verdicts.sort((a, b) => (a.level === b.level ? 0 : a.level === "deny" ? -1 : 1));
  }

  /**
   * `opa capabilities --current` less the `IMPURE` built-ins, written into the tool's work folder:
   * not the shared temp folder, where someone else could put a file of that name first, with
   * `http.send` left in.
   */
  #pureCapabilities(): string {
    const current = this.#opa(["capabilities", "--current"]);
    const capabilities = parsed<{ builtins: { name: string }[] }>(current.stdout);
    if (current.status !== 0 || capabilities === undefined)
      throw new CatalogError(
        `the policies could not be checked: ${this.opa} capabilities exited ${current.status}: ${current.stderr.trim()}`,
      );
    capabilities.builtins = capabilities.builtins.filter((b) => !(IMPURE as readonly string[]).includes(b.name));
    mkdirSync(this.workDir, { recursive: true });
    const file = join(this.workDir, "opa-capabilities.json");
    writeFileSync(file, JSON.stringify(capabilities));
    return file;
  }

  #opa(args: string[], stdin?: string): { status: number | null; stdout: string; stderr: string } {
    // PATH alone (to find opa): a policy in a pull request is the PR author's code, and `opa.runtime().env`
    // would hand it the job's secrets (the API token, the passphrase) to send off with `http.send`.
    // What a policy needs from CI comes in as --policy-param.
    const result = spawnSync(this.opa, args, { input: stdin, encoding: "utf8", maxBuffer: 1 << 30, env: { PATH: this.path } });
    if (result.error !== undefined) {
      const why = (result.error as NodeJS.ErrnoException).code ?? result.error.message;
      const otherwise =
        this.teams.length > 0
          ? `the team's policies (${shortPath(dirname(this.teams[0]!))}) need it too`
          : "or switch the default policies off with --policy-off";
      throw new CatalogError(
        `the catalog's policies need OPA v1 (${this.opa}: ${why}): put opa on PATH or set ${OPA_ENV}; ${otherwise} (docs/policies.md)`,
      );
    }
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  }
}

interface OpaError {
  message: string;
  code?: string;
  location?: { file?: string; row?: number };
}

function describeOpaError(error: OpaError): string {
  const at = error.location?.file !== undefined ? `${shortPath(error.location.file)}:${error.location.row ?? 0}: ` : "";
  // One line: OPA's conflict errors list their places on lines of their own.
  return `${at}${error.code !== undefined ? `${error.code}: ` : ""}${error.message.replace(/\s*\n\s*/g, "; ")}`;
}

/** A path as the user gave it: relative to the working folder when inside it. */
function shortPath(file: string): string {
  const rel = relative(process.cwd(), resolve(file));
  return rel.startsWith("..") ? file : rel;
}

function regoFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".rego") && !basename(f).endsWith("_test.rego"))
    .sort()
    .map((f) => join(dir, f));
}

function parsed<T>(text: string): T | undefined {
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

/** Walks `data.serviceapi`: each package's `deny` and `warn` sets (a message, or `{msg, key?, field?}`). */
function collect(value: unknown, path: string[], into: Verdict[]): void {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return;
  for (const [name, inner] of Object.entries(value as Record<string, unknown>)) {
    if ((name === "deny" || name === "warn") && Array.isArray(inner)) {
      for (const item of inner) into.push(verdictOf(name, path.join("."), item));
    } else collect(inner, [...path, name], into);
  }
}

function verdictOf(level: "deny" | "warn", policy: string, item: unknown): Verdict {
  if (typeof item === "string") return { level, policy, message: item };
  const object = (item ?? {}) as Record<string, unknown>;
  const verdict: Verdict = { level, policy, message: typeof object.msg === "string" ? object.msg : JSON.stringify(item) };
  if (typeof object.key === "string") verdict.key = object.key;
  if (typeof object.field === "string") verdict.field = object.field;
  return verdict;
}

/** The typed plan's changes of these stacks, as a policy reads them. */
export function policyChanges(reports: StackReport[], fileOf: (key: string) => string | undefined): PolicyChange[] {
  return reports.flatMap((report) => report.changes.map((change) => policyChange(change, report.stack, fileOf(change.key))));
}

function policyChange(change: PlannedChange, stack: string, file: string | undefined): PolicyChange {
  const out: PolicyChange = {
    key: change.key,
    kind: change.kind ?? "product",
    op: change.op,
    stack,
    archives: change.op === "archive" || archives(change),
    writes: writes(change),
    fields: change.fields,
    reasons: change.reasons.map((r) => r.code),
  };
  if (file !== undefined) out.file = file;
  if (change.renamedFrom !== undefined) out.renamedFrom = change.renamedFrom;
  if (change.adoptId !== undefined) out.adoptId = change.adoptId;
  if (change.then !== undefined) out.then = change.then;
  return out;
}
