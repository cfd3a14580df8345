/**
 * Errors the providers raise, and advice added to the client's errors. Advice wraps: the client's
 * error stays whole as the `cause` (its class, `code`, `mayHaveSucceeded`), and the message a user
 * reads is its message followed by the advice.
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
  constructor(
    readonly id: string,
    readonly outputs: object,
    message: string,
  ) {
    super(message);
    this.name = "PartialFailure";
  }
}

/** An error with advice: `cause` is the error itself, untouched. */
export class AdvisedError extends Error {
  constructor(
    override readonly cause: Error,
    readonly advice: string,
  ) {
    super(`${cause.message} ${advice}`, { cause });
    this.name = cause.name;
  }
}

/** `error` with `advice` after its message (a non-Error is left as it is). */
export function withAdvice(error: unknown, advice: string): unknown {
  return error instanceof Error ? new AdvisedError(error, advice) : error;
}

/**
 * `pulumi refresh` and `pulumi destroy` run with the provider configuration recorded at the last
 * `pulumi up` (even one that failed), not the current stack config: after a token rotation or a
 * moved service, a 401, an unreachable service or a bad setting there usually means exactly that,
 * so the message says how to run them with the current one. Both faces apply it to every record
 * operation (create, read, update, delete).
 */
function configurationAdvice(error: unknown): string | undefined {
  if (error instanceof AuthenticationError) {
    return (
      "If serviceapi:token (or serviceapi:baseUrl) changed since the last `pulumi up`: `pulumi refresh` and " +
      "`pulumi destroy` still use the values recorded then; run them with `--run-program`, or keep the token only in SERVICEAPI_TOKEN."
    );
  }
  if (error instanceof ConnectionError && error.unreachable) {
    return (
      "If serviceapi:baseUrl or serviceapi:publicBaseUrl changed (or was removed) since the last `pulumi up`: `pulumi refresh` " +
      "and `pulumi destroy` still use the values recorded then; run them with `--run-program`, or run `pulumi up` first."
    );
  }
  if (error instanceof ConfigError) {
    return (
      "`pulumi refresh` and `pulumi destroy` use the settings recorded by the last `pulumi up`, even one that " +
      "failed, not the current stack config: after fixing the setting, run them with `--run-program`, or run `pulumi up`."
    );
  }
  return undefined;
}

/** `operation`, with the configuration advice added to its failures (once: advice is never advised again). */
export function adviseOnFailure<A extends unknown[], R>(operation: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args: A) => {
    try {
      return await operation(...args);
    } catch (error) {
      const advice = error instanceof AdvisedError ? undefined : configurationAdvice(error);
      throw advice === undefined ? error : withAdvice(error, advice);
    }
  };
}
