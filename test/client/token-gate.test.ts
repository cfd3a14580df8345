/**
 * A refused token costs one request (`tokenGate`): calls made together wait for the token's first
 * answer; a 401 or 403 refuses every later call without sending it, naming the refusal; any other
 * answer, or none, lets them go. Clients sharing a gate share the verdict of one token and not of
 * another. Without a gate every call is sent, as before.
 */
import { describe, expect, it } from "vitest";
import {
  AuthenticationError,
  ConnectionError,
  PermissionDeniedError,
  TokenGate,
  TokenRefusedError,
  type LogEvent,
} from "../../provider/client";
import { ACME_ONLY_TOKEN, DEFAULT_IDS } from "../../simulator/seed";
import { clientFor, simulator } from "../helpers";

const productId = "6f0e9a37-0b9f-4c6e-9a51-8f2f3c0f4d11";

describe("token gate", () => {
  it("a refused token costs one request: the calls made with it together fail without being sent, naming the refusal", async () => {
    const sim = await simulator();
    const gate = new TokenGate();
    const { client } = clientFor(sim, { token: "wrong_token_0001", tokenGate: gate });
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => client.updateProduct(productId, {})));
    expect(sim.requests().map((r) => r.status)).toEqual([401]);
    const errors = results.map((r) => (r as PromiseRejectedResult).reason as Error);
    expect(errors.filter((e) => e instanceof AuthenticationError)).toHaveLength(1);
    const refused = errors.filter((e) => e instanceof TokenRefusedError);
    expect(refused).toHaveLength(9);
    expect(refused[0]!.message).toBe(
      "products.update was not sent: the service refused this token (401 unauthorized) on an earlier request",
    );
    expect(refused[0]).toMatchObject({
      code: "SERVICEAPI_TOKEN_REFUSED",
      status: 401,
      operation: "products.update",
      mayHaveSucceeded: false,
    });
    expect(gate.notSent).toBe(9);
    // And later calls too, of any operation.
    await expect(client.listProjects().toArray()).rejects.toThrow("projects.list was not sent");
    expect(sim.requests()).toHaveLength(1);
  });

  it("a 403 refuses the token as a 401 does", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim, { token: ACME_ONLY_TOKEN, tokenGate: new TokenGate() });
    await expect(client.listProjects({ workspaceId: DEFAULT_IDS.globexWorkspace }).toArray()).rejects.toBeInstanceOf(PermissionDeniedError);
    await expect(client.listProjects().toArray()).rejects.toThrow(
      "projects.list was not sent: the service refused this token (403 forbidden) on an earlier request",
    );
    expect(sim.requests()).toHaveLength(1);
  });

  it("a token's first call goes alone; once answered, the others go together", async () => {
    const sim = await simulator();
    const events: string[] = [];
    const logger = (e: LogEvent) => e.type !== "retry" && events.push(e.type);
    const { client } = clientFor(sim, { tokenGate: new TokenGate(), logger });
    const project = DEFAULT_IDS.acmeDocs;
    const created = await Promise.all(Array.from({ length: 3 }, (_, i) => client.createProduct({ projectId: project, title: `T${i}` })));
    expect(created).toHaveLength(3);
    // The first request is answered before any other is sent; then the other two are both sent before either answer.
    expect(events).toEqual(["request", "response", "request", "request", "response", "response"]);
  });

  it("clients sharing a gate share one token's verdict, and not another token's", async () => {
    const sim = await simulator();
    const gate = new TokenGate();
    const wrong = clientFor(sim, { token: "wrong_token_0001", tokenGate: gate }).client;
    const again = clientFor(sim, { token: "wrong_token_0001", tokenGate: gate }).client;
    const right = clientFor(sim, { tokenGate: gate }).client;
    await expect(wrong.listProjects().toArray()).rejects.toBeInstanceOf(AuthenticationError);
    await expect(again.listProjects().toArray()).rejects.toBeInstanceOf(TokenRefusedError);
    expect(await right.listProjects().toArray()).not.toHaveLength(0);
    expect(sim.requests().map((r) => r.status)).toEqual([401, 200]);
    // The gate keys tokens by their digest.
    expect(gate.refusal(TokenGate.keyOf("wrong_token_0001"))?.status).toBe(401);
  });

  it("a first call that gets no answer (nothing listens) lets the waiting calls go together, each failing on its own", async () => {
    const gate = new TokenGate();
    const { client } = clientFor(await simulator(), { baseUrl: "http://127.0.0.1:9", maxRetries: 0, tokenGate: gate });
    const results = await Promise.allSettled(Array.from({ length: 3 }, () => client.listProjects().toArray()));
    for (const r of results) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(ConnectionError);
    expect(gate.notSent).toBe(0);
  });

  it("without a gate every call is sent", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim, { token: "wrong_token_0001" });
    await Promise.allSettled(Array.from({ length: 3 }, () => client.updateProduct(productId, {})));
    expect(sim.requests().map((r) => r.status)).toEqual([401, 401, 401]);
  });
});
