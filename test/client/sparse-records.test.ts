/**
 * The spec marks no Site or Task field required, `id` and `object` included. The client accepts
 * such records; where our own logic needs the id (a site to rename, a task's resource id) it fails
 * saying the service omitted it. The simulator always sends full records, so a small loopback
 * server plays a service that sends sparse ones.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getSites, ServiceApiClient } from "../../provider";
import * as site from "../../provider/dynamic/site";
import * as task from "../../provider/dynamic/task";
import { configureRequest } from "../helpers";
import { daysAhead } from "../support/time";

const LATER = daysAhead(365, 0);
const LATER_RUN = LATER.replace("Z", ".000Z");

const PROJECT = "00000000-0000-4000-8000-0000000000aa";
const SITE = "00000000-0000-4000-8000-0000000000bb";
const TOKEN = "sparse_test_token";

/** Answers sites.list with sites lacking `id`/`object`, and tasks.create / sites.update with records lacking both. */
function sparseService(): Promise<{ server: Server; url: string; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url?.split("?")[0]}`);
    req.resume();
    req.on("end", () => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
      };
      if (req.url?.startsWith("/api/v1/public/sites")) {
        return send(200, {
          object: "list",
          data: [{ name: "Main", subdomain: "main" }, { is_default: false }],
          has_more: false,
          next_cursor: null,
        });
      }
      if (req.url === "/v1/tasks") return send(201, { title: "Digest", nextRunAt: LATER_RUN });
      if (req.url?.startsWith("/v1/sites/")) return send(200, { name: "Renamed" });
      return send(404, { error: { code: "not_found", message: "no such endpoint", doc_url: "https://example.test/errors" } });
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests });
    }),
  );
}

let service: Awaited<ReturnType<typeof sparseService>>;
beforeAll(async () => {
  service = await sparseService();
  const config: Record<string, string> = { "serviceapi:token": TOKEN, "serviceapi:baseUrl": service.url };
  await site.configure(configureRequest(config));
});
afterAll(() => {
  delete process.env.SERVICEAPI_TOKEN;
  delete process.env.SERVICEAPI_BASE_URL;
  return new Promise<void>((resolve) => service.server.close(() => resolve()));
});

describe("Site and Task records without id or object", () => {
  it("the client accepts them as the spec allows", async () => {
    const client = new ServiceApiClient({ baseUrl: service.url, token: TOKEN });
    try {
      expect(await client.listSites({ projectId: PROJECT }).toArray()).toEqual([
        { name: "Main", subdomain: "main" },
        { is_default: false },
      ]);
      expect(await client.createTask({ title: "Digest", prompt: "p", scheduledAt: LATER, projectId: PROJECT })).toEqual({
        title: "Digest",
        nextRunAt: LATER_RUN,
      });
      expect(await client.updateSite(SITE, { name: "Renamed" })).toEqual({ name: "Renamed" });
    } finally {
      await client.close();
    }
  });

  it("a Site, found and renamed by its id, fails saying the service omitted the id; nothing is renamed", async () => {
    service.requests.length = 0;
    const err = await site.create({ projectId: PROJECT, siteId: SITE, name: "Renamed", __provider: "stub" }).catch((e: unknown) => e);
    expect((err as Error).message).toBe(
      "sites.list returned a site without an id: the service omitted it (the API spec does not require one). " +
        "A Site is found and renamed by its id, so the sites of this project cannot be managed.",
    );
    expect(service.requests).toEqual(["GET /api/v1/public/sites"]);
  });

  it("a Task, whose id Pulumi needs as the resource id, fails saying the service omitted it and that the task exists", async () => {
    service.requests.length = 0;
    const err = await task
      .create({ projectId: PROJECT, title: "Digest", prompt: "p", scheduledAt: LATER, __provider: "stub" })
      .catch((e: unknown) => e);
    expect((err as Error).message).toBe(
      "tasks.create returned a task without an id: the service omitted it (the API spec does not require one). " +
        "Pulumi needs it as the resource id, so the task is not in this stack, but it was created: check the service before running " +
        "`pulumi up` again, which would create another one.",
    );
    expect(service.requests).toEqual(["POST /v1/tasks"]);
  });

  it("getSites, which gives ids to feed Site, fails the same way", async () => {
    process.env.SERVICEAPI_TOKEN = TOKEN;
    process.env.SERVICEAPI_BASE_URL = service.url;
    await expect(getSites({ projectId: PROJECT })).rejects.toThrow(
      "getSites: sites.list returned a site without an id: the service omitted it (the API spec does not require one). " +
        "getSites and getSite give each site's id, which a Site needs as siteId.",
    );
  });
});
