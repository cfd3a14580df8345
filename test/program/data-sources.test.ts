/**
 * The data sources in the program process, against the simulator: every page followed, exactly one
 * record or a message naming the candidates, and the Output forms' unknown and secret results.
 */
import * as pulumi from "@pulumi/pulumi";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  getProject,
  getProjectOutput,
  getProjects,
  getProjectsOutput,
  getSite,
  getSiteOutput,
  getSites,
  getSitesOutput,
} from "../../provider";
import { DEFAULT_IDS, defaultSeed, seedId } from "../../simulator/seed";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { simulator, siteInfo } from "../helpers";

const project = DEFAULT_IDS.acmeWeb;
/** The whole message, and nothing else (toThrow with a string matches a substring). */
const exactly = (message: string) => new RegExp(`^${message.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`);
let sim: Simulator;
const saved = { token: process.env.SERVICEAPI_TOKEN, url: process.env.SERVICEAPI_BASE_URL };

// Data sources read `serviceapi:*` with pulumi.Config, which falls back to SERVICEAPI_* here (no stack).
beforeEach(async () => {
  sim = await simulator();
  process.env.SERVICEAPI_TOKEN = sim.token;
  process.env.SERVICEAPI_BASE_URL = sim.url;
});
afterEach(() => {
  for (const [key, value] of [
    ["SERVICEAPI_TOKEN", saved.token],
    ["SERVICEAPI_BASE_URL", saved.url],
  ] as const) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

describe("data sources", () => {
  it("getProjects and getSites follow every cursor: ⌈N/100⌉ requests", async () => {
    const { sites } = await getSites({ projectId: project });
    expect(sites).toHaveLength(250);
    // The first seeded site: every field of the contract's site table, by the resource's names.
    const seeded = sim.seed.sites.find((site) => site.projectId === project)!;
    expect(seeded).toMatchObject({ name: "Acme Web 001", subdomain: "acme-web-001", is_default: true });
    expect(sites[0]).toEqual(siteInfo(seeded));
    expect(sim.requests("sites.list")).toHaveLength(3);
    const { projects } = await getProjects({ workspaceId: DEFAULT_IDS.acmeWorkspace });
    expect(projects.map((p) => p.name).sort()).toEqual(["Acme Docs", "Acme Web"]);
  });

  it("getProject and getSite return exactly one record, or say why not naming close names and no id", async () => {
    expect((await getProject({ name: "Acme Docs" })).id).toBe(DEFAULT_IDS.acmeDocs);
    const check = "Check the name (it is matched exactly, case included), or pass id.";
    await expect(getProject({ name: "Acme Wbe" })).rejects.toThrow(
      exactly(`getProject: no project is named "Acme Wbe" (4 projects listed); the closest: "Acme Web". ${check}`),
    );
    // A difference of case alone is the closest; the two other Acme projects are a typo away.
    await expect(getProject({ name: "acme doc" })).rejects.toThrow(
      exactly(`getProject: no project is named "acme doc" (4 projects listed); the closest: "Acme Docs". ${check}`),
    );
    await expect(getProject({ name: "Nope" })).rejects.toThrow(
      exactly(`getProject: no project is named "Nope" (4 projects listed, none with a close name). ${check}`),
    );
    await expect(getProject({ name: "Globex Shop", workspaceId: DEFAULT_IDS.acmeWorkspace })).rejects.toThrow(
      exactly(
        `getProject: no project is named "Globex Shop" in workspace ${DEFAULT_IDS.acmeWorkspace} (2 projects listed, none with a close name). ` +
          "Check the name (it is matched exactly, case included) and workspaceId, or pass id.",
      ),
    );
    const unknownId = "00000000-0000-4000-8000-000000000000";
    await expect(getProject({ id: unknownId })).rejects.toThrow(
      exactly(`getProject: no project has id "${unknownId}" (4 projects listed). Check the id and that the token can see the project.`),
    );
    await expect(getProject({ name: "Acme Docs", id: DEFAULT_IDS.acmeDocs })).rejects.toThrow(
      exactly("getProject: pass exactly one of `name` and `id`"),
    );

    const docs = DEFAULT_IDS.acmeDocs;
    const bySubdomain =
      "Look the site up by subdomain instead: a name changes when a Site resource renames the site, a subdomain does not.";
    await expect(getSite({ projectId: docs, name: "Acme Docs 04" })).rejects.toThrow(
      exactly(
        `getSite: no site is named "Acme Docs 04" in project ${docs} (3 sites listed); the closest: "Acme Docs 001", "Acme Docs 002", "Acme Docs 003". ${bySubdomain}`,
      ),
    );
    await expect(getSite({ projectId: docs, subdomain: "acme-doc-002" })).rejects.toThrow(
      exactly(
        `getSite: no site has subdomain "acme-doc-002" in project ${docs} (3 sites listed); the closest: "acme-docs-002", "acme-docs-001", "acme-docs-003". Check the subdomain.`,
      ),
    );
    sim.addSite({ projectId: docs, name: "Acme Docs 001", subdomain: "docs-twin" });
    await expect(getSite({ projectId: docs, name: "Acme Docs 001" })).rejects.toThrow(
      exactly(
        `getSite: 2 sites are named "Acme Docs 001" in project ${docs}: subdomain "acme-docs-001", subdomain "docs-twin". ` +
          "Look the site up by subdomain to choose.",
      ),
    );
    // Up to five are listed, then how many more.
    for (let i = 1; i <= 6; i++) sim.addSite({ projectId: docs, name: "Twin", subdomain: `twin-${i}` });
    const several = await getSite({ projectId: docs, name: "Twin" }).catch((e: Error) => e);
    expect(several).toBeInstanceOf(pulumi.RunError);
    expect((several as Error).message).toBe(
      `getSite: 6 sites are named "Twin" in project ${docs}: ` +
        'subdomain "twin-1", subdomain "twin-2", subdomain "twin-3", subdomain "twin-4", subdomain "twin-5", and 1 more. ' +
        "Look the site up by subdomain to choose.",
    );
    // One line wherever the SDK prints it: the stack is the message.
    expect((several as Error).stack).toBe((several as Error).message);
    expect((await getSite({ projectId: docs, subdomain: "docs-twin" })).name).toBe("Acme Docs 001");
    expect((await getSite({ projectId: docs, isDefault: true })).subdomain).toBe("acme-docs-001");
  });

  it("projects of one name are told apart by workspace, and by id only where they share one", async () => {
    const seed = defaultSeed();
    const twin = (n: number, workspaceId: string) => ({ id: seedId(`project:twin-${n}`), workspaceId, name: "Twin" });
    seed.projects.push(twin(1, DEFAULT_IDS.acmeWorkspace), twin(2, DEFAULT_IDS.globexWorkspace), twin(3, DEFAULT_IDS.globexWorkspace), {
      id: seedId("project:acme-web-globex"),
      workspaceId: DEFAULT_IDS.globexWorkspace,
      name: "Acme Web",
    });
    const twins = await simulator({ seed });
    process.env.SERVICEAPI_BASE_URL = twins.url;
    const [acme, globex] = [DEFAULT_IDS.acmeWorkspace, DEFAULT_IDS.globexWorkspace];
    await expect(getProject({ name: "Acme Web" })).rejects.toThrow(
      exactly(
        `getProject: 2 projects are named "Acme Web": one in workspace ${acme}, one in workspace ${globex}. Pass workspaceId or id to choose.`,
      ),
    );
    expect((await getProject({ name: "Acme Web", workspaceId: globex })).id).toBe(seedId("project:acme-web-globex"));
    await expect(getProject({ name: "Twin" })).rejects.toThrow(
      exactly(
        `getProject: 3 projects are named "Twin": one in workspace ${acme}, ` +
          `id ${seedId("project:twin-2")} in workspace ${globex}, id ${seedId("project:twin-3")} in workspace ${globex}. Pass workspaceId or id to choose.`,
      ),
    );
    await expect(getProject({ name: "Twin", workspaceId: globex })).rejects.toThrow(
      exactly(
        `getProject: 2 projects are named "Twin" in workspace ${globex}: ` +
          `id ${seedId("project:twin-2")} in workspace ${globex}, id ${seedId("project:twin-3")} in workspace ${globex}. Pass id to choose.`,
      ),
    );
  });

  it("a secret argument is quoted as a placeholder, with no close name (it would nearly tell the secret)", async () => {
    // The Output form knows its arguments are secret; its failure rejects every promise the Output
    // holds (its value, isKnown, isSecret): the value's gives the message, the others are caught.
    const failure = (output: pulumi.Output<unknown>) => {
      const internals = output as unknown as { promise(): Promise<unknown>; isKnown: Promise<boolean>; isSecret: Promise<boolean> };
      for (const held of [internals.isKnown, internals.isSecret]) held.catch(() => undefined);
      return internals.promise().then(
        () => "no failure",
        (e: Error) => e.message,
      );
    };
    expect(await failure(getProjectOutput({ name: pulumi.secret("Acme Wbe") }))).toBe(
      "getProjectOutput: no project is named (the secret value given) (4 projects listed). " +
        "Check the name (it is matched exactly, case included), or pass id.",
    );
    expect(await failure(getProjectOutput({ name: pulumi.secret("Acme Web"), workspaceId: DEFAULT_IDS.globexWorkspace }))).toBe(
      "getProjectOutput: no project is named (the secret value given) in the workspace given (2 projects listed). " +
        "Check the name (it is matched exactly, case included) and workspaceId, or pass id.",
    );
    expect(await failure(getSiteOutput({ projectId: DEFAULT_IDS.acmeDocs, subdomain: pulumi.secret("acme-docs-01") }))).toBe(
      "getSiteOutput: no site has subdomain (the secret value given) in the project given (3 sites listed). Check the subdomain.",
    );
  });

  it("Output forms: an unknown argument gives an unknown result without a request; a secret one a secret result", async () => {
    const unknownResult = getSitesOutput({ projectId: pulumi.output(pulumi.unknown) as pulumi.Output<string> });
    expect(await (unknownResult as unknown as { isKnown: Promise<boolean> }).isKnown).toBe(false);
    expect(sim.requests()).toEqual([]);
    const secretResult = getProjectsOutput({ workspaceId: pulumi.secret(DEFAULT_IDS.acmeWorkspace) });
    expect(await pulumi.isSecret(secretResult)).toBe(true);
    expect(sim.requests("projects.list")).toHaveLength(1);
  });

  it("nothing listening at the base URL: the message names the URL and the setting it came from", async () => {
    // A port nothing listens on: one the simulator held, then let go.
    const gone = await simulator();
    const url = gone.url;
    await gone.close();
    process.env.SERVICEAPI_BASE_URL = url;
    // No retries (each would wait its backoff in real time): the advice is the same after one attempt.
    pulumi.runtime.setConfig("serviceapi:maxRetries", "0");
    try {
      const error = await getProject({ name: "Acme Web" }).catch((e: Error) => e);
      expect((error as Error).message).toMatch(
        new RegExp(
          `^getProject: projects\\.list failed: connection error: connect ECONNREFUSED .* Nothing answered at ${url.replace(/[.]/g, "\\.")}, ` +
            "SERVICEAPI_BASE_URL in the environment: check the URL, and that the service runs there\\.$",
        ),
      );
    } finally {
      pulumi.runtime.setConfig("serviceapi:maxRetries", "3");
    }
  });
});
