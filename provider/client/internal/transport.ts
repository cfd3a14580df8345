/**
 * The transport: sends one operation, decides whether and when to try again, and turns every
 * failure into a typed error with the token redacted. The six operations (`client.ts`) call
 * `Transport.call` and know nothing of HTTP.
 *
 * Retry decisions, in one table:
 *
 * | Outcome                                  | Retried                          | Wait                                                                             | Counts against                             |
 * |------------------------------------------|----------------------------------|----------------------------------------------------------------------------------|--------------------------------------------|
 * | 429                                      | every method (not processed)     | Retry-After, else backoff; never under `minRateLimitDelayMs`; shared, then paced | `maxRateLimitRetries`, `rateLimitBudgetMs` |
 * | 503                                      | every method (not processed)     | Retry-After, else backoff                                                        | `maxRetries`                               |
 * | 500, 502, 504                            | GET, PATCH (same body, same end) | backoff                                                                          | `maxRetries`                               |
 * | connection refused, DNS, connect timeout | every method (nothing was sent)  | backoff                                                                          | `maxRetries`                               |
 * | reset / socket closed / our timeout      | GET, PATCH                       | backoff                                                                          | `maxRetries`                               |
 * | any other error                          | never: a usage error or unknown  | —                                                                                | —                                          |
 *
 * A Retry-After longer than `maxRetryAfterMs` fails the call at once, for 429 and 503 alike:
 * waiting less than the server asked would only be refused again. Any other 429 holds every call
 * of the client until its wait is over; then the waiting calls go out one at a time at the rate
 * that got through before it (`rate-limit-pacer.ts`), not all at once; with `sharedPacerUrl`, the
 * clients of several processes pause and pace together (`remote-pacer.ts`). A create or update whose
 * outcome is unknown (sent, then no answer or a 500/502/504) has `mayHaveSucceeded: true`.
 */
import { request, type Dispatcher } from "undici";
import type { z } from "zod";
import type { LogEvent, RequestOptions, ResolvedConfig, RetryPolicy } from "../config";
import { checkNumber } from "../config";
import { ErrorEnvelope, OPERATIONS, type HttpMethod, type OperationName } from "../../contract/schemas";
import {
  AbortError,
  ApiError,
  ClientUsageError,
  ConnectionError,
  GIVE_UP,
  ResponseTooLargeError,
  ResponseValidationError,
  TimeoutError,
  TokenRefusedError,
  type ApiErrorInit,
} from "../errors";
import { TokenGate } from "../token-gate";
import { backoffDelay, parseRetryAfter } from "./backoff";
import { RateLimitPacer, type Pacer, type PaceTicket } from "./rate-limit-pacer";
import { RemotePacer } from "./remote-pacer";
import { Redactor } from "./redact";
import { classifyTransportError } from "./transport-errors";
import { parseResponse } from "./validation";

export interface CallInput {
  pathParams?: Record<string, string>;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
}

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface TransportOptions {
  config: ResolvedConfig;
  dispatcher: Dispatcher;
  logger?: ((event: LogEvent) => void) | undefined;
  userAgent: string;
}

export class Transport {
  readonly #config: ResolvedConfig;
  readonly #dispatcher: Dispatcher;
  readonly #logger: ((event: LogEvent) => void) | undefined;
  readonly #userAgent: string;
  readonly #pacer: Pacer;
  readonly #redactor: Redactor;
  /** The token's key in `tokenGate` (its SHA-256 digest), when there is a gate. */
  readonly #tokenKey: string;

