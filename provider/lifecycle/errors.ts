/**
 * Errors the providers raise, and the advice added to the client's errors. A hint never changes
 * an error's class, `code` or `mayHaveSucceeded`.
 */
import { AuthenticationError, ConfigError, ConnectionError, NotFoundError } from "../client";

/** A 404 from the API: the record is gone (or the token can no longer see it). */
export function isNotFound(error: unknown): error is NotFoundError {
  return error instanceof NotFoundError;
}

/**
 * The record was created (or adopted) but a later step failed: the engine must still record it,
 * with `outputs`, so the next `up` updates it instead of creating a second one. Each face turns this
 * into its server's partial-failure shape.
 */
export class PartialFailure extends Error {
  constructor(readonly id: string, readonly outputs: object, message: string) {
    super(message);
    this.name = "PartialFailure";
  }
}

/** Adds advice to an error's message; the error keeps its class, `code` and `mayHaveSucceeded`. */
export function withHint<E>(error: E, hint: string): E {
  if (error instanceof Error) error.message = `${error.message} ${hint}`;
  return error;
}

const authHinted = new WeakSet<object>();

/**
 * `pulumi refresh` and `pulumi destroy` run with the provider configuration recorded at the last
 * `pulumi up` (even one that failed), not the current stack config: after a token rotation a 401
 * there usually means exactly that, and so does a bad setting (checked at preview for `up`, so
 * reaching a record operation only there), so the message says how to run them with the current one.
 * Both faces apply it to every record operation (create, read, update, delete); applying it twice
 * adds the advice once.
 */
function withAuthHint(error: unknown): unknown {
  if (typeof error !== "object" || error === null || authHinted.has(error)) return error;
  authHinted.add(error);
  if (error instanceof AuthenticationError) {
    return withHint(error, "If serviceapi:token (or serviceapi:baseUrl) changed since the last `pulumi up`: `pulumi refresh` and " +
      "`pulumi destroy` still use the values recorded then; run them with `--run-program`, or keep the token only in SERVICEAPI_TOKEN.");
  }
  if (error instanceof ConnectionError && error.unreachable) {
    return withHint(error, "If serviceapi:baseUrl or serviceapi:publicBaseUrl changed (or was removed) since the last `pulumi up`: `pulumi refresh` " +
      "and `pulumi destroy` still use the values recorded then; run them with `--run-program`, or run `pulumi up` first.");
  }
  if (error instanceof ConfigError) {
    return withHint(error, "`pulumi refresh` and `pulumi destroy` use the settings recorded by the last `pulumi up`, even one that " +
      "failed, not the current stack config: after fixing the setting, run them with `--run-program`, or run `pulumi up`.");
  }
  return error;
}

/** `operation`, its failures passed through `withAuthHint`: what both faces wrap each record operation in. */
export function adviseOnFailure<A extends unknown[], R>(operation: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args: A) => {
    try {
      return await operation(...args);
    } catch (error) {
      throw withAuthHint(error);
    }
  };
}
