/**
 * The process reaper: a killed `serviceapi-catalog` takes the processes it started with it.
 *
 * Why it is needed: a SIGKILL (a lost CI runner, the OOM killer, `kill -9`) gives the tool no chance
 * to stop its `pulumi` commands. Each of those then dies of SIGPIPE at its next write to the tool,
 * or lives on; either way the plugins it started — the dynamic providers — are orphaned, and keep
 * running (the stacks' programs run in the tool's own process, and end with it). Killing the tool's process group does not reach them:
 * Pulumi's CLI starts every plugin in a process group of its own.
 *
 * Why a watcher process and not the parent-death signal (`setpriv --pdeathsig`, `prctl`): that
 * signal reaches only a direct child, the `pulumi` CLI, and nothing below it; it is sent when the
 * *thread* that forked the child ends, which in a Go program (the CLI starting its plugins) is any
 * thread; it is Linux's alone; and the CLI would have to put it on every plugin itself. A watcher
 * sees the whole tree, on any Unix (not on Windows: there the tool starts none).
 *
 * So the bin starts, first thing, a small detached process (`reaper-process.ts`: a session of its
 * own, so the group signals of a terminal or a CI runner do not reach it; stdin a pipe from the
 * tool; unref'd, so it never keeps the tool alive), and runs the command once the watcher has
 * taken its first look (it starts while the tool loads, so the wait costs no time). The watcher
 * records the tool's descendants every {@link INTERVAL_MS} ms: pid and start time, so a pid the
 * system hands to another process later is never taken for one of ours. When its stdin closes, the tool is gone: if the tool said "done"
 * first, the run ended normally and the watcher exits at once, killing nothing; otherwise (SIGKILL,
 * a crash, a second Ctrl-C) it kills every recorded descendant still alive, every process below
 * them, and every process carrying the run's mark in its environment ({@link RUN_MARK}: Linux only,
 * it catches a process started and orphaned since the last look), then exits.
 */
import { spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import type { Socket } from "node:net";
import { join } from "node:path";

/** How often the watcher records the tool's descendants. */
export const INTERVAL_MS = 200;

/**
 * The environment variable every process of a run inherits from the tool, its value unique to the
 * run: what the watcher looks for in `/proc/<pid>/environ` when it reaps.
 */
export const RUN_MARK = "SERVICEAPI_CATALOG_RUN";

/** What the tool writes to the watcher when its run ended normally. */
const DONE = "done\n";
/** What the watcher writes to the tool once it has looked at the process table a first time. */
const READY = "ready\n";

/** The tool's handle on its watcher. */
export interface Reaper {
  /**
   * Resolves once the watcher has taken its first look, so every process the tool starts from then
   * on is the watcher's to see (or once it could not start: the run goes on without it).
   */
  ready: Promise<void>;
  /** The run ended normally: the watcher exits and kills nothing. */
  done(): void;
}

/**
 * Starts the watcher for this process (the bin calls it before anything else starts a process) and
 * marks this process's environment, so every process it starts from now on carries the run's mark.
 * `entry` is the watcher's program (the build's `reaper-process.js` beside this file).
 */
export function startReaper(entry = join(__dirname, "reaper-process.js")): Reaper {
  // Windows has neither `ps` nor sessions; a job object would be its way, not done here.
  if (process.platform === "win32") return { ready: Promise.resolve(), done: () => {} };
  const mark = randomUUID();
  process.env[RUN_MARK] = mark;
  // stdout says "ready"; stderr is the tool's, for the watcher's one line should it fail.
  const child = spawn(process.execPath, [entry, String(process.pid), mark], { detached: true, stdio: ["pipe", "pipe", "inherit"] });
  const ready = new Promise<void>((resolve) => {
    child.on("error", (error) => {
      process.stderr.write(
        `serviceapi-catalog: could not start the process reaper (${error.message}); a killed run may leave pulumi processes running\n`,
      );
      resolve();
    });
    let said = "";
    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (chunk: string) => {
      said += chunk;
      if (!said.includes(READY)) return;
      // Read no more: an open pipe would keep this process alive.
      child.stdout!.destroy();
      resolve();
    });
    child.stdout!.on("close", () => resolve());
  });
  const pipe = child.stdin as Socket;
  // The watcher gone first (it failed) makes a write to it fail; that is no error of the run's.
  pipe.on("error", () => {});
  pipe.unref();
  child.unref();
  return { ready, done: () => pipe.end(DONE) };
}

