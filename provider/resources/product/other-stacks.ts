/**
 * Which other stacks of the state backend record a product: what an adoption's check
 * (`managed-elsewhere.ts`) asks before a stack takes a product over. Read once per provider process
 * (the context's memo), and only when the command adopts or imports one: every stack of the backend
 * but the provider's own, each one's state once — a `file://` or `postgres://` backend directly,
 * any other through `pulumi stack export` per stack (`provider/backend`) — or, when the tool names an
 * index (`SERVICEAPI_OTHER_STACKS_INDEX`, `tool-protocol.ts`), that file instead: the catalog tool has
 * read every stack already, and writes it so that its many stacks' providers read no backend.
 *
 * Which backend: `PULUMI_BACKEND_URL` when the CLI was given one (it passes its environment to the
 * provider), else the one `pulumi whoami` names — the backend the command itself runs on.
 */
import { readFile } from "node:fs/promises";
import type { StackRef, StackState, StateBackend } from "../../backend";
import type { OwnStack, ProviderContext } from "../context";
import { parseOtherStacks, TOOL_ENV, type Manager } from "../tool-protocol";
import { recordedProductId } from "./recorded";

export type { Manager } from "../tool-protocol";

/** What the read found: the stacks recording each product, or why nothing could be read. */
export type OtherStacks =
  | {
      readable: true;
      /** Product id (lower case) → the other stacks that record it. */
      managers: ReadonlyMap<string, readonly Manager[]>;
      /** Stacks whose state could not be read, and why: what they manage is not seen. */
      unread: readonly { stack: string; why: string }[];
      /** How many other stacks were read (or the index names). */
      stacks: number;
      /** What was read: `the state backend <url, password masked>`, or the index file. */
      source: string;
      /** How long the read took, in ms. */
      ms: number;
    }
  | { readable: false; why: string };

/** How many stacks' states are read at once: a file backend opens a file each, a PostgreSQL pool has two connections, the CLI limits itself. */
const AT_ONCE = 8;

const MEMO = Symbol("other stacks");

/** The other stacks of the backend, read on the first call of this process; every later call shares that read. */
export function otherStacks(ctx: ProviderContext): Promise<OtherStacks> {
  return ctx.memo(MEMO, () => readOtherStacks(ctx.ownStack(), ctx.env(), ctx.projectDir()));
}

/**
 * The read itself (one per process: `otherStacks`). Never throws: a failure is `readable: false` with
 * the reason. `via: "cli"` reads a file:// or postgres:// backend through the CLI too (bench/other-stacks.ts compares the two).
 */
export async function readOtherStacks(
  own: OwnStack | undefined,
  env: NodeJS.ProcessEnv,
  cwd: string | undefined,
  via?: "cli",
): Promise<OtherStacks> {
  const started = performance.now();
  const index = env[TOOL_ENV.otherStacks];
  if (index) return readIndex(index, own, started);
  // Without its own name, this stack's own record of a product would read as another stack's.
  if (own === undefined) return { readable: false, why: "this provider could not tell which stack it runs for" };
  // Loaded here, not with the provider: only an adoption or import reads the backend, and its
  // readers (YAML, PostgreSQL) are a tenth of what every catalog stack's provider process would load.
  const { fullName, openStateBackend } = await import("../../backend");
  let backend: StateBackend;
  try {
    backend = await openStateBackend({ env, ...(cwd !== undefined && { cwd }), ...(via !== undefined && { via }) });
  } catch (error) {
    return { readable: false, why: messageOf(error) };
  }
  try {
    const stacks = (await backend.stacks()).filter((ref) => !isOwn(ref, own));
    const managers = new Map<string, Manager[]>();
    const unread: { stack: string; why: string }[] = [];
    await inTurn(stacks, async (ref) => {
      let state: StackState | undefined;
      try {
        state = await backend.state(ref);
      } catch (error) {
        unread.push({ stack: fullName(ref), why: messageOf(error) });
        return;
      }
      for (const resource of state?.resources ?? []) {
        const id = recordedProductId(resource);
        if (id !== undefined) push(managers, id, { stack: fullName(ref), name: resource.urn.split("::").pop()! });
      }
    });
    return {
      readable: true,
      managers: sorted(managers),
      unread: unread.sort((a, b) => (a.stack < b.stack ? -1 : 1)),
      stacks: stacks.length,
      source: `the state backend ${backend.url}`,
      ms: Math.round(performance.now() - started),
    };
  } catch (error) {
    return { readable: false, why: messageOf(error) };
  } finally {
    await backend.close().catch(() => undefined);
  }
}

async function readIndex(path: string, own: OwnStack | undefined, started: number): Promise<OtherStacks> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    return { readable: false, why: `${TOOL_ENV.otherStacks} names ${path}, which cannot be read: ${messageOf(error)}` };
  }
  const parsed = parseOtherStacks(text);
  if ("problem" in parsed) return { readable: false, why: `${TOOL_ENV.otherStacks} names ${path}, ${parsed.problem}` };
  const managers = new Map<string, Manager[]>();
  const stacks = new Set<string>();
  for (const [id, list] of Object.entries(parsed.index.products)) {
    for (const { stack, name } of list) {
      // The index leaves out the stack it is written for; one that does not is read the same way.
      if (own !== undefined && isOwn(refOf(stack), own)) continue;
      push(managers, id.toLowerCase(), { stack, name });
      stacks.add(stack);
    }
  }
  return {
    readable: true,
    managers: sorted(managers),
    unread: [],
    stacks: stacks.size,
    source: `the index ${path} (${TOOL_ENV.otherStacks})`,
    ms: Math.round(performance.now() - started),
  };
}

/** Whether a stack of the backend is the provider's own. A face that cannot tell the organization (the plugin: URNs hold none) matches on project and stack. */
export function isOwn(ref: StackRef, own: OwnStack): boolean {
  if (ref.stack !== own.stack) return false;
  // A legacy-layout stack has no project: its name alone is unique in its backend.
  if (ref.project !== "" && ref.project !== own.project) return false;
  return own.organization === undefined || ref.project === "" || ref.organization === own.organization;
}

/** `organization/project/stack` (or a legacy stack's bare name) as a StackRef. */
function refOf(name: string): StackRef {
  const parts = name.split("/");
  return parts.length === 3
    ? { organization: parts[0]!, project: parts[1]!, stack: parts[2]! }
    : { organization: "", project: "", stack: name };
}

function push(managers: Map<string, Manager[]>, id: string, manager: Manager): void {
  const list = managers.get(id) ?? [];
  list.push(manager);
  managers.set(id, list);
}

/** Each product's stacks in name order, so messages do not depend on the order reads finished in. */
function sorted(managers: Map<string, Manager[]>): Map<string, Manager[]> {
  for (const list of managers.values()) list.sort((a, b) => (a.stack < b.stack ? -1 : a.stack > b.stack ? 1 : a.name < b.name ? -1 : 1));
  return managers;
}

async function inTurn<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, items.length) }, worker));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
