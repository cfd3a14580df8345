/**
 * The catalog's projects looked up once per run (`provider/catalog/projects.ts`), over HTTP to the
 * simulator: every name resolved with one listing (which is the run's token check too), and a name
 * that matches nothing stops the run naming the file, the keys and at most three close names —
 * never an id or a workspace id, since the text lands in CI logs.
 */
import { describe, expect, it } from "vitest";
import { parseCatalog } from "../../provider/catalog/catalog";
import { CatalogError } from "../../provider/catalog/errors";
import { resolveProjects } from "../../provider/catalog/projects";
import { closeNames } from "../../provider/resources/close-names";
import { DEFAULT_IDS } from "../../simulator/seed";
import { deadPort, rejectionOf, VirtualClock, simulator } from "../helpers";

const sim = () => simulator();

const entry = (key: string, project: string) => `${key}:\n  project: ${project}\n  title: ${key}\n`;

describe("resolveProjects", () => {
  it("one listing resolves every name; the ids go to the stacks' programs", async () => {
    const s = await sim();
    const catalog = parseCatalog([{ file: "a.yaml", text: entry("p1", "Acme Web") + entry("p2", "Acme Docs") + entry("p3", "Acme Web") }]);
    const { ids, requests } = await resolveProjects(catalog, { baseUrl: s.url, token: s.token });
    expect(Object.fromEntries(ids)).toEqual({ "Acme Web": DEFAULT_IDS.acmeWeb, "Acme Docs": DEFAULT_IDS.acmeDocs });
    expect(requests).toBe(1);
    expect(s.requests().map((r) => `${r.method} ${r.path}`)).toEqual(["GET /v1/projects?limit=100"]);
  });

  it("a misspelt name: each file once, its keys, at most three close names, no id anywhere", async () => {
    const s = await sim();
    const catalog = parseCatalog([
      { file: "a.yaml", text: entry("p1", "Acme Wbe") + entry("p2", "Acme Wbe") + entry("p3", "Acme Wbe") + entry("p4", "Acme Wbe") },
      { file: "b.yaml", text: entry("q1", "Nothing Like It") },
    ]);
    const error = await rejectionOf(resolveProjects(catalog, { baseUrl: s.url, token: s.token }));
    expect(error).toBeInstanceOf(CatalogError);
    expect((error as Error).message).toBe(
      [
        "the catalog has 2 problem(s) with its projects; nothing was run:",
        '  a.yaml: p1, p2, p3 and 1 more: project "Acme Wbe" is not a project this token can see (4 listed); the closest: "Acme Web". Check the name, or give projectId',
        '  b.yaml: q1: project "Nothing Like It" is not a project this token can see (4 listed). Check the name, or give projectId',
      ].join("\n"),
    );
    expect((error as Error).message).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
  });

  it("a refused token: one request, and no stack runs", async () => {
    const s = await sim();
    const catalog = parseCatalog([{ file: "a.yaml", text: entry("p1", "Acme Web") }]);
    const error = await rejectionOf(resolveProjects(catalog, { baseUrl: s.url, token: "sim_revoked_token_0001" }));
    expect((error as Error).message).toMatch(/^no stack was run: projects\.list failed: 401 unauthorized: /);
    expect((error as Error).message).toMatch(
      /\. Check SERVICEAPI_TOKEN: a token of this service that may list its projects \(a rotated token: the new one\)$/,
    );
    expect(s.requests().map((r) => r.status)).toEqual([401]);
  });

  it("a service URL with a path, or one where nothing listens: the message names the setting to check", async () => {
    const s = await sim();
    const catalog = parseCatalog([{ file: "a.yaml", text: entry("p1", "Acme Web") }]);
    const withPath = await rejectionOf(resolveProjects(catalog, { baseUrl: `${s.url}/v1`, token: s.token }));
    expect((withPath as Error).message).toMatch(
      /^no stack was run: projects\.list failed: 404 [^\n]*\. Check SERVICEAPI_BASE_URL \(or --config serviceapi:baseUrl\): the service's origin \(https:\/\/host\), without the path \/v1$/,
    );
    const deadUrl = `http://127.0.0.1:${await deadPort()}`;
    // Virtual time for the retries' waits; it stands still while a connection attempt is out, so only the refusal ends one.
    const clock = new VirtualClock();
    clock.watch(deadUrl);
    const dead = await rejectionOf(resolveProjects(catalog, { baseUrl: deadUrl, token: s.token, clock }));
    expect((dead as Error).message).toMatch(
      /^no stack was run: [^\n]*ECONNREFUSED[^\n]*\. Check SERVICEAPI_BASE_URL \(or --config serviceapi:baseUrl\): the service's origin, reachable from this machine$/,
    );
  });
});

describe("closeNames", () => {
  it("the closest first, only reasonably close ones, at most three", () => {
    expect(closeNames("Acme Wbe", ["Acme Web", "Acme Docs", "Globex Shop"])).toEqual(["Acme Web"]);
    expect(closeNames("Acme Dcs", ["Acme Web", "Acme Docs", "Acme Dogs"])).toEqual(["Acme Docs", "Acme Dogs"]);
    expect(closeNames("acme web", ["Acme Web"])).toEqual(["Acme Web"]);
    expect(closeNames("Zzz", ["Acme Web", "Acme Docs"])).toEqual([]);
    expect(closeNames("a", ["b", "c", "d", "e"])).toEqual(["b", "c", "d"]);
  });
});
