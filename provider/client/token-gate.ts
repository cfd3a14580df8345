/**
 * A refused token costs one request, not one per call. Clients given the same `TokenGate`
 * (`ClientOptions.tokenGate`) share one verdict per token: the first request made with a token goes
 * out alone, the others wait for its answer; a 401 or 403 closes the token for good — every later
 * call fails at once with `TokenRefusedError` and sends nothing — and any other answer lets the
 * waiting calls go together. A 401 or 403 later on (a token revoked while in use) closes it too.
 *
 * Why: against a production API, N failed authenticated requests in a burst are what security
 * alerting looks for, and each is one more copy of the same error for the user to read. The Pulumi
 * provider gives each provider process one gate, so a wrong token costs one request per command.
 *
 * Tokens are kept only as SHA-256 digests: the gate holds no token text.
 */
import { createHash } from "node:crypto";
import { TokenRefusedError, type ApiError } from "./errors";

type State =
  /** The first request with the token is out; the others wait for `answered`. */
  | { kind: "trying"; answered: Promise<void>; release: () => void }
  /** Answered with anything but 401/403 (or not answered at all): calls go as they come. */
  | { kind: "open" }
  /** Answered 401 or 403: nothing more is sent with it. */
  | { kind: "refused"; refusal: ApiError };

export class TokenGate {
  readonly #tokens = new Map<string, State>();
  #notSent = 0;

  /** The key a token is kept under: its SHA-256 digest. */
  static keyOf(token: string): string {
    return createHash("sha256").update(token).digest("hex");
  }

  /** Calls that failed without a request because their token had been refused. */
  get notSent(): number {
    return this.#notSent;
  }

  /** The first refusal of a token, if the service refused it. */
  refusal(key: string): ApiError | undefined {
    const state = this.#tokens.get(key);
    return state?.kind === "refused" ? state.refusal : undefined;
  }

  /**
   * Waits until a call of `operation` may send with the token `key`. Returns true when this call is
   * the token's first (it must then `answered` or `refuse`, and `release` when it ends); throws
   * `TokenRefusedError` when the token was refused; rejects with `signal`'s reason if it fires while waiting.
   */
  async admit(key: string, operation: string, signal?: AbortSignal): Promise<boolean> {
    for (;;) {
      const state = this.#tokens.get(key);
      if (state === undefined) {
        let release!: () => void;
        const answered = new Promise<void>((resolve) => (release = resolve));
        this.#tokens.set(key, { kind: "trying", answered, release });
        return true;
      }
      if (state.kind === "open") return false;
      if (state.kind === "refused") {
        this.#notSent += 1;
        throw new TokenRefusedError(operation, state.refusal);
      }
      await untilOrAborted(state.answered, signal);
    }
  }

  /** The service answered a request with `key` with something other than 401/403: the token is not refused. */
  answered(key: string): void {
    const state = this.#tokens.get(key);
    if (state?.kind === "refused") return;
    this.#tokens.set(key, { kind: "open" });
    if (state?.kind === "trying") state.release();
  }

  /** The service answered 401 or 403: nothing more is sent with `key`. The first refusal is kept. */
  refuse(key: string, refusal: ApiError): void {
    const state = this.#tokens.get(key);
    if (state?.kind === "refused") return;
    this.#tokens.set(key, { kind: "refused", refusal });
    if (state?.kind === "trying") state.release();
  }

  /**
   * The token's first call ended without an answer (the service could not be reached, a timeout, a
   * cancel): the waiting calls go together rather than one by one, as no verdict on the token came.
   */
  release(key: string): void {
    const state = this.#tokens.get(key);
    if (state?.kind === "trying") this.answered(key);
  }
}

async function untilOrAborted(promise: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return promise;
  if (signal.aborted) throw signal.reason;
  let onAbort!: () => void;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason as Error);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    await Promise.race([promise, aborted]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}
