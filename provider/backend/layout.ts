/**
 * Where a Pulumi DIY backend (file, PostgreSQL, S3, …: one blob store under all of them) keeps
 * what this reader needs, as Pulumi v3.248.0 lays it out (pulumi/pulumi `pkg/backend/diy`: `store.go`,
 * `meta.go`, `lock.go`, `state.go`). Keys are relative to the backend's root:
 *
 * - `.pulumi/meta.yaml` — `version: 1`: the project-scoped layout, a stack's checkpoint at
 *   `.pulumi/stacks/<project>/<stack>.json`; `version: 0`, or no file while the stacks folder holds
 *   stacks of the older layout: the legacy layout, `.pulumi/stacks/<stack>.json`, no projects.
 * - A checkpoint may be compressed: `<stack>.json.gz` (PULUMI_DIY_BACKEND_GZIP) or `.json.zst`
 *   (PULUMI_DIY_BACKEND_ZSTD); when more than one exists, the last modified is the stack's.
 * - `.pulumi/locks/organization/<project>/<stack>/<id>.json` (legacy: `.pulumi/locks/<stack>/<id>.json`),
 *   one per command holding the stack.
 */
import { parse } from "yaml";
import type { StackRef } from "./model";

export const META_KEY = ".pulumi/meta.yaml";
export const STACKS_PREFIX = ".pulumi/stacks/";
const LOCKS_PREFIX = ".pulumi/locks/";
/** A DIY backend's only organization. */
export const DIY_ORGANIZATION = "organization";

export type Layout = "project" | "legacy";

/** A layout this reader does not know (a newer meta.yaml): the CLI reads such a backend instead. */
export class UnknownLayout extends Error {}

/** A project name (`tokens.IsName`) and a stack name (`tokens.ParseStackName`), as Pulumi checks them. */
const PROJECT_NAME = /^[A-Za-z0-9_.-]+$/;
const STACK_NAME = /^[A-Za-z0-9_.-]{1,100}$/;
const COMPRESSED = [".gz", ".zst"];

/**
 * The layout meta.yaml names; without one, legacy when the stacks folder holds legacy stacks
 * (`stackKeys`, keys under STACKS_PREFIX), else project (what Pulumi writes into a new backend).
 */
export function layoutOf(meta: Buffer | undefined, stackKeys: readonly string[]): Layout {
  if (meta === undefined) return stackKeys.some((key) => legacyStack(key) !== undefined) ? "legacy" : "project";
  let version: unknown;
  try {
    version = (parse(meta.toString("utf8")) as { version?: unknown } | null)?.version;
  } catch (error) {
    throw new Error(`${META_KEY} is not YAML (${(error as Error).message.split("\n")[0]})`, { cause: error });
  }
  if (version === 0) return "legacy";
  if (version === 1) return "project";
  if (typeof version !== "number") throw new Error(`${META_KEY} has no version`);
  throw new UnknownLayout(`${META_KEY} has version ${version}, which Pulumi 3.248 does not know either`);
}

/** The stacks that `keys` (every key under STACKS_PREFIX) hold in `layout`, each once. */
export function stacksOf(keys: readonly string[], layout: Layout): StackRef[] {
  const found = new Map<string, StackRef>();
  for (const key of keys) {
    const ref = layout === "project" ? projectStack(key) : legacyStack(key);
    if (ref !== undefined) found.set(`${ref.project}/${ref.stack}`, ref);
  }
  return [...found.values()];
}

/** `.pulumi/stacks/<project>/<stack>.json[.gz|.zst]` → the stack; anything else (backups `.bak`, folders deeper) → undefined. */
function projectStack(key: string): StackRef | undefined {
  const parts = key.slice(STACKS_PREFIX.length).split("/");
  if (!key.startsWith(STACKS_PREFIX) || parts.length !== 2 || !PROJECT_NAME.test(parts[0]!)) return undefined;
  const stack = stackOfFile(parts[1]!);
  return stack === undefined ? undefined : { organization: DIY_ORGANIZATION, project: parts[0]!, stack };
}

function legacyStack(key: string): StackRef | undefined {
  const file = key.slice(STACKS_PREFIX.length);
  if (!key.startsWith(STACKS_PREFIX) || file.includes("/")) return undefined;
  const stack = stackOfFile(file);
  return stack === undefined ? undefined : { organization: DIY_ORGANIZATION, project: "", stack };
}

function stackOfFile(file: string): string | undefined {
  const plain = COMPRESSED.reduce((name, ext) => (name.endsWith(ext) ? name.slice(0, -ext.length) : name), file);
  if (!plain.endsWith(".json")) return undefined;
  const stack = plain.slice(0, -".json".length);
  return STACK_NAME.test(stack) ? stack : undefined;
}

/** Where a stack's checkpoint may lie: plain, gzip, zstd (in the order Pulumi breaks a tie of modification times: the later wins). */
export function checkpointKeys(ref: StackRef): string[] {
  const base = ref.project === "" ? `${STACKS_PREFIX}${ref.stack}.json` : `${STACKS_PREFIX}${ref.project}/${ref.stack}.json`;
  return [base, `${base}.gz`, `${base}.zst`];
}

/**
 * Where the catalog tool keeps a stack's create journal while an `up` that skips Pulumi's
 * intermediate checkpoints runs (provider/catalog/run.ts says why): beside the state, so that it is
 * kept, copied and lost with it, and whatever runner recovers the stack finds it. Outside
 * `.pulumi/stacks/`, which Pulumi lists.
 */
export function journalKey(ref: StackRef): string {
  return ref.project === ""
    ? `.pulumi/serviceapi/journal/${ref.stack}.jsonl`
    : `.pulumi/serviceapi/journal/${ref.project}/${ref.stack}.jsonl`;
}

/** The folder of a stack's lock files, with its trailing slash. */
export function lockPrefix(ref: StackRef): string {
  return ref.project === "" ? `${LOCKS_PREFIX}${ref.stack}/` : `${LOCKS_PREFIX}${DIY_ORGANIZATION}/${ref.project}/${ref.stack}/`;
}

/** Whether a ref can name a stack of a DIY backend at all (else it names none: no file is looked for). */
export function isDiyRef(ref: StackRef): boolean {
  return STACK_NAME.test(ref.stack) && (ref.project === "" || (ref.organization === DIY_ORGANIZATION && PROJECT_NAME.test(ref.project)));
}
