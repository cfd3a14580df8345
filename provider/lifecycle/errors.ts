/**
 * Errors the providers raise, and how they reach the user.
 */
import { AuthenticationError, NotFoundError } from "../client";

/** A 404 from the API: the record is gone (or the token can no longer see it). */
export function isNotFound(error: unknown): error is NotFoundError {
  return error instanceof NotFoundError;
}

/**
 * The error shape the dynamic-provider server turns into a partial failure: the engine records
 * `id` with `properties` as the outputs and shows `reasons` (not `message`). The next `up` then
 * runs an update for the resource instead of a second create.
 */
export function partialFailure(id: string, properties: Record<string, unknown>, message: string): Error {
  return Object.assign(new Error(message), { id, properties, reasons: [message] });
}

/** Adds advice to an error's message; the error keeps its class, `code` and `mayHaveSucceeded`. */
export function withHint<E>(error: E, hint: string): E {
  if (error instanceof Error) error.message = `${error.message} ${hint}`;
  return error;
}

/**
 * `pulumi refresh` and `pulumi destroy` run with the provider configuration recorded at the last
 * `pulumi up`, not the current stack config: after a token rotation a 401 there usually means
 * exactly that, so the message says how to run them with the current one.
 */
export function withAuthHint(error: unknown): unknown {
  if (!(error instanceof AuthenticationError)) return error;
  return withHint(error, "If serviceapi:token (or serviceapi:baseUrl) changed since the last `pulumi up`: `pulumi refresh` and " +
    "`pulumi destroy` still use the values recorded then; run them with `--run-program`, or keep the token only in SERVICEAPI_TOKEN.");
}

/**
 * The dynamic-provider server prints every exception from check, diff, read and delete to stderr
 * as `${error}: ${error.stack}` before returning it to the engine, which prints the message again
 * (`@pulumi/pulumi/cmd/dynamic-provider`). For errors that are messages to the user — what the API
 * said, or what we found wrong — the stack trace is noise in the CLI output, so that one print is
 * dropped; any other exception (a bug) keeps its stack.
 */
const expectedPrints = new Set<string>();
let filterInstalled = false;

export function userFacing<A extends unknown[], R>(method: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args: A) => {
    try {
      return await method(...args);
    } catch (error) {
      if (error instanceof Error && !(error instanceof TypeError) && !(error instanceof RangeError) && !(error instanceof ReferenceError)) {
        installPrintFilter();
        expectedPrints.add(`${String(error)}: ${error.stack}`);
      }
      throw error;
    }
  };
}

function installPrintFilter(): void {
  if (filterInstalled) return;
  filterInstalled = true;
  const print = console.error.bind(console);
  console.error = (...args: unknown[]) => {
    if (args.length === 1 && typeof args[0] === "string" && expectedPrints.delete(args[0])) return;
    print(...args);
  };
}
