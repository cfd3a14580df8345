/**
 * HTTP layer: routes the six operations at their documented paths, applies (in this order)
 * scripted faults, bearer auth, the rate limit, the version header and JSON parsing, and answers
 * every failure with the error envelope.
 */
import { randomUUID } from "node:crypto";
import type { Socket } from "node:net";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { OPERATIONS, type OperationName } from "../provider/contract/schemas";
import { HANDLERS } from "./api";
import { registerControlRoutes } from "./control";
import { HttpError, codeForStatus } from "./errors";
import type { Fault } from "./faults";
import { BODY_LIMIT, NotUtf8Body, readBody, tooLarge } from "./request-body";
import type { LoggedRequest } from "./request-log";
import type { SimulatorState } from "./state";

declare module "fastify" {
  interface FastifyContextConfig {
    operation?: OperationName;
  }
  interface FastifyRequest {
    simEntry: LoggedRequest | null;
    simWorkspaces: Set<string> | null;
  }
}

export function buildServer(state: SimulatorState): FastifyInstance {
  const app = Fastify({
    logger: false,
    bodyLimit: BODY_LIMIT,
    genReqId: () => randomUUID(),
    // Long path ids reach the handler, which answers 400 "must be a UUID" like any other bad id;
    // longer ones and undecodable ones are answered the same way by `frameworkErrors`.
    routerOptions: { maxParamLength: 8192 },
    frameworkErrors: (_err, request, reply) => {
      reply.header("x-request-id", request.id);
      return sendError(state, reply, new HttpError("invalid_request", pathProblem(request.method, request.url)));
    },
    // A body or headers that never finish must not hold a connection for minutes.
    requestTimeout: state.requestTimeoutMs,
    connectionTimeout: state.requestTimeoutMs,
    // Malformed requests that never reach a route (bad header bytes, headers over the limit) still
    // get the error envelope, with a status from the spec's set.
    clientErrorHandler: (err, socket) => answerClientError(state, err, socket),
  });
  app.server.headersTimeout = state.requestTimeoutMs;
  app.addHook("onRequest", async (request, reply) => {
    reply.header("x-request-id", request.id);
  });
  app.decorateRequest("simEntry", null);
  app.decorateRequest("simWorkspaces", null);

  // Bodies are kept as text and parsed after auth and version checks, so those answer first.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", (request, payload, done) => readBody(payload, Number(request.headers["content-length"] ?? 0), done));

  app.setErrorHandler((err: Error & { statusCode?: number }, _request, reply) => {
    if (err instanceof HttpError) return sendError(state, reply, err);
    const status = err.statusCode ?? 500;
    if (status === 413) return sendError(state, reply, tooLarge());
    if (status >= 400 && status < 500) return sendError(state, reply, new HttpError("invalid_request", err.message));
    return sendError(state, reply, new HttpError("internal_error", "internal error"));
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(state, reply, new HttpError("not_found", `no endpoint ${request.method} ${request.url.split("?")[0]}`)),
  );

  app.addHook("onResponse", async (request, reply) => {
    if (request.simEntry && request.simEntry.status === null) request.simEntry.status = reply.statusCode;
  });

  for (const [name, spec] of Object.entries(OPERATIONS) as [OperationName, (typeof OPERATIONS)[OperationName]][]) {
    app.route({
      method: spec.method,
      url: spec.path.replace(/\{(\w+)\}/g, ":$1"),
      config: { operation: name },
      preHandler: async (request, reply) => guard(state, name, request, reply),
      handler: async (request, reply) => {
        const result = HANDLERS[name]({
          store: state.store,
          workspaces: request.simWorkspaces ?? new Set(),
          params: request.params as Record<string, string>,
          query: request.query as Record<string, unknown>,
          body: request.body,
          defaultPageSize: state.defaultPageSize,
          now: new Date(state.clock.date()),
        });
        // An "after" fault: the write above is committed, but the caller never learns it.
        const fault = state.faults.take(name, "after");
        if (fault) return applyFault(state, request, reply, fault);
        return reply.status(result.status).send(result.body);
      },
    });
  }

  registerControlRoutes(app, state);
  return app;
}

async function guard(state: SimulatorState, op: OperationName, request: FastifyRequest, reply: FastifyReply) {
  const entry = state.requestLog.add(op, request);
  request.simEntry = entry;
  const fault = state.faults.take(op, "before");
  if (fault) {
    const handled = await applyFault(state, request, reply, fault);
    if (handled) return handled;
  }

  const auth = request.headers.authorization;
  const match = typeof auth === "string" ? /^Bearer (\S+)$/i.exec(auth) : null;
  if (!match) throw new HttpError("unauthorized", "missing bearer token: send Authorization: Bearer <token>");
  const token = match[1]!;
  const workspaces = state.workspacesOf(token);
  if (!workspaces) throw new HttpError("unauthorized", "invalid public API token");
  request.simWorkspaces = workspaces;
  if (OPERATIONS[op].method !== "GET" && state.readOnly(token))
    throw new HttpError("forbidden", `this token may only read: ${op} (${OPERATIONS[op].method}) needs a token that may write`);

  const wait = state.rateLimiter.hit(token);
  if (wait !== undefined) {
    throw new HttpError("rate_limited", `rate limit exceeded; retry after ${wait} s`, { "retry-after": String(wait) });
  }

  const expected = OPERATIONS[op].version;
  const version = request.headers["service-api-version"];
  if (version === undefined) {
    throw new HttpError("missing_api_version", `Service-Api-Version header is required; ${op} accepts ${expected}`);
  }
  if (version !== expected) {
    throw new HttpError(
      "unsupported_api_version",
      `Service-Api-Version ${JSON.stringify(version)} is not supported by ${op}; it accepts ${expected}`,
    );
  }

  const raw = request.body;
  if ((typeof raw === "string" && raw.length > 0) || raw instanceof NotUtf8Body) {
    const type = request.headers["content-type"] ?? "";
    if (!/^application\/json\s*(;.*)?$/i.test(type)) {
      throw new HttpError("invalid_request", "Content-Type must be application/json (optionally with a charset)");
    }
    const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(type)?.[1];
    if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
      throw new HttpError("invalid_request", "Content-Type charset must be utf-8: a JSON body is UTF-8 (RFC 8259)");
    }
    if (raw instanceof NotUtf8Body) throw new HttpError("invalid_request", "body is not valid UTF-8: a JSON body must be UTF-8 (RFC 8259)");
    try {
      request.body = JSON.parse(raw);
    } catch {
      throw new HttpError("invalid_request", "body is not valid JSON");
    }
  } else {
    request.body = undefined;
  }
  if (!entry.bodyTruncated && typeof entry.body !== "string") entry.body = request.body ?? null;
  return undefined;
}

