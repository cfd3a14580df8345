/** The simulator's request log: what reached it, for tests, the demo and `GET /_simulator/requests`. */
import type { FastifyRequest } from "fastify";
import type { OperationName } from "../provider/contract/schemas";
import type { SimulatorClock } from "./clock";
import { NotUtf8Body } from "./request-body";

export interface LoggedRequest {
  id: number;
  time: string;
  operation: OperationName | null;
  method: string;
  /** Path with query string. */
  path: string;
  /** Request headers; `authorization` is replaced by `Bearer [REDACTED]`. */
  headers: Record<string, string | string[] | undefined>;
  /**
   * Parsed JSON body; the raw text (cut at 16 KiB) if it was not JSON, larger than 16 KiB or
   * nested too deeply to show again; null without a body.
   */
  body: unknown;
  /** True when `body` is the first 16 KiB of a larger body. */
  bodyTruncated?: boolean;
  /** Client port of the TCP connection, to see keep-alive reuse. */
  remotePort: number | undefined;
  /** Response status; `reset` when a fault dropped the connection; `dropped` for a request a `hang` fault held until its client left. */
  status: number | "reset" | "dropped" | null;
}

/** Bodies kept in the log are cut here, so the log cannot grow without bound. */
const LOGGED_BODY_LIMIT = 16 * 1024;

/** The newest `limit` requests, oldest first. */
export class RequestLog {
  readonly #limit: number;
  readonly #clock: SimulatorClock;
  #entries: LoggedRequest[] = [];
  #nextId = 1;

  constructor(limit: number, clock: SimulatorClock) {
    this.#limit = limit;
    this.#clock = clock;
  }

  /** Logs an API request as it arrives; its status is filled in when it is answered. */
  add(operation: OperationName, request: FastifyRequest): LoggedRequest {
    const headers = { ...request.headers };
    if (headers.authorization !== undefined) headers.authorization = "Bearer [REDACTED]";
    const entry: LoggedRequest = {
      id: this.#nextId++,
      time: new Date(this.#clock.date()).toISOString(),
      operation,
      method: request.method,
      path: request.url,
      headers,
      ...loggedBody(request.body),
      remotePort: request.socket.remotePort,
      status: null,
    };
    this.#entries.push(entry);
    if (this.#entries.length > this.#limit) this.#entries.shift();
    return entry;
  }

  list(operation?: string): LoggedRequest[] {
    return this.#entries.filter((r) => operation === undefined || r.operation === operation);
  }

  clear(): void {
    this.#entries = [];
  }
}

/** The body as the log keeps it: small, and always serializable again. */
function loggedBody(body: unknown): { body: unknown; bodyTruncated?: boolean } {
  const raw = body instanceof NotUtf8Body ? body.text : body;
  if (typeof raw !== "string" || raw.length === 0) return { body: null };
  if (raw.length > LOGGED_BODY_LIMIT) return { body: raw.slice(0, LOGGED_BODY_LIMIT), bodyTruncated: true };
  try {
    const parsed: unknown = JSON.parse(raw);
    JSON.stringify(parsed);
    return { body: depth(parsed) > 64 ? raw : parsed };
  } catch {
    return { body: raw };
  }
}

function depth(value: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    max = Math.max(max, d);
    if (max > 64) return max;
    for (const child of Object.values(v)) stack.push([child, d + 1]);
  }
  return max;
}
