import { MockAgent } from "undici";
import { describe, expect, it } from "vitest";
import { ServiceApiClient, type LogEvent } from "../../provider/client";
import { DEFAULT_IDS } from "pulumi-serviceapi-simulator";

const P = DEFAULT_IDS.acmeWeb;

function echoing(token: string, reply: (path: string) => { status: number; body: string; headers?: Record<string, string> }) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  agent
    .get("https://api.example.com")
    .intercept({ path: /.*/, method: /.*/ })
    .reply((opts) => {
      const r = reply(opts.path);
      return { statusCode: r.status, data: r.body, responseOptions: { headers: r.headers ?? {} } };
    })
    .persist();
  const events: LogEvent[] = [];
  const client = new ServiceApiClient({
    baseUrl: "https://api.example.com",
    token,
    dispatcher: agent,
    maxRetries: 0,
    logger: (e) => events.push(e),
  });
  return { client, events };
}

const settle = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error("expected a failure");
    },
    (e: unknown) => e as Error & Record<string, unknown>,
  );

describe("a server that echoes the token never leaks it through the client", () => {
  it("in x-request-id: error message, requestId and the logger's response event", async () => {
    const token = "tok_echo_12345678";
    const { client, events } = echoing(token, () => ({
      status: 400,
      body: JSON.stringify({ error: { code: "invalid_request", message: "bad", doc_url: "https://d.example" } }),
      headers: { "x-request-id": `req-${token}` },
    }));
    const err = await settle(client.updateProduct(P, {}));
    expect(err.requestId).toBe("req-[REDACTED]");
    expect(err.message).toContain("[request id req-[REDACTED]]");
    expect(JSON.stringify(events)).not.toContain(token);
    expect(events.find((e) => e.type === "response")).toMatchObject({ requestId: "req-[REDACTED]" });
  });

  it("in a repeated next_cursor: the pagination error and the logged URL", async () => {
    const token = "tok/echo+cursor=12";
    const { client, events } = echoing(token, () => ({
      status: 200,
      body: JSON.stringify({ object: "list", data: [], has_more: true, next_cursor: `c-${token}` }),
    }));
    const err = await settle(client.listProjects().toArray());
    expect(err.message).toBe('projects.list: pagination stopped: the server returned cursor "c-[REDACTED]" a second time');
    const urls = events.filter((e) => e.type === "request").map((e) => (e as { url: string }).url);
    expect(urls[1]).toBe("https://api.example.com/v1/projects?cursor=c-[REDACTED]&limit=100");
    expect(JSON.stringify(events)).not.toContain(encodeURIComponent(token));
  });

  it("JSON-escaped in a body that is not an envelope", async () => {
    const token = 'tok"quote\\back/slash';
    const escaped = JSON.stringify(token).slice(1, -1);
    for (const form of [escaped, escaped.replaceAll("/", "\\/")]) {
      const { client } = echoing(token, () => ({ status: 502, body: `{"detail":"token ${form} rejected upstream"}` }));
      const err = await settle(client.updateProduct(P, {}));
      expect(err.message).toContain('{"detail":"token [REDACTED] rejected upstream"}');
      expect(err.message).not.toContain("quote");
    }
  });

  it("redaction never corrupts: code is left alone, other words are not cut", async () => {
    const token = "authoriz";
    const { client } = echoing(token, () => ({
      status: 401,
      body: JSON.stringify({
        error: { code: "unauthorized", message: "token authoriz is not valid", doc_url: "https://d.example/unauthorized" },
      }),
    }));
    const err = await settle(client.updateProduct(P, {}));
    expect(err.code).toBe("unauthorized");
    expect(err.message).toBe(
      "products.update failed: 401 unauthorized: token [REDACTED] is not valid (docs: https://d.example/un[REDACTED]ed)",
    );
  });
});
