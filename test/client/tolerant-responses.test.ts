import { MockAgent } from "undici";
import { describe, expect, it } from "vitest";
import { ServiceApiClient, type Product } from "../../provider/client";
import { DEFAULT_IDS, defaultSeed } from "pulumi-serviceapi-simulator";
import { clientFor, productRecord, simulator } from "../helpers";
import { daysAhead } from "../support/time";

/** A time the service takes as ahead, whenever the test runs. */
const LATER = daysAhead(365, 0);

// Valid 8-4-4-4-12 hex, but neither an RFC 9562 version (0) nor variant (e): z.uuid() refused these.
const ODD_ID = "ccdf56a4-8fd7-0d19-e8ad-d64bc232702d";
const ODD_WS = "00000000-0000-0000-0000-00000000000a";

function mocked(body: unknown, status = 200): ServiceApiClient {
  const agent = new MockAgent();
  agent.disableNetConnect();
  agent
    .get("https://api.example.com")
    .intercept({ path: /.*/, method: /.*/ })
    .reply(status, JSON.stringify(body), { headers: { "content-type": "application/json" } })
    .persist();
  return new ServiceApiClient({ baseUrl: "https://api.example.com", token: "tok_mock_abcdef", dispatcher: agent, maxRetries: 0 });
}

const product = (over: Partial<Record<keyof Product, unknown>> = {}) =>
  productRecord({ id: ODD_ID, title: "Pro", status: "active", ...over });

describe("responses: accept everything the spec allows", () => {
  it("any 8-4-4-4-12 hex UUID in responses and path parameters", async () => {
    const client = mocked(product());
    const got = await client.updateProduct(ODD_ID, {});
    expect(got.id).toBe(ODD_ID);
    const projects = await mocked({
      object: "list",
      data: [{ object: "project", id: ODD_ID, name: null, workspaceId: ODD_WS }],
      has_more: false,
      next_cursor: null,
    })
      .listProjects({ workspaceId: ODD_WS })
      .toArray();
    expect(projects).toEqual([{ object: "project", id: ODD_ID, name: null, workspaceId: ODD_WS }]);
  });

  it("the simulator serves records with such ids too (seed, path, body)", async () => {
    const seed = defaultSeed();
    seed.workspaces.push({ id: ODD_WS, name: "Odd" });
    seed.projects.push({ id: ODD_ID, workspaceId: ODD_WS, name: "Odd project" });
    seed.tokens[0]!.workspaces.push(ODD_WS);
    const sim = await simulator({ seed });
    const { client } = clientFor(sim);
    const created = await client.createProduct({ title: "Odd", projectId: ODD_ID });
    expect((await client.listProjects({ workspaceId: ODD_WS }).toArray()).map((p) => p.id)).toEqual([ODD_ID]);
    expect((await client.updateProduct(created.id, { status: "active" })).status).toBe("active");
  });

  it("a site with only object, id and name parses; the other fields are optional in the type", async () => {
    const client = mocked({ object: "list", data: [{ object: "site", id: ODD_ID, name: "Main" }], has_more: false, next_cursor: null });
    const sites = await client.listSites({ projectId: DEFAULT_IDS.acmeWeb }).toArray();
    expect(sites).toEqual([{ object: "site", id: ODD_ID, name: "Main" }]);
    const subdomain: string | undefined = sites[0]!.subdomain;
    expect(subdomain).toBeUndefined();
  });

  it("a task without emoji, rrule or timestamps parses", async () => {
    const client = mocked({ object: "task", id: ODD_ID, title: "Digest" }, 201);
    const task = await client.createTask({ title: "Digest", prompt: "p", scheduledAt: LATER, projectId: ODD_ID });
    expect(task).toEqual({ object: "task", id: ODD_ID, title: "Digest" });
  });

  it("project and product keep their required fields", async () => {
    const { description: _d, ...withoutDescription } = product();
    const err = await mocked(withoutDescription)
      .updateProduct(ODD_ID, {})
      .catch((e: Error) => e);
    expect((err as Error).message).toContain("description is required");
    const err2 = await mocked({ object: "list", data: [{ object: "project", id: ODD_ID, name: null }], has_more: false, next_cursor: null })
      .listProjects()
      .toArray()
      .catch((e: Error) => e);
    expect((err2 as Error).message).toContain("data.0.workspaceId is required");
  });

  it("an unknown product status from a newer server is kept, and requests stay strict", async () => {
    const client = mocked(product({ status: "scheduled" }));
    const got = await client.updateProduct(ODD_ID, {});
    expect(got.status).toBe("scheduled");
    // Known values still narrow in a switch.
    const label = (s: Product["status"]) => {
      switch (s) {
        case "active":
          return "on sale";
        case "archived":
          return "gone";
        case "draft":
          return "hidden";
        default:
          return `unknown (${s})`;
      }
    };
    expect(label(got.status)).toBe("unknown (scheduled)");
    const err = await client.updateProduct(ODD_ID, { status: "scheduled" as "active" }).catch((e: Error) => e);
    expect((err as Error).message).toBe(
      "products.update: invalid request, nothing was sent: status must be one of active, archived, draft",
    );
  });
});
