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
 * that got through before it (`rate-limit-pacer.ts`), not all at once. A create or update whose
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
  type ApiErrorInit,
} from "../errors";
import { backoffDelay, parseRetryAfter } from "./backoff";
import { RateLimitPacer, type PaceTicket } from "./rate-limit-pacer";
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
  readonly #pacer: RateLimitPacer;
  readonly #redactor: Redactor;

  constructor(options: TransportOptions) {
    this.#config = options.config;
    this.#dispatcher = options.dispatcher;
    this.#logger = options.logger;
    this.#userAgent = options.userAgent;
    this.#redactor = new Redactor(options.config.token);
    this.#pacer = new RateLimitPacer(options.config.clock);
  }

  /** Replaces every form of the token (raw, JSON-escaped, URL-encoded) in text bound for an error or a log. */
  redact(text: string): string {
    return this.#redactor.redact(text);
  }

  async call<T extends z.ZodType>(op: OperationName, input: CallInput, schema: T, options: RequestOptions = {}): Promise<z.infer<T>> {
    const { method } = OPERATIONS[op];
    const url = this.#url(op, input);
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#config.token}`,
      "service-api-version": OPERATIONS[op].version,
      accept: "application/json",
      "user-agent": this.#userAgent,
    };
    const body = input.body === undefined ? undefined : JSON.stringify(input.body);
    if (body !== undefined) headers["content-type"] = "application/json";
    const retry: RetryPolicy = {
      ...this.#config.retry,
      maxRetries: checkNumber("maxRetries", options.maxRetries ?? this.#config.retry.maxRetries),
    };
    const timeoutMs = checkNumber("timeoutMs", options.timeoutMs ?? this.#config.timeoutMs);
    const mutates = method !== "GET";
    const retriable = method !== "POST";
    const signal = options.signal;
    // True once an attempt may have been processed: then a later failure cannot say "nothing happened".
    let maybeApplied = false;
    let retries = 0;
    let rateLimited = 0;
    let rateLimitWaited = 0;
    const aborted = (cause?: unknown) => new AbortError(op, { mayHaveSucceeded: mutates && maybeApplied, method, cause });

    for (let attempt = 1; ; attempt++) {
      let ticket: PaceTicket;
      try {
        ticket = await this.#pacer.acquire(signal);
      } catch (err) {
        throw aborted(err);
      }
      if (signal?.aborted) throw aborted(signal.reason);
      // Stopped (Pulumi's Cancel): nothing new goes out; what was sent before finishes.
      const stop = this.#config.stopSignal;
      if (stop?.aborted) throw new AbortError(op, { mayHaveSucceeded: mutates && maybeApplied, method, cause: stop.reason, stopped: true });
      this.#log({ type: "request", operation: op, method, url: this.redact(url.href), attempt });
      const clock = this.#config.clock;
      const started = clock.now();
      const outcome = await this.#send(url, method, headers, body, timeoutMs, signal);

      if (outcome.kind === "aborted") {
        maybeApplied ||= outcome.sent;
        throw aborted(signal?.reason);
      }
      if (outcome.kind === "failed") {
        const failure = classifyTransportError(outcome.error);
        if (failure.kind === "usage") throw new ClientUsageError(op, failure.detail, { cause: outcome.error });
        if (failure.kind === "maybe-sent") maybeApplied = true;
        const safe = failure.kind === "not-sent" || retriable;
        if (failure.kind !== "unknown" && safe && retries < retry.maxRetries) {
          retries += 1;
          await this.#backoff(
            op,
            attempt,
            backoffDelay(retries - 1, retry),
            failure.kind === "not-sent" ? "connection refused" : "connection error",
            signal,
            aborted,
          );
          continue;
        }
        if (failure.kind === "unknown") maybeApplied = true;
        throw new ConnectionError(op, `connection error: ${this.redact(failure.detail)}${attempt > 1 ? ` (${attempt} attempts)` : ""}`, {
          cause: outcome.error,
          mayHaveSucceeded: mutates && maybeApplied,
          method,
          unreachable: failure.kind === "not-sent",
        });
      }
      if (outcome.kind === "timeout") {
        maybeApplied = true;
        if (retriable && retries < retry.maxRetries) {
          retries += 1;
          await this.#backoff(op, attempt, backoffDelay(retries - 1, retry), "timeout", signal, aborted);
          continue;
        }
        throw new TimeoutError(op, timeoutMs, { mayHaveSucceeded: mutates, method, attempts: attempt });
      }
      if (outcome.kind === "too-large") {
        const ok = outcome.status >= 200 && outcome.status < 300;
        throw new ResponseTooLargeError(op, outcome.status, this.#config.maxResponseBytes, {
          setting: this.#config.label("maxResponseBytes"),
          mayHaveSucceeded: mutates && (ok || maybeApplied || isAmbiguousStatus(outcome.status)),
          method,
        });
      }

      const res = outcome.response;
      const requestId = header(res.headers, "x-request-id");
      const safeRequestId = requestId === undefined ? undefined : this.redact(requestId);
      this.#log({
        type: "response",
        operation: op,
        status: res.status,
        attempt,
        durationMs: Math.round(clock.now() - started),
        ...(safeRequestId ? { requestId: safeRequestId } : {}),
      });
      if (res.status !== 429) this.#pacer.passed(ticket);

      if (res.status >= 200 && res.status < 300) {
        let json: unknown;
        try {
          json = JSON.parse(res.text);
        } catch {
          throw new ResponseValidationError(op, res.status, [{ path: "", message: "body is not valid JSON" }], {
            method,
            requestId: safeRequestId,
          });
        }
        return parseResponse(op, res.status, schema, json, { method, requestId: safeRequestId });
      }

      const retryAfterMs = parseRetryAfter(header(res.headers, "retry-after"), () => clock.date());
      const init = this.#errorInit(op, method, res, safeRequestId, retryAfterMs);
      if (res.status === 429 || res.status === 503) {
        // Not processed: the request may be repeated, but never earlier than the server asked.
        const label = this.#config.label;
        if (retryAfterMs !== undefined && retryAfterMs > retry.maxRetryAfterMs) {
          throw ApiError.from(
            { ...init, mayHaveSucceeded: mutates && maybeApplied },
            GIVE_UP.retryAfterTooLong(retryAfterMs, retry.maxRetryAfterMs, label("maxRetryAfterMs")),
          );
        }
        if (res.status === 429) {
          rateLimited += 1;
          const delay = Math.max(retry.minRateLimitDelayMs, retryAfterMs ?? backoffDelay(Math.min(attempt - 1, 10), retry));
          // Shared: every call of this client holds off until the limit has passed, then goes at the learned pace.
          this.#pacer.limited(ticket, delay, retryAfterMs);
          const fail = (extra: string) => ApiError.from({ ...init, mayHaveSucceeded: mutates && maybeApplied }, extra);
          if (rateLimited > retry.maxRateLimitRetries) {
            throw fail(GIVE_UP.rateLimitRetries(rateLimited, retry.maxRateLimitRetries, label("maxRateLimitRetries")));
          }
          if (rateLimitWaited + delay > retry.rateLimitBudgetMs) {
            throw fail(GIVE_UP.rateLimitBudget(rateLimitWaited, delay, retry.rateLimitBudgetMs, label("rateLimitBudgetMs")));
          }
          rateLimitWaited += delay;
          this.#log({ type: "retry", operation: op, attempt, delayMs: delay, reason: "429 rate limited" });
          continue;
        }
        if (retries < retry.maxRetries) {
          retries += 1;
          await this.#backoff(op, attempt, retryAfterMs ?? backoffDelay(retries - 1, retry), "503 unavailable", signal, aborted);
          continue;
        }
      }
      if (isAmbiguousStatus(res.status)) {
        maybeApplied = true;
        if (retriable && retries < retry.maxRetries) {
          retries += 1;
          await this.#backoff(op, attempt, backoffDelay(retries - 1, retry), `${res.status} server error`, signal, aborted);
          continue;
        }
      }
      const exhausted = attempt > 1 && res.status >= 500;
      throw ApiError.from({ ...init, mayHaveSucceeded: mutates && maybeApplied }, exhausted ? GIVE_UP.attempts(attempt) : undefined);
    }
  }

  async #backoff(
    op: string,
    attempt: number,
    delayMs: number,
    reason: string,
    signal: AbortSignal | undefined,
    aborted: (cause: unknown) => Error,
  ): Promise<void> {
    this.#log({ type: "retry", operation: op, attempt, delayMs, reason });
    try {
      await this.#config.clock.sleep(delayMs, signal);
    } catch (err) {
      throw aborted(err);
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
    const timeout = AbortSignal.timeout(timeoutMs);
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
