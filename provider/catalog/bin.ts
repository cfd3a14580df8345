#!/usr/bin/env node
/**
 * `serviceapi-catalog`, the package's bin: what makes `main()` (`cli.ts`) a Unix command. In order:
 *
 * 1. The Node.js version, before any dependency loads: on an older Node undici fails as it loads
 *    (`TypeError: Cannot read properties of undefined (reading 'bind')`), so `./cli` and everything
 *    else is loaded only after the check (`import()`, which the CommonJS build turns into a
 *    `require` at that point). A too-old Node gets one line naming both versions, and exit code 2
 *    (refused before any stack ran, `EXIT.refused` of `tool.ts`, which cannot load there).
 * 2. Node.js's compile cache, for the tool and the `pulumi` processes' Node.js programs and providers
 *    (`compile-cache.ts`), before anything else loads.
 * 3. The process reaper (`reaper.ts`), before any process starts (the command waits for its first
 *    look): a killed run takes its `pulumi` processes and their plugins with it.
 * 4. Closed pipes: `plan | head -1` ends quietly with the command's own exit code; `up | head` goes on
 *    deploying with stdout closed, as stopping half-way would be worse than a lost report.
 * 5. Signals: the first SIGINT or SIGTERM cancels the run (running stacks stop as `pulumi` does on
 *    Ctrl-C); a second one leaves at once, with 130, and the reaper kills what is left.
 */
import { MIN_NODE, nodeAtLeast } from "../node-minimum";
import type { Output } from "./tool";

/** `EXIT.refused` (tool.ts): refused before any stack ran. */
const NODE_TOO_OLD = 2;

if (nodeAtLeast(process.versions.node, MIN_NODE)) {
  void run();
} else {
  process.stderr.write(
    `serviceapi-catalog: needs Node.js ${MIN_NODE} or later; this is Node.js ${process.version} (${process.execPath}). ` +
      "Put a newer node first on PATH.\n",
  );
  process.exitCode = NODE_TOO_OLD;
}

async function run(): Promise<void> {
  // Before the tool's own modules load, and inherited by every process below it (compile-cache.ts says why).
  (await import("../compile-cache")).shareCompileCache();
  const { startReaper } = await import("./reaper");
  const reaper = startReaper();
  const [{ main }, { EXIT }] = await Promise.all([import("./cli"), import("./tool"), reaper.ready]);

  // A closed stdout (EPIPE: the reader, `head` say, has what it wanted) ends the output, not the
  // run; a closed stderr likewise. Any other failure to write the output (a full disk) is said on
  // stderr and fails a run that would otherwise have succeeded: its output is incomplete.
  const open = { out: true, err: true };
  const io: Output = {
    out: (text) => void (open.out && process.stdout.write(`${text}\n`)),
    err: (text) => void (open.err && process.stderr.write(`${text}\n`)),
    ...(process.stderr.isTTY && { terminal: process.stderr }),
  };
  let outputLost = false;
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    open.out = false;
    if (error.code === "EPIPE") return;
    outputLost = true;
    io.err(`serviceapi-catalog: could not write to stdout (${error.code ?? error.message}): the output is incomplete`);
    if (!process.exitCode) process.exitCode = EXIT.failed;
  });
  process.stderr.on("error", () => {
    open.err = false;
  });

  const controller = new AbortController();
  let interrupted = 0;
  const stop = () => {
    // No reaper.done() on the way out: the stacks still running are killed, as a kill's would be.
    if (++interrupted > 1) process.exit(EXIT.cancelled);
    io.err("serviceapi-catalog: cancelling — running stacks are asked to stop; press Ctrl-C again to leave at once");
    controller.abort();
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);

  // No process.exit() right after the report: to a pipe, stdout is written asynchronously, and an
  // exit cut a large --json report short (seen at 10,000 products). The process ends when its
  // output is flushed; the unref'd timer only ends one that something else would keep alive.
  const exit = (code: number) => {
    reaper.done();
    process.exitCode = outputLost && code === EXIT.ok ? EXIT.failed : code;
    setTimeout(() => process.exit(process.exitCode), 10_000).unref();
  };
  main(process.argv.slice(2), io, controller.signal).then(exit, (error: unknown) => {
    // Not done: the reaper takes down whatever the failed run left running.
    io.err(`serviceapi-catalog: ${(error as Error).stack ?? String(error)}`);
    process.exit(EXIT.failed);
  });
}