/** Returns the reply when the fault answered the request, or undefined to carry on (after a delay). */
async function applyFault(
  state: SimulatorState,
  request: FastifyRequest,
  reply: FastifyReply,
  fault: Fault,
): Promise<FastifyReply | undefined> {
  if (fault.kind === "delay") {
    const ms = fault.delayMs ?? 0;
    await (state.clock.sleep ? state.clock.sleep(ms) : new Promise((resolve) => setTimeout(resolve, ms)));
    return undefined;
  }
  if (fault.kind === "hang") {
    // Never processed: held until the client leaves (or the connection times out), so a test knows
    // exactly which requests reached the service.
    const socket = request.raw.socket;
    if (!socket.destroyed) await new Promise((resolve) => socket.once("close", resolve));
    if (request.simEntry) request.simEntry.status = "dropped";
    reply.hijack();
    return reply;
  }
  if (fault.kind === "reset") {
    if (request.simEntry) request.simEntry.status = "reset";
    reply.hijack();
    request.raw.socket.resetAndDestroy();
    return reply;
  }
  const status = fault.status!;
  const code = codeForStatus(status);
  const headers: Record<string, string> =
    fault.retryAfter === undefined || fault.retryAfter === null ? {} : { "retry-after": fault.retryAfter };
  return sendError(state, reply, new HttpError(code, `simulated ${status} (fault ${fault.id})`, headers), status);
}

function sendError(state: SimulatorState, reply: FastifyReply, err: HttpError, status: number = err.status): FastifyReply {
  return reply.status(status).headers(err.headers).send(err.toEnvelope(state.publicUrl));
}

/** Why the router could not take a path: the id of the operation it is meant for, named as its handler names it. */
function pathProblem(method: string, url: string): string {
  const path = url.split("?")[0]!;
  for (const spec of Object.values(OPERATIONS)) {
    const param = /\{(\w+)\}/.exec(spec.path)?.[1];
    if (param === undefined || spec.method !== method) continue;
    const prefix = spec.path.slice(0, spec.path.indexOf("{"));
    if (path.startsWith(prefix) && !path.slice(prefix.length).includes("/")) return `${param} must be a UUID (8-4-4-4-12 hex digits)`;
  }
  return "the request path is malformed (bad percent-encoding, or a segment over 8192 characters)";
}

function answerClientError(state: SimulatorState, err: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) return;
  const message =
    err.code === "HPE_HEADER_OVERFLOW"
      ? "request headers are larger than the server accepts (16 KiB)"
      : err.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? "the request did not arrive in time"
        : `malformed HTTP request (${err.code ?? "parse error"})`;
  const body = JSON.stringify(new HttpError("invalid_request", message).toEnvelope(state.publicUrl));
  socket.end(
    `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
