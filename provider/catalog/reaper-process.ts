/**
 * The process reaper's watcher (`reaper.ts` says why it exists and what it kills): started by the
 * bin as `node reaper-process.js <tool pid> <run mark>`, stdin a pipe from the tool, stdout one to it. It loads
 * nothing but Node's own modules, so it starts in a moment and costs little while it waits.
 */
import { watch } from "./reaper";

// Its stderr is the tool's: one line should it fail (the tool goes on without it). Nothing on a
// closed pipe; the tool closes its end of stdout once it has read "ready".
process.stderr.on("error", () => {});
process.stdout.on("error", () => {});
process.on("uncaughtException", (error) => {
  process.stderr.write(`serviceapi-catalog: the process reaper failed: ${error.message}\n`);
  process.exit(1);
});

const [tool, mark] = process.argv.slice(2);
watch(Number(tool), mark!, process.stdin, process.stdout);