  constructor(options: TransportOptions) {
    this.#config = options.config;
    this.#dispatcher = options.dispatcher;
    this.#logger = options.logger;
    this.#userAgent = options.userAgent;
    this.#redactor = new Redactor(options.config.token);
    const { sharedPacer, clock } = options.config;
    this.#pacer = sharedPacer
      ? new RemotePacer({ ...sharedPacer, clock, warn: (message) => this.#log({ type: "warning", message }) })
      : new RateLimitPacer(clock);
    this.#tokenKey = options.config.tokenGate ? TokenGate.keyOf(options.config.token) : "";
  }

  /** Closes what the transport holds besides the client's dispatcher: the connections to a shared pacer. */
  async close(): Promise<void> {
    if (this.#pacer instanceof RemotePacer) await this.#pacer.close();
  }

  /** Replaces every form of the token (raw, JSON-escaped, URL-encoded) in text bound for an error or a log. */
  redact(text: string): string {
    return this.#redactor.redact(text);
  }

  /**
   * Sends `op` until the retry table says stop: each attempt is admitted (the shared 429 pause,
   * the caller's and the client's stop signals), sent, and decided upon (`#decide`: return, fail, or
   * try again after a wait); the waiting itself is `#wait`'s. With a `tokenGate`, the call first
   * waits for its token's verdict, and each answer gives one.
   */
  async call<T extends z.ZodType>(op: OperationName, input: CallInput, schema: T, options: RequestOptions = {}): Promise<z.infer<T>> {
    const request = this.#request(op, input);
    const call = this.#newCall(op, options);
    const gate = this.#config.tokenGate;
    const emptyBody = request.body === undefined || request.body === "{}";
    // With a gate, the token's first call goes alone and a refused token sends nothing (`token-gate.ts`).
    const first = gate !== undefined && (await this.#admitToken(call, gate));
    try {
      for (;;) {
        call.attempt += 1;
        const ticket = await this.#admit(call);
        this.#log({
          type: "request",
          operation: op,
          method: call.method,
          url: this.redact(request.url.href),
          attempt: call.attempt,
          emptyBody,
        });
        const started = this.#config.clock.now();
        const outcome = await this.#send(request.url, call.method, request.headers, request.body, call.timeoutMs, call.signal);
        const decision = this.#decide(call, outcome, ticket, started, schema);
        if (gate !== undefined && outcome.kind === "response") this.#judgeToken(gate, outcome.response.status, decision);
        if (decision.kind === "done") return decision.value;
        if (decision.kind === "fail") throw decision.error;
        await this.#wait(call, decision);
      }
    } finally {
      // Ended without an answer (unreachable, timed out, stopped): the calls waiting on this token go.
      if (first) gate.release(this.#tokenKey);
    }
  }

  /** Waits for the token's verdict (`token-gate.ts`); true when this call is the token's first. */
  async #admitToken(call: CallState, gate: TokenGate): Promise<boolean> {
    const stop = this.#config.stopSignal;
    const signals = [call.signal, stop].filter((s): s is AbortSignal => s !== undefined);
    try {
      return await gate.admit(this.#tokenKey, call.op, signals.length > 0 ? AbortSignal.any(signals) : undefined);
    } catch (err) {
      if (err instanceof TokenRefusedError) throw err;
      throw aborted(call, call.signal?.aborted ? call.signal.reason : err, call.signal?.aborted !== true && stop?.aborted === true);
    }
  }

  /** An answer is a verdict on the token: 401 or 403 refuses it for every later call, anything else lets them go. */
  #judgeToken(gate: TokenGate, status: number, decision: Decision<unknown>): void {
    if ((status === 401 || status === 403) && decision.kind === "fail" && decision.error instanceof ApiError) {
      gate.refuse(this.#tokenKey, decision.error);
    } else {
      gate.answered(this.#tokenKey);
    }
  }

  /** The URL, headers and body of `op`: the same for every attempt. */
  #request(op: OperationName, input: CallInput): { url: URL; headers: Record<string, string>; body: string | undefined } {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#config.token}`,
      "service-api-version": OPERATIONS[op].version,
      accept: "application/json",
      "user-agent": this.#userAgent,
    };
    const body = input.body === undefined ? undefined : JSON.stringify(input.body);
    if (body !== undefined) headers["content-type"] = "application/json";
    return { url: this.#url(op, input), headers, body };
  }

  /** A call's policy (the per-call options over the client's) and its counters, before the first attempt. */
  #newCall(op: OperationName, options: RequestOptions): CallState {
    const { method } = OPERATIONS[op];
    return {
      op,
      method,
      mutates: method !== "GET",
      retriable: method !== "POST",
      retry: { ...this.#config.retry, maxRetries: checkNumber("maxRetries", options.maxRetries ?? this.#config.retry.maxRetries) },
      timeoutMs: checkNumber("timeoutMs", options.timeoutMs ?? this.#config.timeoutMs),
      signal: options.signal,
      attempt: 0,
      retries: 0,
      rateLimited: 0,
      rateLimitWaited: 0,
      maybeApplied: false,
    };
  }

  /** Waits for the shared 429 pause to let this attempt go; refuses if the caller aborted or the client was stopped. */
  async #admit(call: CallState): Promise<PaceTicket> {
    let ticket: PaceTicket;
    try {
      ticket = await this.#pacer.acquire(call.signal);
    } catch (err) {
      throw aborted(call, err);
    }
    if (call.signal?.aborted) throw aborted(call, call.signal.reason);
    // Stopped (Pulumi's Cancel): nothing new goes out; what was sent before finishes.
    const stop = this.#config.stopSignal;
    if (stop?.aborted) throw aborted(call, stop.reason, true);
    return ticket;
  }

  /** The retry table (see the top of this file), applied to one attempt's outcome. */
  #decide<T extends z.ZodType>(
    call: CallState,
    outcome: SendOutcome,
    ticket: PaceTicket,
    started: number,
    schema: T,
  ): Decision<z.infer<T>> {
    switch (outcome.kind) {
      case "aborted":
        call.maybeApplied ||= outcome.sent;
        return fail(aborted(call, call.signal?.reason));
      case "failed":
        return this.#onConnectionFailure(call, outcome.error);
      case "timeout":
        call.maybeApplied = true;
        return retryOr(
          call,
          call.retriable,
          () => backoffDelay(call.retries, call.retry),
          "timeout",
          () => new TimeoutError(call.op, call.timeoutMs, { mayHaveSucceeded: call.mutates, method: call.method, attempts: call.attempt }),
        );
      case "too-large":
        return fail(
          new ResponseTooLargeError(call.op, outcome.status, this.#config.maxResponseBytes, {
            setting: this.#config.label("maxResponseBytes"),
            mayHaveSucceeded: call.mutates && (isSuccess(outcome.status) || call.maybeApplied || isAmbiguousStatus(outcome.status)),
            method: call.method,
          }),
        );
      case "response":
        return this.#onResponse(call, outcome.response, ticket, started, schema);
    }
  }

  /** No response: retried when nothing was sent, or when repeating the request is safe (not a POST). */
  #onConnectionFailure(call: CallState, error: unknown): Decision<never> {
    const failure = classifyTransportError(error);
    if (failure.kind === "usage") return fail(new ClientUsageError(call.op, failure.detail, { cause: error }));
    if (failure.kind === "maybe-sent") call.maybeApplied = true;
    const safe = failure.kind !== "unknown" && (failure.kind === "not-sent" || call.retriable);
    const reason = failure.kind === "not-sent" ? "connection refused" : "connection error";
    return retryOr(
      call,
      safe,
      () => backoffDelay(call.retries, call.retry),
      reason,
      () => {
        if (failure.kind === "unknown") call.maybeApplied = true;
        const attempts = call.attempt > 1 ? ` (${call.attempt} attempts)` : "";
        return new ConnectionError(call.op, `connection error: ${this.redact(failure.detail)}${attempts}`, {
          cause: error,
          mayHaveSucceeded: call.mutates && call.maybeApplied,
          method: call.method,
          unreachable: failure.kind === "not-sent",
        });
      },
    );
  }

