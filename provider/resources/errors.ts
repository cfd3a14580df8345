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
import { AuthenticationError, ConfigError, ConnectionError, NotFoundError, OPERATIONS, PermissionDeniedError } from "../client";
import { ProviderContext } from "./context";

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
 * A record operation, for the advice: a read or a delete may run on the settings recorded at the
 * last `pulumi up` (a refresh, a destroy, the refresh step of `--refresh`: the provider is not told
 * which command runs); the others (create, update, import) run the program, on the stack config as it is now.
 */
export type OperationKind = "read" | "remove" | "other";

/**
 * Advice for a failure that comes from a setting — a token the service refuses, a service that
 * does not answer at its URL, a bad value — naming the setting as the user sets it, where the
 * value in use came from (the stack config, the environment, an explicit provider's argument) and
 * what to do about it there. A read or a delete whose setting is the stack config's says both
 * cases, recorded and current, as the provider cannot tell them apart. Applied to every record
 * operation (create, read, update, delete, import) by `withDefaults`, so both faces say it.
 * Without a context (a caller outside a provider process) it falls back to what holds for any command.
 */
function configurationAdvice(error: unknown, ctx: ProviderContext | undefined, kind: OperationKind): string | undefined {
  if (error instanceof AuthenticationError || error instanceof PermissionDeniedError) {
    const origin = ctx?.origin("token");
    // A refresh's or drift check's read of a product is an empty PATCH: a token that may only read is refused it.
    const readsByPatch = error instanceof PermissionDeniedError && error.operation === "products.update" && kind === "read";
    const refused =
      error instanceof AuthenticationError
        ? "The service refused the token"
        : readsByPatch
          ? "The token may not do this (a product is read with an empty PATCH, the API's only read of one, so the token must be allowed to update products)"
          : "The token may not do this";
    if (origin?.from === "env") return `${refused}: it is ${origin.name} in the environment \`pulumi\` runs in; set the right one there.`;
    if (origin?.from === "argument") return `${refused}: it is ${origin.name}; check what the program passes.`;
    if (origin === undefined) {
      return (
        `${refused}. If serviceapi:token changed since the last \`pulumi up\`: \`pulumi refresh\` and \`pulumi destroy\` still use the one ` +
        "recorded then; run them with `--run-program`."
      );
    }
    if (kind !== "other") {
      return (
        `${refused}: it is serviceapi:token, ${RECORDED_OR_CURRENT}. If it was rotated since that \`pulumi up\`, run the command with ` +
        "`--run-program`, or `pulumi up` first; otherwise set the right one with `pulumi config set --secret serviceapi:token <token>`."
      );
    }
    return (
      `${refused}: it is serviceapi:token in the stack config; set the right one with ` +
      "`pulumi config set --secret serviceapi:token <token>`, or remove it to use SERVICEAPI_TOKEN."
    );
  }
  if (error instanceof ConnectionError && error.unreachable) {
    const key = error.operation !== undefined && ctx !== undefined && usesPublicHost(error.operation, ctx) ? "publicBaseUrl" : "baseUrl";
    const origin = ctx?.origin(key);
    const url = ctx === undefined ? undefined : urlOf(ctx, key);
    const at = url === undefined ? "Nothing answered" : `Nothing answered at ${url}`;
    if (origin?.from === "env") return `${at}, ${origin.name} in the environment: check the URL, and that the service runs there.`;
    if (origin?.from === "argument") return `${at}, ${origin.name}: check the URL the program passes, and that the service runs there.`;
    if (origin === undefined) {
      return (
        `${at}. If serviceapi:baseUrl or serviceapi:publicBaseUrl changed (or was removed) since the last \`pulumi up\`: \`pulumi refresh\` ` +
        "and `pulumi destroy` still use the values recorded then; run them with `--run-program`, or run `pulumi up` first."
      );
    }
    if (kind !== "other") {
      return (
        `${at}, ${origin.name}, ${RECORDED_OR_CURRENT}. If the service moved, run the command with \`--run-program\`, or \`pulumi up\` first; ` +
        "otherwise check that it runs there."
      );
    }
    return `${at}, ${origin.name} in the stack config: check the URL, and that the service runs there.`;
  }
  if (error instanceof ConfigError) {
    if (kind === "other") return undefined;
    return (
      "`pulumi refresh` and `pulumi destroy` use the settings recorded by the last `pulumi up`, even one that " +
      "failed, not the current stack config: after fixing the setting, run them with `--run-program`, or run `pulumi up`."
    );
  }
  return undefined;
}

/**
 * Which value a read or a delete ran on, when it is the stack config's: the engine hands the
 * provider one or the other and says nothing of which, so the advice names both.
 */
const RECORDED_OR_CURRENT =
  "as recorded at the last `pulumi up` for `pulumi refresh`, `pulumi destroy` and the refresh step of `--refresh` " +
  "(unless run with `--run-program`), else as the stack config sets it now";

/** The operation goes to the public host, and `publicBaseUrl` sets one of its own. */
function usesPublicHost(operation: string, ctx: ProviderContext): boolean {
  const spec = (OPERATIONS as Record<string, { host: string } | undefined>)[operation];
  if (spec?.host !== "public") return false;
  try {
    return ctx.settings().client.publicBaseUrl !== undefined;
  } catch {
    return false;
  }
}

/** The origin of the URL `key` names (host only, as messages name it). */
function urlOf(ctx: ProviderContext, key: "baseUrl" | "publicBaseUrl"): string | undefined {
  try {
    const url = ctx.settings().client[key];
    return url === undefined ? undefined : new URL(url).origin;
  } catch {
    return undefined;
  }
}

/**
 * `operation` (whose first argument is the process's context), with the configuration advice added
 * to its failures (once: advice is never advised again).
 */
export function adviseOnFailure<A extends unknown[], R>(
  kind: OperationKind,
  operation: (...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  return async (...args: A) => {
    try {
      return await operation(...args);
    } catch (error) {
      const ctx = args[0] instanceof ProviderContext ? args[0] : undefined;
      const advice = isAdvised(error) ? undefined : configurationAdvice(error, ctx, kind);
      throw advice === undefined ? error : withAdvice(error, advice);
    }
  };
}
