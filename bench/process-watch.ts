/**
 * What the processes of one CLI run cost, read from /proc while it runs: every process below the
 * CLI's pid (the CLI, its language host and program, its provider plugins), each process's peak
 * resident set (`VmHWM`, the kernel's own high-water mark), its CPU time, and the bytes the CLI
 * wrote. Only processes started by that run are counted: the tree is walked from the run's root.
 *
 * Linux only (the bench machines); polled every 100 ms, so a process that lives less than that
 * may be missed, and the last figures are those of the last poll before a process exited.
 */
import { procFile, processTree, statFields } from "../scripts/engine/driver";

export type Role = "cli" | "program" | "provider" | "other";

export interface ProcessFigures {
  pid: number;
  role: Role;
  /** Peak resident set size, bytes. */
  peakRss: number;
  /** User + system CPU time, ms. */
  cpuMs: number;
  /** Bytes handed to write(2) and friends: files, pipes and sockets. */
  written: number;
  /** Its command line, as first seen. */
  command: string;
}

const TICK_MS = 1000 / 100; // USER_HZ is 100 on Linux

/** What a process is, from its command line. */
function roleOf(cmdline: string, isRoot: boolean): Role {
  if (isRoot) return "cli";
  if (/dynamic-provider|pulumi-resource-pulumi-nodejs|pulumi-resource-serviceapi|plugin\/main\.js|serviceapi-plugin\.js/.test(cmdline))
    return "provider";
  // The Node.js host's program (`@pulumi/pulumi/cmd/run`) and the YAML host, which runs the program itself.
  if (/cmd\/run|pulumi-language-yaml/.test(cmdline)) return "program";
  return "other";
}

/**
 * Starts watching the tree below `root`; `stop()` returns each process's last figures, and
 * `peakTreeRss()` the most the tree held at once (the summed `VmRSS` of one poll, at its highest):
 * what a run of many short-lived processes needs of the machine, which no one process's peak says.
 */
export function watchProcesses(root: number): { stop: () => ProcessFigures[]; peakTreeRss: () => number } {
  const seen = new Map<number, ProcessFigures>();
  let peakTree = 0;
  const poll = () => {
    let tree = 0;
    for (const pid of processTree(root)) {
      const status = procFile(pid, "status");
      const fields = statFields(pid);
      if (status === undefined || fields === undefined) continue;
      const hwm = /VmHWM:\s+(\d+) kB/.exec(status);
      tree += Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
      // utime and stime are fields 14 and 15 of /proc/<pid>/stat, i.e. 11 and 12 after "state".
      const cpuMs = (Number(fields[11]) + Number(fields[12])) * TICK_MS;
      const written = Number(/wchar:\s+(\d+)/.exec(procFile(pid, "io") ?? "")?.[1] ?? 0);
      const previous = seen.get(pid);
      const cmdline = (procFile(pid, "cmdline") ?? "").replace(/\0/g, " ");
      seen.set(pid, {
        pid,
        // A launcher (`sh pulumi-resource-serviceapi`) execs node: keep the role its first command line gave.
        role: previous?.role ?? roleOf(cmdline, pid === root),
        peakRss: hwm ? Number(hwm[1]) * 1024 : (previous?.peakRss ?? 0),
        cpuMs: Math.max(cpuMs, previous?.cpuMs ?? 0),
        written: Math.max(written, previous?.written ?? 0),
        command: previous?.command ?? cmdline,
      });
    }
    peakTree = Math.max(peakTree, tree);
  };
  poll();
  const timer = setInterval(poll, 100);
  return {
    stop: () => {
      clearInterval(timer);
      return [...seen.values()];
    },
    peakTreeRss: () => peakTree,
  };
}