  /** A response: a 2xx is the result; a 429 or 503 waits as the server asks; a 500/502/504 is retried when safe. */
  #onResponse<T extends z.ZodType>(
    call: CallState,
    res: RawResponse,
    ticket: PaceTicket,
    started: number,
    schema: T,
  ): Decision<z.infer<T>> {
    const clock = this.#config.clock;
    const requestId = header(res.headers, "x-request-id");
    const safeRequestId = requestId === undefined ? undefined : this.redact(requestId);
    this.#log({
      type: "response",
      operation: call.op,
      status: res.status,
      attempt: call.attempt,
      durationMs: Math.round(clock.now() - started),
      ...(safeRequestId ? { requestId: safeRequestId } : {}),
    });
    if (res.status !== 429) this.#pacer.passed(ticket);
    if (isSuccess(res.status)) return this.#parse(call, res, safeRequestId, schema);

    const retryAfterMs = parseRetryAfter(header(res.headers, "retry-after"), () => clock.date());
    const init = this.#errorInit(call.op, call.method, res, safeRequestId, retryAfterMs);
    const apiError = (extra?: string) => ApiError.from({ ...init, mayHaveSucceeded: call.mutates && call.maybeApplied }, extra);
    const { retry } = call;
    const label = this.#config.label;
    if (res.status === 429 || res.status === 503) {
      // Not processed: the request may be repeated, but never earlier than the server asked.
      if (retryAfterMs !== undefined && retryAfterMs > retry.maxRetryAfterMs)
        return fail(apiError(GIVE_UP.retryAfterTooLong(retryAfterMs, retry.maxRetryAfterMs, label("maxRetryAfterMs"))));
      if (res.status === 429) return this.#onRateLimited(call, ticket, retryAfterMs, apiError);
      if (call.retries < retry.maxRetries)
        return retryOr(call, true, () => retryAfterMs ?? backoffDelay(call.retries, retry), "503 unavailable", apiError);
    }
    if (isAmbiguousStatus(res.status)) {
      call.maybeApplied = true;
      if (call.retriable && call.retries < retry.maxRetries)
        return retryOr(call, true, () => backoffDelay(call.retries, retry), `${res.status} server error`, apiError);
    }
    const exhausted = call.attempt > 1 && res.status >= 500;
    return fail(apiError(exhausted ? GIVE_UP.attempts(call.attempt) : undefined));
  }

  /**
   * A 429: every call of this client holds off until the limit has passed, then goes at the learned
   * pace (the pacer's, so this call does not sleep itself); counted against its own budgets.
   */
  #onRateLimited(
    call: CallState,
    ticket: PaceTicket,
    retryAfterMs: number | undefined,
    apiError: (extra?: string) => ApiError,
  ): Decision<never> {
    const { retry } = call;
    const label = this.#config.label;
    call.rateLimited += 1;
    const delayMs = Math.max(retry.minRateLimitDelayMs, retryAfterMs ?? backoffDelay(Math.min(call.attempt - 1, 10), retry));
    this.#pacer.limited(ticket, delayMs, retryAfterMs);
    if (call.rateLimited > retry.maxRateLimitRetries)
      return fail(apiError(GIVE_UP.rateLimitRetries(call.rateLimited, retry.maxRateLimitRetries, label("maxRateLimitRetries"))));
    if (call.rateLimitWaited + delayMs > retry.rateLimitBudgetMs)
      return fail(apiError(GIVE_UP.rateLimitBudget(call.rateLimitWaited, delayMs, retry.rateLimitBudgetMs, label("rateLimitBudgetMs"))));
    call.rateLimitWaited += delayMs;
    return { kind: "paced", delayMs, reason: "429 rate limited" };
  }

  /** A 2xx body, read as the operation's schema says. */
  #parse<T extends z.ZodType>(call: CallState, res: RawResponse, requestId: string | undefined, schema: T): Decision<z.infer<T>> {
    let json: unknown;
    try {
      json = JSON.parse(res.text);
    } catch {
      return fail(
        new ResponseValidationError(call.op, res.status, [{ path: "", message: "body is not valid JSON" }], {
          method: call.method,
          requestId,
        }),
      );
    }
    return { kind: "done", value: parseResponse(call.op, res.status, schema, json, { method: call.method, requestId }) };
  }

  /** The wait a decision asked for, logged first: a backoff sleeps here; a 429's wait is the pacer's, at the next admission. */
  async #wait(call: CallState, decision: Extract<Decision<unknown>, { kind: "retry" | "paced" }>): Promise<void> {
    this.#log({ type: "retry", operation: call.op, attempt: call.attempt, delayMs: decision.delayMs, reason: decision.reason });
    if (decision.kind === "paced") return;
    try {
      await this.#config.clock.sleep(decision.delayMs, call.signal);
    } catch (err) {
      throw aborted(call, err);
    }
  }

  /** One attempt. Reads the body to the end (or destroys it) so the connection is never left half-used. */
  async #send(
    url: URL,
    method: HttpMethod,
    headers: Record<string, string>,
    body: string | undefined,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<SendOutcome> {
    const ended = new AbortController();
    const timeout = this.#config.clock.timeout?.(timeoutMs, ended.signal) ?? AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let sent = false;
    try {
      const res = await request(url, { method, headers, body, dispatcher: this.#dispatcher, signal: combined });
      sent = true;
      const max = this.#config.maxResponseBytes;
      const declared = Number(header(res.headers, "content-length"));
      if (declared > max) {
        discard(res.body);
        return { kind: "too-large", status: res.statusCode };
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > max) {
          discard(res.body);
          return { kind: "too-large", status: res.statusCode };
        }
        chunks.push(chunk);
      }
      return { kind: "response", response: { status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") } };
    } catch (err) {
      // Once undici has the request, a write may have reached the server even without a response.
      if (signal?.aborted) return { kind: "aborted", sent: sent || method !== "GET" };
      if (timeout.aborted) return { kind: "timeout" };
      return { kind: "failed", error: err };
    } finally {
      ended.abort();
    }
  }

  #url(op: OperationName, input: CallInput): URL {
    const spec = OPERATIONS[op];
    const base = spec.host === "public" ? this.#config.publicBaseUrl : this.#config.baseUrl;
    const path = spec.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(input.pathParams?.[name] ?? ""));
    const url = new URL(base.pathname.replace(/\/+$/, "") + path, base);
    for (const [key, value] of Object.entries(input.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url;
  }

  #errorInit(
    op: string,
    method: HttpMethod,
    res: RawResponse,
    requestId: string | undefined,
    retryAfterMs: number | undefined,
  ): ApiErrorInit {
    let envelope: ErrorEnvelope["error"] | undefined;
    try {
      const parsed = ErrorEnvelope.safeParse(JSON.parse(res.text));
      if (parsed.success) envelope = parsed.data.error;
    } catch {
      // Not JSON (a proxy's HTML page, say): reported from the raw text below.
    }
    if (envelope) {
      // `code` is a machine identifier and is never rewritten.
      envelope = { code: envelope.code, message: this.redact(envelope.message), doc_url: this.redact(envelope.doc_url) };
    }
    return { operation: op, method, status: res.status, envelope, bodyText: this.redact(res.text), requestId, retryAfterMs };
  }

  #log(event: LogEvent): void {
    this.#logger?.(event);
  }
}

