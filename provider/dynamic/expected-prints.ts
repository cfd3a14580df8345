/**
 * Pulumi's dynamic-provider server prints every exception from check, diff, read and delete to
 * stderr as `${error}: ${error.stack}` before returning it to the engine, which prints the message
 * again (`@pulumi/pulumi/cmd/dynamic-provider`). For errors that are messages to the user — what
 * the API said, what we found wrong, a Node.js too old — the stack trace is noise in the CLI
 * output, so that one print is dropped; any other print goes through.
 */

/** Print text → how many prints of it to drop: errors raised on one code path print the same text. */
const expected = new Map<string, number>();
let installed = false;

/** Drops the server's one print of `error`. */
export function expectPrintOf(error: Error): void {
  install();
  const text = `${String(error)}: ${error.stack}`;
  expected.set(text, (expected.get(text) ?? 0) + 1);
}

function dropped(text: string): boolean {
  const count = expected.get(text);
  if (count === undefined) return false;
  if (count > 1) expected.set(text, count - 1);
  else expected.delete(text);
  return true;
}

function install(): void {
  if (installed) return;
  installed = true;
  const print = console.error.bind(console);
  console.error = (...args: unknown[]) => {
    if (args.length === 1 && typeof args[0] === "string" && dropped(args[0])) return;
    print(...args);
  };
}