/** A process as the process table shows it: its parent, and its start time as an opaque text. */
export interface ProcessEntry {
  ppid: number;
  start: string;
}

/** The machine's processes by pid. */
export type ProcessTable = Map<number, ProcessEntry>;

/** The process table: Linux's `/proc`, elsewhere `ps`. */
export function readProcessTable(): ProcessTable {
  return process.platform === "linux" ? procTable() : psTable();
}

/**
 * The process table from `/proc/<pid>/stat`: the fields after the command name (which may hold
 * spaces and parentheses, so they start after its last ")") are state, ppid, …, and at [19] the
 * start time in clock ticks since boot. Processes that have exited are left out, zombies too (state
 * Z, or X): one whose parent has not collected it yet still has its entry, but runs nothing, starts
 * nothing and cannot be killed — a watcher that "killed" it would name a process that was gone.
 */
export function procTable(): ProcessTable {
  const table: ProcessTable = new Map();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const fields = statFields(Number(name));
    if (fields === undefined) continue; // exited meanwhile
    if (fields[0] === "Z" || fields[0] === "X") continue;
    table.set(Number(name), { ppid: Number(fields[1]), start: fields[19]! });
  }
  return table;
}

/**
 * The fields of `/proc/<pid>/stat` after the command name: [0] state, [1] parent pid, [11] user and
 * [12] system CPU time and [19] the start time, in clock ticks. The name may hold spaces and
 * parentheses, so the fields start after its last ")". Undefined once the process is gone. The one
 * reader of the file (the engine tests' process helpers use it too).
 */
export function statFields(pid: number): string[] | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** The process table from `ps` (macOS, the BSDs): the start time is `lstart`, to the second. */
export function psTable(): ProcessTable {
  const ps = spawnSync("ps", ["-A", "-o", "pid=,ppid=,lstart="], { encoding: "utf8", env: { ...process.env, LC_ALL: "C" } });
  if (ps.status !== 0) throw new Error(`ps -A failed: ${ps.error?.message ?? ps.stderr.trim()}`);
  return parsePs(ps.stdout);
}

/** `ps -o pid=,ppid=,lstart=` output as a table. */
export function parsePs(text: string): ProcessTable {
  const table: ProcessTable = new Map();
  for (const line of text.split("\n")) {
    const match = /^\s*(\d+)\s+(\d+)\s+(\S.*?)\s*$/.exec(line);
    if (match) table.set(Number(match[1]), { ppid: Number(match[2]), start: match[3]! });
  }
  return table;
}

/** `roots` and every process below them in `table`, never entering `skip` or its subtree. */
export function subtree(table: ProcessTable, roots: Iterable<number>, skip: ReadonlySet<number> = new Set()): Set<number> {
  const children = new Map<number, number[]>();
  for (const [pid, { ppid }] of table) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  const found = new Set<number>();
  const queue = [...roots].filter((pid) => table.has(pid) && !skip.has(pid));
  while (queue.length > 0) {
    const pid = queue.pop()!;
    if (found.has(pid)) continue;
    found.add(pid);
    for (const child of children.get(pid) ?? []) if (!skip.has(child)) queue.push(child);
  }
  return found;
}

/** The pids in `table` whose environment holds `name=value` (Linux; elsewhere none). */
export function markedProcesses(table: ProcessTable, name: string, value: string): number[] {
  if (process.platform !== "linux") return [];
  const entry = `${name}=${value}`;
  const marked: number[] = [];
  for (const pid of table.keys()) {
    try {
      if (readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(entry)) marked.push(pid);
    } catch {
      // exited meanwhile, or another user's
    }
  }
  return marked;
}

