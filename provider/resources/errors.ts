/**
 * The provider's error model, in one place. What fails an operation is one of four kinds, and each
 * face turns each into what its server expects:
 *
 * | Kind | Class | Means | The user reads |
 * |---|---|---|---|
 * | the client's | `ServiceApiError` and subclasses (`../client`) | the service or the network said no | the client's message (its class, `code`, `status`, `mayHaveSucceeded` stay on the error) |
 * | a refusal | `UserError` | something the user changes: an input, the program, the stack | one line naming the field or setting, the problem, what to do |
 * | a partial failure | `PartialFailure` | the record exists, a later step failed | the message; the engine records `id` and `outputs` |
 * | a bug | `ProviderError` (and `TypeError`, `RangeError`, …) | this package is wrong | the message and "please report"; the dynamic face keeps its stack trace |
 *
 * Advice (`withAdvice`) adds a sentence to any of them without changing what it is: the advised
 * error is of the same class, with the same `code`, `status` and `mayHaveSucceeded`, and the
 * original as its `cause`.
 */
import { bugs } from "../../package.json";
import { AuthenticationError, ConfigError, ConnectionError, NotFoundError } from "../client";

/** A refusal: the message says what the user changes (an input, the program, the stack) and how. */
export class UserError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A state this package should never reach: a bug, reported as one, with where to report it. */
export class ProviderError extends Error {
  constructor(what: string, options?: ErrorOptions) {
    super(`${what} This is a bug in pulumi-serviceapi; please report it, with this message, at ${bugs.url}.`, options);
    this.name = "ProviderError";
  }
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

/** An error our code did not mean to raise: its stack trace is worth printing. */
export function isBug(error: unknown): boolean {
  return (
    error instanceof ProviderError ||
    error instanceof TypeError ||
    error instanceof RangeError ||
    error instanceof ReferenceError ||
    error instanceof SyntaxError
  );
}

/** A 404 from the API: the record is gone (or the token can no longer see it). */
export function isNotFound(error: unknown): error is NotFoundError {
  return error instanceof NotFoundError;
}

/** An error with advice: of its cause's class, with its cause's fields; `cause` is the error as it was thrown. */
export type AdvisedError<E extends Error = Error> = E & { readonly advice: string; readonly cause: E };

export function isAdvised(error: unknown): error is AdvisedError {
  return error instanceof Error && Object.prototype.hasOwnProperty.call(error, "advice");
}

/**
 * `error` with `advice` after its message. The copy keeps the class (`instanceof NotFoundError`,
 * `instanceof PartialFailure` still hold) and every field the error carries (`code`, `status`,
 * `mayHaveSucceeded`, a partial failure's `id`), so a face or a caller branches on it as on the
 * original. A non-Error is left as it is.
 */
export function withAdvice<E>(error: E, advice: string): E | AdvisedError {
  if (!(error instanceof Error)) return error;
  const advised = Object.assign(Object.create(Object.getPrototypeOf(error) as object) as Error, error);
  const message = `${error.message} ${advice}`;
  const hidden = (value: unknown) => ({ value, writable: true, configurable: true, enumerable: false });
  Object.defineProperties(advised, {
    message: hidden(message),
    stack: hidden(error.stack?.replace(error.message, message)),
    cause: hidden(error),
    advice: hidden(advice),
  });
  return advised as unknown as AdvisedError;
}

/**
 * `pulumi refresh` and `pulumi destroy` run with the provider configuration recorded at the last
 * `pulumi up` (even one that failed), not the current stack config: after a token rotation or a
 * moved service, a 401, an unreachable service or a bad setting there usually means exactly that,
 * so the message says how to run them with the current one. Applied to every record operation
 * (create, read, update, delete, import) by `withDefaults`, so both faces say it.
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
      const advice = isAdvised(error) ? undefined : configurationAdvice(error);
      throw advice === undefined ? error : withAdvice(error, advice);
    }
  };
}
