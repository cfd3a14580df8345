/**
 * Runs once around the whole suite. Before: the toolchain check, and a marker in the environment
 * that every process the suite starts inherits (vitest's workers, the simulators' CLIs, `pulumi`,
 * its language hosts and plugins, the dynamic providers). After: the run fails if any process
 * carrying the marker is still alive — a plugin or CLI a test left behind — after killing it, so
 * nothing outlives `npm test`.
 */
import { randomUUID } from "node:crypto";
import { shareCompileCache } from "../provider/compile-cache";
import { processesWithEnv } from "../scripts/engine/processes";

const MARKER = "SERVICEAPI_TEST_RUN";

export default function setup(): () => Promise<void> {
  console.log(`pulumi-serviceapi tests on Node ${process.version} (${process.execPath})`);
  const major = Number(process.versions.node.split(".")[0]);
  if (major < 22) throw new Error(`tests need Node >= 22 (the pinned toolchain is Node 24); got ${process.version}`);
  const run = randomUUID();
  process.env[MARKER] = run;
  // The suite's processes (workers, `pulumi`'s programs and providers) share Node.js's compile cache, as the catalog's do.
  shareCompileCache();
  return async () => {
    // Processes shut down on their own for a moment after their test (a plugin after its CLI exits).
    let left = survivors(run);
    for (let waited = 0; left.length > 0 && waited < 15_000; waited += 250) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      left = survivors(run);
    }
    if (left.length === 0) return;
    for (const { pid } of left) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone meanwhile
      }
    }
    throw new Error(
      `the suite left ${left.length} process(es) running (now killed):\n${left.map((p) => `  ${p.pid} ${p.command}`).join("\n")}`,
    );
  };
}

/** Processes carrying this run's marker, other than vitest's own workers and zombies. */
function survivors(run: string): { pid: number; command: string }[] {
  return processesWithEnv(MARKER, run).filter(({ command }) => command !== "" && !/vitest/.test(command));
}
