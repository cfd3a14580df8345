/**
 * Pulumi's dynamic-provider server prints every exception from check, diff, read and delete to
 * stderr as `${error}: ${error.stack}` before returning it to the engine, which prints the message
 * again (`@pulumi/pulumi/cmd/dynamic-provider`). For errors that are messages to the user — what
 * the API said, what we found wrong, a Node.js too old — the stack trace is noise in the CLI
 * output, so that one print is dropped; any other print goes through.
 */
const expected = new Set<string>();
let installed = false;

/** Drops the server's one print of `error`. */
export function expectPrintOf(error: Error): void {
  install();
  expected.add(`${String(error)}: ${error.stack}`);
}

function install(): void {
  if (installed) return;
  installed = true;
  const print = console.error.bind(console);
  console.error = (...args: unknown[]) => {
    if (args.length === 1 && typeof args[0] === "string" && expected.delete(args[0])) return;
    print(...args);
  };
}
