import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { RequestValidationError } from "../../provider/client";
import { DEFAULT_IDS, defaultSeed, startSimulator } from "pulumi-serviceapi-simulator";
import { clientFor, envelope, raw, simulator } from "../helpers";

const P = DEFAULT_IDS.acmeWeb;

/**
 * Sends raw bytes and returns what the server answered once it closed the connection — or, if it
 * has not after `waitMs`, what it had answered by then, with `closedByServer` false.
 */
function rawSocket(url: string, bytes: string, waitMs = 3000): Promise<{ text: string; closedByServer: boolean }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    let text = "";
    let gaveUp = false;
    socket.on("data", (d) => (text += d.toString()));
    socket.on("close", () => {
      clearTimeout(timer);
      resolve({ text, closedByServer: !gaveUp });
    });
    socket.on("error", () => {});
    const timer = setTimeout(() => {
      gaveUp = true;
      socket.destroy();
    }, waitMs);
  });
}
const bodyOf = (text: string) => JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4));

/**
 * A client that writes the whole request before it reads anything (as many HTTP clients do): the
 * socket is paused until the last byte is written. Returns what it could read, or the write error.
 */
function writeThenRead(url: string, head: string, body: Buffer): Promise<{ text: string; writeError: string | undefined }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    let text = "";
    let writeError: string | undefined;
    const socket = connect(Number(port), hostname, () => {
      socket.pause();
      socket.write(head);
      socket.write(body, (err) => {
        writeError = (err as NodeJS.ErrnoException | null | undefined)?.code;
        socket.resume();
      });
    });
    socket.on("data", (d) => (text += d.toString()));
    socket.on("error", (err: NodeJS.ErrnoException) => (writeError ??= err.code));
    socket.on("close", () => resolve({ text, writeError }));
    setTimeout(() => socket.destroy(), 10_000);
  });
}

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
      expect(await raw(sim, "GET", `/_simulator/errors/${code}`)).toMatchObject({
        status: 404,
        body: envelope("not_found", `no error code ${code}`, sim),
      });
    }
    expect((await raw(sim, "GET", "/_simulator/errors/rate_limited")).status).toBe(200);
  });

  it("a seed and addSite given in code are checked like files and HTTP, counting code points", async () => {
    const seed = defaultSeed();
    seed.sites.push({ ...seed.sites[0]!, id: "00000000-0000-0000-0000-0000000000ff", projectId: "00000000-0000-0000-0000-000000000001" });
    await expect(startSimulator({ port: 0, seed })).rejects.toThrow(
      "invalid seed passed as `seed`: site 00000000-0000-0000-0000-0000000000ff names unknown project 00000000-0000-0000-0000-000000000001",
    );
    const sim = await simulator();
    expect(() => sim.addSite({ projectId: "00000000-0000-0000-0000-000000000001", name: "x", subdomain: "x" })).toThrow(
      "project 00000000-0000-0000-0000-000000000001 not found",
    );
    expect(sim.addSite({ projectId: P, name: "🚀".repeat(255), subdomain: "rockets" }).name).toHaveLength(510);
    expect(() => sim.addSite({ projectId: P, name: "🚀".repeat(256), subdomain: "rockets2" })).toThrow(
      "name must be 1 to 255 characters long (got 256)",
    );
    const http = await raw(sim, "POST", "/_simulator/sites", { body: { projectId: P, name: "🚀".repeat(256), subdomain: "r" } });
    expect(http).toMatchObject({ status: 400, body: envelope("invalid_request", "name must be 1 to 255 characters long (got 256)", sim) });
  });

  it("every 4xx is the envelope, with a status from the spec's set", async () => {
    const sim = await simulator();
    const bigHeaders = await rawSocket(sim.url, `GET /v1/projects HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`);
    expect(bigHeaders.text).toMatch(/^HTTP\/1\.1 400 /);
    expect(bodyOf(bigHeaders.text)).toEqual(
      envelope("invalid_request", "request headers are larger than the server accepts (16 KiB)", sim),
    );
    const nul = await rawSocket(sim.url, "GET /v1/projects HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0000b\r\n\r\n");
    expect(nul.text).toMatch(/^HTTP\/1\.1 400 /);
    expect(bodyOf(nul.text).error.code).toBe("invalid_request");
    const longId = await raw(sim, "PATCH", `/api/v1/public/products/${"a".repeat(500)}`, { body: {} });
    expect(longId).toMatchObject({
      status: 400,
      body: envelope("invalid_request", "productId must be a UUID (8-4-4-4-12 hex digits)", sim),
    });
    const huge = await raw(sim, "POST", "/api/v1/public/products", {
      rawBody: JSON.stringify({ title: "x".repeat(1_100_000), projectId: P }),
    });
    expect(huge).toMatchObject({ status: 400, body: envelope("invalid_request", "body exceeds 1048576 bytes (1 MiB)", sim) });
  });

  it("strings that are not well-formed Unicode are refused, naming the field, by both sides", async () => {
    const sim = await simulator();
    const res = await raw(sim, "POST", "/api/v1/public/products", { rawBody: '{"title":"a\\ud800b","projectId":"' + P + '"}' });
    expect(res).toMatchObject({
      status: 400,
      body: envelope("invalid_request", "title must be well-formed Unicode (it contains a lone UTF-16 surrogate)", sim),
    });
    const { client } = clientFor(sim);
    const err = await client.updateSite(DEFAULT_IDS.acmeDocs, { name: "x\udc00" }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(RequestValidationError);
    expect((err as Error).message).toBe(
      "sites.update: invalid request, nothing was sent: name must be well-formed Unicode (it contains a lone UTF-16 surrogate)",
    );
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

  it("a body that never finishes is cut off after requestTimeoutMs, unprocessed", async () => {
    const sim = await simulator({ requestTimeoutMs: 500 });
    // Waits for the server to close the connection: with the default (10 s) it would not within the 5 s given.
    const res = await rawSocket(
      sim.url,
      `POST /v1/tasks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"title":`,
      5000,
    );
    expect(res).toEqual({ text: "", closedByServer: true });
    expect(sim.requests()).toEqual([]);
    expect(sim.counts().tasks).toBe(0);
  });

  it("doc_url is built from the configured public URL, never from the Host header", async () => {
    const sim = await simulator({ publicUrl: "https://sim.example.test/" });
    const res = await rawSocket(sim.url, 'GET /v1/projects HTTP/1.1\r\nHost: evil.example"><script>\r\nConnection: close\r\n\r\n');
    expect(bodyOf(res.text).error.doc_url).toBe("https://sim.example.test/_simulator/errors/unauthorized");
  });

  it("a path id too long for the router (over 8,192 characters) or not decodable gets the 400 envelope, not a raw 414", async () => {
    const sim = await simulator();
    const long = await raw(sim, "PATCH", `/api/v1/public/products/${"a".repeat(9000)}`, { body: {} });
    expect(long).toMatchObject({ status: 400, body: envelope("invalid_request", "productId must be a UUID (8-4-4-4-12 hex digits)", sim) });
    expect(long.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    const site = await raw(sim, "PATCH", `/v1/sites/${"b".repeat(9000)}`, { body: { name: "x" } });
    expect(site).toMatchObject({ status: 400, body: envelope("invalid_request", "siteId must be a UUID (8-4-4-4-12 hex digits)", sim) });
    const badEscape = await raw(sim, "PATCH", "/api/v1/public/products/%zz", { body: {} });
    expect(badEscape).toMatchObject({
      status: 400,
      body: envelope("invalid_request", "productId must be a UUID (8-4-4-4-12 hex digits)", sim),
    });
  });

  it("a body that is not UTF-8, or declares another charset, is refused naming the problem; nothing is stored", async () => {
    const sim = await simulator();
    const head = Buffer.from('{"title":"caf');
    const tail = Buffer.from(`","projectId":"${P}"}`);
    const invalid = await raw(sim, "POST", "/api/v1/public/products", { rawBody: Buffer.concat([head, Buffer.from([0xff, 0xfe]), tail]) });
    expect(invalid).toMatchObject({
      status: 400,
      body: envelope("invalid_request", "body is not valid UTF-8: a JSON body must be UTF-8 (RFC 8259)", sim),
    });
    const latin1 = await raw(sim, "POST", "/api/v1/public/products", {
      rawBody: Buffer.concat([head, Buffer.from([0xe9]), tail]),
      contentType: "application/json; charset=iso-8859-1",
    });
    expect(latin1).toMatchObject({
      status: 400,
      body: envelope("invalid_request", "Content-Type charset must be utf-8: a JSON body is UTF-8 (RFC 8259)", sim),
    });
    const quoted = await raw(sim, "POST", "/api/v1/public/products", {
      rawBody: JSON.stringify({ title: "café", projectId: P }),
      contentType: 'application/json; charset="UTF-8"',
    });
    expect(quoted.status).toBe(201);
    expect(quoted.body.title).toBe("café");
    expect(sim.counts().products).toBe(1);
  });

  it("a body of 4 MiB gets its 400 even from a client that writes the whole body before reading", async () => {
    const sim = await simulator();
    const size = 4 * 1024 * 1024;
    const head =
      `POST /api/v1/public/products HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${sim.token}\r\n` +
      `Service-Api-Version: 2026-06-27\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`;
    const { text, writeError } = await writeThenRead(sim.url, head, Buffer.alloc(size, 0x20));
    expect(writeError).toBeUndefined();
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    expect(bodyOf(text)).toEqual(envelope("invalid_request", "body exceeds 1048576 bytes (1 MiB)", sim));
    expect(sim.counts().products).toBe(0);
  });

  it("Content-Type must be application/json, optionally with a charset", async () => {
    const sim = await simulator();
    const body = JSON.stringify({ title: "x", projectId: P });
    expect(await raw(sim, "POST", "/api/v1/public/products", { rawBody: body, contentType: "application/json-patch+json" })).toMatchObject({
      status: 400,
      body: envelope("invalid_request", "Content-Type must be application/json (optionally with a charset)", sim),
    });
    expect(
      (await raw(sim, "POST", "/api/v1/public/products", { rawBody: body, contentType: "application/json; charset=utf-8" })).status,
    ).toBe(201);
  });
});