/** One call across its attempts: its policy, and what the retry table's budgets have counted. */
interface CallState {
  readonly op: OperationName;
  readonly method: HttpMethod;
  /** Not a GET: an attempt that may have been processed may have changed something. */
  readonly mutates: boolean;
  /** Not a POST: the same request can be repeated after an outcome we cannot know. */
  readonly retriable: boolean;
  readonly retry: RetryPolicy;
  readonly timeoutMs: number;
  readonly signal: AbortSignal | undefined;
  attempt: number;
  /** Retries counted against `maxRetries` (backoffs, 503s); 429s count apart. */
  retries: number;
  rateLimited: number;
  rateLimitWaited: number;
  /** True once an attempt may have been processed: then a later failure cannot say "nothing happened". */
  maybeApplied: boolean;
}

/** What the retry table says after an attempt. */
type Decision<T> =
  | { kind: "done"; value: T }
  | { kind: "fail"; error: Error }
  /** Back off `delayMs`, then try again (counted against `maxRetries` already). */
  | { kind: "retry"; delayMs: number; reason: string }
  /** A 429: try again when the shared pause lets the call go. */
  | { kind: "paced"; delayMs: number; reason: string };

function fail(error: Error): Decision<never> {
  return { kind: "fail", error };
}

/**
 * Retry after `delay()` when `allowed` and `maxRetries` has room, counting this retry; else fail
 * with `error()`. The delay is taken before the count, so the first retry backs off `backoffDelay(0)`.
 */
