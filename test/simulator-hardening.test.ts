import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { RequestValidationError } from "../provider";
import { DEFAULT_IDS, defaultSeed, startSimulator } from "../simulator";
import { clientFor, envelope, raw, simulator } from "./helpers";

const P = DEFAULT_IDS.acmeWeb;

/** Sends raw bytes and returns what the server answered before closing (or after `waitMs`). */
function rawSocket(url: string, bytes: string, waitMs = 3000): Promise<{ text: string; closedAfterMs: number }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    let text = "";
    socket.on("data", (d) => (text += d.toString()));
    const done = () => resolve({ text, closedAfterMs: Date.now() - started });
    socket.on("close", done);
    socket.on("error", () => {});
    setTimeout(() => { socket.destroy(); }, waitMs);
  });
}
const bodyOf = (text: string) => JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4));

describe("simulator hardening", () => {
  it("a 429 fault always carries Retry-After (default 1 s)", async () => {
    const sim = await simulator();
    sim.addFault({ operation: "projects.list", kind: "error", status: 429 });
    const res = await raw(sim, "GET", "/v1/projects");
    expect(res.status).toBe(429);
    expect(res.headers["retry-after"]).toBe("1");
  });

  it("control routes answer bad input with the envelope and 400; unknown error codes are 404", async () => {
    const sim = await simulator();
    const res = await raw(sim, "POST", "/_simulator/faults", { rawBody: "{not json" });
    expect(res).toMatchObject({ status: 400, body: envelope("invalid_request", "body is not valid JSON", sim) });
    const res2 = await raw(sim, "POST", "/_simulator/faults", { body: { kind: "error" } });
    expect(res2).toMatchObject({ status: 400, body: envelope("invalid_request", "status is required for an error fault", sim) });
    for (const code of ["constructor", "toString", "__proto__"]) {
      expect(await raw(sim, "GET", `/_simulator/errors/${code}`)).toMatchObject({ status: 404, body: envelope("not_found", `no error code ${code}`, sim) });
    }
    expect((await raw(sim, "GET", "/_simulator/errors/rate_limited")).status).toBe(200);
  });

  it("a seed and addSite given in code are checked like files and HTTP, counting code points", async () => {
    const seed = defaultSeed();
    seed.sites.push({ ...seed.sites[0]!, id: "00000000-0000-0000-0000-0000000000ff", projectId: "00000000-0000-0000-0000-000000000001" });
    await expect(startSimulator({ port: 0, seed })).rejects.toThrow(
      "invalid seed passed as `seed`: site 00000000-0000-0000-0000-0000000000ff names unknown project 00000000-0000-0000-0000-000000000001");
    const sim = await simulator();
    expect(() => sim.addSite({ projectId: "00000000-0000-0000-0000-000000000001", name: "x", subdomain: "x" })).toThrow("project 00000000-0000-0000-0000-000000000001 not found");
    expect(sim.addSite({ projectId: P, name: "🚀".repeat(255), subdomain: "rockets" }).name).toHaveLength(510);
    expect(() => sim.addSite({ projectId: P, name: "🚀".repeat(256), subdomain: "rockets2" })).toThrow("name must be 1 to 255 characters long (got 256)");
    const http = await raw(sim, "POST", "/_simulator/sites", { body: { projectId: P, name: "🚀".repeat(256), subdomain: "r" } });
    expect(http).toMatchObject({ status: 400, body: envelope("invalid_request", "name must be 1 to 255 characters long (got 256)", sim) });
  });

  it("every 4xx is the envelope, with a status from the spec's set", async () => {
    const sim = await simulator();
    const bigHeaders = await rawSocket(sim.url, `GET /v1/projects HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`);
    expect(bigHeaders.text).toMatch(/^HTTP\/1\.1 400 /);
    expect(bodyOf(bigHeaders.text)).toEqual(envelope("invalid_request", "request headers are larger than the server accepts (16 KiB)", sim));
    const nul = await rawSocket(sim.url, "GET /v1/projects HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0000b\r\n\r\n");
    expect(nul.text).toMatch(/^HTTP\/1\.1 400 /);
    expect(bodyOf(nul.text).error.code).toBe("invalid_request");
    const longId = await raw(sim, "PATCH", `/api/v1/public/products/${"a".repeat(500)}`, { body: {} });
    expect(longId).toMatchObject({ status: 400, body: envelope("invalid_request", "productId must be a UUID (8-4-4-4-12 hex digits)", sim) });
    const huge = await raw(sim, "POST", "/api/v1/public/products", { rawBody: JSON.stringify({ title: "x".repeat(1_100_000), projectId: P }) });
    expect(huge).toMatchObject({ status: 400, body: envelope("invalid_request", "body exceeds 1048576 bytes (1 MiB)", sim) });
  });

  it("strings that are not well-formed Unicode are refused, naming the field, by both sides", async () => {
    const sim = await simulator();
    const res = await raw(sim, "POST", "/api/v1/public/products", { rawBody: '{"title":"a\\ud800b","projectId":"' + P + '"}' });
    expect(res).toMatchObject({ status: 400, body: envelope("invalid_request", "title must be well-formed Unicode (it contains a lone UTF-16 surrogate)", sim) });
    const { client } = clientFor(sim);
    const err = await client.updateSite(DEFAULT_IDS.acmeDocs, { name: "x\udc00" }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(RequestValidationError);
    expect((err as Error).message).toBe("sites.update: invalid request, nothing was sent: name must be well-formed Unicode (it contains a lone UTF-16 surrogate)");
    expect(sim.counts().products).toBe(0);
  });

  it("the request log stays small and readable: deep bodies as text, big ones cut at 16 KiB", async () => {
    const sim = await simulator();
    const deep = "[".repeat(5000) + "]".repeat(5000);
    await raw(sim, "POST", "/api/v1/public/products", { rawBody: deep });
    await raw(sim, "POST", "/api/v1/public/products", { token: "unknown-token", rawBody: JSON.stringify({ blob: "z".repeat(1_000_000) }) });
    const log = await raw(sim, "GET", "/_simulator/requests");
    expect(log.status).toBe(200);
    const [first, second] = log.body.data;
    expect(first.body).toBe(deep);
    expect(second.bodyTruncated).toBe(true);
    expect(second.body).toHaveLength(16 * 1024);
  });

  it("a body that never finishes is cut off after requestTimeoutMs", async () => {
    const sim = await simulator({ requestTimeoutMs: 500 });
    const res = await rawSocket(sim.url, `POST /v1/tasks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"title":`, 5000);
    expect(res.closedAfterMs).toBeLessThan(3000);
  });

  it("doc_url is built from the configured public URL, never from the Host header", async () => {
    const sim = await simulator({ publicUrl: "https://sim.example.test/" });
    const res = await rawSocket(sim.url, 'GET /v1/projects HTTP/1.1\r\nHost: evil.example"><script>\r\nConnection: close\r\n\r\n');
    expect(bodyOf(res.text).error.doc_url).toBe("https://sim.example.test/_simulator/errors/unauthorized");
  });

  it("Content-Type must be application/json, optionally with a charset", async () => {
    const sim = await simulator();
    const body = JSON.stringify({ title: "x", projectId: P });
    expect(await raw(sim, "POST", "/api/v1/public/products", { rawBody: body, contentType: "application/json-patch+json" }))
      .toMatchObject({ status: 400, body: envelope("invalid_request", "Content-Type must be application/json (optionally with a charset)", sim) });
    expect((await raw(sim, "POST", "/api/v1/public/products", { rawBody: body, contentType: "application/json; charset=utf-8" })).status).toBe(201);
  });
});
