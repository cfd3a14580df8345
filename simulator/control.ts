/**
 * `/_simulator/...`: test control over HTTP, so another process (a test runner, a `pulumi up` in a
 * shell script) can script faults, set a rate limit, read the request log and reset state.
 * Unauthenticated by design: the simulator is a local tool and listens on loopback by default.
 * Bad input gets the same error envelope and 400 as the API.
 */
import type { FastifyInstance, FastifyReply } from "fastify";
import type { z } from "zod";
import { parseWithIssues } from "../provider/contract/issues";
import { ERROR_CODES, HttpError, type ErrorCode } from "./errors";
import { FaultSpec } from "./faults";
import { RateLimitSpec } from "./rate-limit";
import { NotUtf8Body } from "./request-body";
import type { SiteRecord } from "./database";
import { NewSite } from "./seed";
import type { SimulatorState } from "./state";

export function registerControlRoutes(app: FastifyInstance, state: SimulatorState): void {
  const fail = (reply: FastifyReply, err: HttpError) => reply.status(err.status).send(err.toEnvelope(state.publicUrl));
  const parse = <T>(schema: z.ZodType<T>, body: unknown): { ok: true; value: T } | { ok: false; err: HttpError } => {
    let value: unknown = body;
    if (body instanceof NotUtf8Body) return { ok: false, err: new HttpError("invalid_request", "body is not valid UTF-8") };
    if (typeof body === "string" && body.length > 0) {
      try {
        value = JSON.parse(body);
      } catch {
        return { ok: false, err: new HttpError("invalid_request", "body is not valid JSON") };
      }
    }
    const parsed = parseWithIssues(schema, value);
    return parsed.success ? { ok: true, value: parsed.data as T } : { ok: false, err: new HttpError("invalid_request", parsed.message) };
  };

  app.get("/_simulator/health", async () => ({ ok: true }));

  app.get("/_simulator/requests", async (request) => {
    const { operation } = request.query as { operation?: string };
    return { data: state.requestLog.list(operation) };
  });
  app.delete("/_simulator/requests", async (_req, reply) => {
    state.requestLog.clear();
    return reply.status(204).send();
  });

  app.get("/_simulator/faults", async () => ({ data: state.faults.list() }));
  app.post("/_simulator/faults", async (request, reply) => {
    const parsed = parse(FaultSpec, request.body);
    if (!parsed.ok) return fail(reply, parsed.err);
    return reply.status(201).send(state.faults.add(parsed.value));
  });
  app.delete("/_simulator/faults", async (_req, reply) => {
    state.faults.clear();
    return reply.status(204).send();
  });

  app.get("/_simulator/rate-limit", async () => ({ rateLimit: state.rateLimiter.get() ?? null }));
  app.put("/_simulator/rate-limit", async (request, reply) => {
    const parsed = parse(RateLimitSpec, request.body);
    if (!parsed.ok) return fail(reply, parsed.err);
    state.rateLimiter.set(parsed.value);
    return { rateLimit: parsed.value };
  });
  app.delete("/_simulator/rate-limit", async (_req, reply) => {
    state.rateLimiter.set(undefined);
    return reply.status(204).send();
  });

  // The API has no product or task listing; these show what exists (after an interrupted run, say).
  app.get("/_simulator/products", async () => ({ data: state.store.allProducts() }));
  app.get("/_simulator/tasks", async () => ({ data: state.store.allTasks() }));

  app.post("/_simulator/sites", async (request, reply) => {
    const parsed = parse(NewSite, request.body);
    if (!parsed.ok) return fail(reply, parsed.err);
    try {
      return reply.status(201).send(addSite(state, parsed.value));
    } catch (err) {
      if (err instanceof HttpError) return fail(reply, err);
      throw err;
    }
  });

  app.post("/_simulator/reset", async (_req, reply) => {
    state.reset();
    return reply.status(204).send();
  });

  app.get("/_simulator/errors/:code", async (request, reply) => {
    const { code } = request.params as { code: string };
    // Own keys only: `constructor` or `toString` are not error codes.
    if (!Object.hasOwn(ERROR_CODES, code)) return fail(reply, new HttpError("not_found", `no error code ${code}`));
    return { code, ...ERROR_CODES[code as ErrorCode] };
  });
}

/**
 * Adds a site as if made elsewhere (the API cannot create sites), checked like the seed: the
 * project exists, the name is 1–255 characters, the id is new. The HTTP route and
 * `Simulator#addSite` both use it.
 */
export function addSite(state: SimulatorState, input: unknown): SiteRecord {
  const parsed = parseWithIssues(NewSite, input);
  if (!parsed.success) throw new HttpError("invalid_request", parsed.message);
  const site = parsed.data;
  if (!state.store.getProject(site.projectId)) throw new HttpError("not_found", `project ${site.projectId} not found`);
  if (site.id !== undefined && state.store.getSite(site.id)) throw new HttpError("invalid_request", `site ${site.id} already exists`);
  return state.store.addSite(site);
}