function retryOr(call: CallState, allowed: boolean, delay: () => number, reason: string, error: () => Error): Decision<never> {
  if (!allowed || call.retries >= call.retry.maxRetries) return fail(error());
  const delayMs = delay();
  call.retries += 1;
  return { kind: "retry", delayMs, reason };
}

/** The call stopped by its caller's signal, or (`stopped`) by the client's stopSignal. */
function aborted(call: CallState, cause: unknown, stopped = false): AbortError {
  return new AbortError(call.op, {
    mayHaveSucceeded: call.mutates && call.maybeApplied,
    method: call.method,
    cause,
    ...(stopped && { stopped: true }),
  });
}

function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

type SendOutcome =
  | { kind: "response"; response: RawResponse }
  | { kind: "too-large"; status: number }
  | { kind: "timeout" }
  | { kind: "aborted"; sent: boolean }
  | { kind: "failed"; error: unknown };

/** Statuses after which the server may have processed the request (unsafe to repeat a POST). */
function isAmbiguousStatus(status: number): boolean {
  return status === 500 || status === 502 || status === 504;
}

/** Drops a body we will not read; the connection closes instead of carrying an unread response. */
function discard(body: NodeJS.ReadableStream & { destroy(): void }): void {
  body.on("error", () => {});
  body.destroy();
}

function header(headers: RawResponse["headers"], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
