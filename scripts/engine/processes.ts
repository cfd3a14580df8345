/**
 * The machine's processes as Linux's /proc shows them: the one place the tests (a lost runner's
 * SIGKILL, the suite's check for processes left running) and the bench (what one CLI run's
 * processes cost) read it. Every read tolerates a process that exits meanwhile; without /proc (not
 * Linux) listing the processes fails, so that no check passes by seeing nothing.
 */
import { readFileSync, readdirSync } from "node:fs";
import { statFields } from "../../provider/catalog/reaper";

/**
 * The pid of every process. Without /proc (not Linux) this throws: a check that cannot look —
 * the suite's check for processes left running, a test's "nothing of the run is alive" — must fail,
 * not pass because it saw nothing.
 */
export function allPids(): number[] {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch (error) {
    throw new Error(
      `the process table cannot be read (/proc: ${(error as NodeJS.ErrnoException).code ?? error}): these checks need Linux`,
      {
        cause: error,
      },
    );
  }
  return names.filter((name) => /^\d+$/.test(name)).map(Number);
}

export { statFields };

/** `/proc/<pid>/<file>` as text, or undefined once the process is gone (or not ours to read). */
export function procFile(pid: number, file: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, "utf8");
  } catch {
    return undefined;
  }
}

/** `root` and every process below it, parents first, as the process table stands now. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const pid of allPids()) {
    const fields = statFields(pid);
    if (fields === undefined) continue;
    const parent = Number(fields[1]);
    children.set(parent, [...(children.get(parent) ?? []), pid]);
  }
  const tree: number[] = [];
  for (const queue = [root]; queue.length > 0;) {
    const pid = queue.shift()!;
    tree.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return tree;
}

/**
 * SIGKILL to `pid` and every process below it, as a lost CI runner (or an OOM-killed container)
 * takes down the whole job. The process group is not enough: Pulumi starts each plugin in a group
 * of its own, so plugins would outlive a `kill(-pgid)` as orphans.
 */
export function killTree(pid: number): void {
  for (const member of processTree(pid)) {
    try {
      process.kill(member, "SIGKILL");
    } catch {
      // exited meanwhile
    }
  }
}

/** Processes other than this one whose environment holds `name=value`, with their command lines ("" for a zombie). */
export function processesWithEnv(name: string, value: string): { pid: number; command: string }[] {
  const found: { pid: number; command: string }[] = [];
  for (const pid of allPids()) {
    if (pid === process.pid) continue;
    if (!procFile(pid, "environ")?.split("\0").includes(`${name}=${value}`)) continue;
    const command = procFile(pid, "cmdline");
    if (command !== undefined) found.push({ pid, command: command.split("\0").join(" ").trim() });
  }
  return found;
}
