/**
 * `/_simulator/...`: test control over HTTP, so another process (a test runner, a `pulumi up` in a
 * shell script) can script faults, set a rate limit, read the request log and reset state.
 * Unauthenticated by design: the simulator is a local tool and listens on loopback by default.
 */
import type { FastifyInstance, FastifyReply } from "fastify";
import { z } from "zod";
import { formatIssues } from "../provider/client/core/error";
import { toIssues } from "../provider/client/core/validation";
import { ERROR_CODES, type ErrorCode } from "./errors";
import { FaultSpec, RateLimitSpec } from "./faults";
import type { SimulatorState } from "./state";

const NewSite = z.strictObject({
  id: z.uuid().optional(), projectId: z.uuid(), name: z.string().min(1).max(255), subdomain: z.string().min(1),
  is_default: z.boolean().default(false),
});

export function registerControlRoutes(app: FastifyInstance, state: SimulatorState): void {
  const badRequest = (reply: FastifyReply, error: z.ZodError) =>
    reply.status(400).send({ error: { code: "invalid_request", message: formatIssues(toIssues(error)), doc_url: "" } });
  const json = (body: unknown): unknown => (typeof body === "string" && body.length > 0 ? JSON.parse(body) : body);

  app.get("/_simulator/health", async () => ({ ok: true }));

  app.get("/_simulator/requests", async (request) => {
    const { operation } = request.query as { operation?: string };
    return { data: state.requestLog.filter((r) => operation === undefined || r.operation === operation) };
  });
  app.delete("/_simulator/requests", async (_req, reply) => {
    state.requestLog.length = 0;
    return reply.status(204).send();
  });

  app.get("/_simulator/faults", async () => ({ data: state.faults.list() }));
  app.post("/_simulator/faults", async (request, reply) => {
    const parsed = FaultSpec.safeParse(json(request.body));
    if (!parsed.success) return badRequest(reply, parsed.error);
    return reply.status(201).send(state.faults.add(parsed.data));
  });
  app.delete("/_simulator/faults", async (_req, reply) => {
    state.faults.clear();
    return reply.status(204).send();
  });

  app.get("/_simulator/rate-limit", async () => ({ rateLimit: state.rateLimiter.get() ?? null }));
  app.put("/_simulator/rate-limit", async (request, reply) => {
    const parsed = RateLimitSpec.safeParse(json(request.body));
    if (!parsed.success) return badRequest(reply, parsed.error);
    state.rateLimiter.set(parsed.data);
    return { rateLimit: parsed.data };
  });
  app.delete("/_simulator/rate-limit", async (_req, reply) => {
    state.rateLimiter.set(undefined);
    return reply.status(204).send();
  });

  app.post("/_simulator/sites", async (request, reply) => {
    const parsed = NewSite.safeParse(json(request.body));
    if (!parsed.success) return badRequest(reply, parsed.error);
    if (!state.store.getProject(parsed.data.projectId)) {
      return reply.status(404).send({ error: { code: "not_found", message: `project ${parsed.data.projectId} not found`, doc_url: "" } });
    }
    return reply.status(201).send(state.store.addSite(parsed.data));
  });

  app.post("/_simulator/reset", async (_req, reply) => {
    state.reset();
    return reply.status(204).send();
  });

  app.get("/_simulator/errors/:code", async (request, reply) => {
    const { code } = request.params as { code: string };
    const info = ERROR_CODES[code as ErrorCode];
    if (!info) return reply.status(404).send({ error: { code: "not_found", message: `no error code ${code}`, doc_url: "" } });
    return { code, ...info };
  });
}