export interface WatcherOptions {
  /** The run's mark in the environment (`RUN_MARK`'s value). */
  mark?: string;
  /** Reads the process table (default: `readProcessTable`). */
  table?: () => ProcessTable;
}

/**
 * What the watcher knows of one tool process: its descendants, as recorded, and how to kill them.
 * The watcher itself (this process) and whatever it starts are never among them.
 */
export class Watcher {
  readonly #tool: number;
  readonly #toolStart: string;
  readonly #mark: string | undefined;
  readonly #table: () => ProcessTable;
  readonly #self = new Set([process.pid]);
  /** Every descendant of the tool seen so far and still alive, by pid: its start time. */
  readonly recorded = new Map<number, string>();

  constructor(tool: number, toolStart: string, options: WatcherOptions = {}) {
    this.#tool = tool;
    this.#toolStart = toolStart;
    this.#mark = options.mark;
    this.#table = options.table ?? readProcessTable;
  }

  /** One look at the process table: the tool's descendants now join the record; the gone leave it. */
  record(): void {
    const table = this.#table();
    for (const [pid, start] of this.recorded) if (table.get(pid)?.start !== start) this.recorded.delete(pid);
    // Below the recorded ones too: a process whose parent died meanwhile (a plugin of a CLI gone) is
    // no longer below the tool, but what it starts is still the run's.
    const roots = [...this.recorded.keys()];
    if (table.get(this.#tool)?.start === this.#toolStart) roots.push(this.#tool);
    for (const pid of subtree(table, roots, this.#self)) if (pid !== this.#tool) this.recorded.set(pid, table.get(pid)!.start);
  }

  /**
   * SIGKILL to every recorded descendant still alive (the same start time), every process below
   * them, and (Linux) every process carrying the run's mark; the pids killed. Each is stopped first
   * (SIGSTOP) and the table read again, until a look finds no one new: a stopped process starts
   * nothing, so no child escapes between the last look and the kill.
   */
  reap(): number[] {
    const stopped = new Set<number>();
    for (let look = 0; look < 100; look++) {
      const table = this.#table();
      const roots = [...this.recorded].filter(([pid, start]) => table.get(pid)?.start === start).map(([pid]) => pid);
      if (table.get(this.#tool)?.start === this.#toolStart) roots.push(this.#tool);
      if (this.#mark !== undefined) roots.push(...markedProcesses(table, RUN_MARK, this.#mark));
      const found = [...subtree(table, roots, this.#self)].filter((pid) => pid !== this.#tool && !stopped.has(pid));
      if (found.length === 0) break;
      for (const pid of found) {
        signal(pid, "SIGSTOP");
        stopped.add(pid);
      }
    }
    for (const pid of stopped) signal(pid, "SIGKILL");
    return [...stopped];
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // exited meanwhile
  }
}

/**
 * The watcher's life, in its own process (`reaper-process.ts`): `tool` is the pid of the tool that
 * started it, `mark` its run's mark, `input` the pipe from the tool, `output` the pipe to it.
 */
export function watch(tool: number, mark: string, input: NodeJS.ReadableStream, output: NodeJS.WritableStream): void {
  const table = readProcessTable();
  // Still the tool's child after that look: the tool was alive while the table was read, so the
  // start time read for its pid is the tool's own. If not, the tool is already gone and its pid may
  // be another process's by now; nothing of it can be told apart any more.
  const toolStart = table.get(tool)?.start;
  if (process.ppid !== tool || toolStart === undefined) process.exit(0);
  const watcher = new Watcher(tool, toolStart, { mark });
  watcher.record();
  output.write(READY);
  const timer = setInterval(() => watcher.record(), INTERVAL_MS);
  let said = "";
  input.setEncoding("utf8");
  input.on("data", (chunk: string) => {
    said += chunk;
    if (said.includes(DONE)) process.exit(0);
  });
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    clearInterval(timer);
    watcher.reap();
    process.exit(0);
  };
  input.on("end", end);
  input.on("close", end);
  input.on("error", end);
}
