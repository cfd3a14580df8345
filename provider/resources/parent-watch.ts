/**
 * A provider process — the plugin, or Pulumi's dynamic-provider server running this package — whose
 * `pulumi` is gone (SIGKILLed: a CI job's timeout, a lost runner, a second Ctrl-C) has nobody left
 * to serve, and nothing tells it: the engine that would stop it is the process that died. Left
 * alone it lingers as an orphan, reparented to PID 1 (seen here for more than 6.5 s, and as long as
 * gRPC keeps its port open), which a CI runner counts as a process left behind. So each provider
 * process watches its parent and exits once it changes: within one interval of the kill.
 */

/** How often the parent is looked at: a kill is followed within this, well inside the 2 s a test allows on a busy machine. */
export const PARENT_WATCH_MS = 250;

/** Exits the process (or calls `exit`) once its parent process is no longer the one it started with. The timer keeps nothing alive. */
export function exitWithParent(exit: () => void = () => process.exit(0), intervalMs = PARENT_WATCH_MS): NodeJS.Timeout {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid !== parent) {
      clearInterval(timer);
      exit();
    }
  }, intervalMs);
  return timer.unref();
}
