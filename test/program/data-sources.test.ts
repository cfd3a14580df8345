/**
 * The data sources in the program process, against the simulator: every page followed, exactly one
 * record or a message naming the candidates, and the Output forms' unknown and secret results.
 */
import * as pulumi from "@pulumi/pulumi";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getProject, getProjects, getProjectsOutput, getSite, getSites, getSitesOutput } from "../../provider";
import { DEFAULT_IDS } from "../../simulator/seed";
import type { Simulator } from "../../simulator";
import { simulator } from "../helpers";

const project = DEFAULT_IDS.acmeWeb;
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
    expect(sites[0]).toEqual({ id: expect.any(String), name: "Acme Web 001", subdomain: "acme-web-001", isDefault: true });
    expect(sim.requests("sites.list")).toHaveLength(3);
    const { projects } = await getProjects({ workspaceId: DEFAULT_IDS.acmeWorkspace });
    expect(projects.map((p) => p.name).sort()).toEqual(["Acme Docs", "Acme Web"]);
  });

  it("getProject and getSite return exactly one record or say why not", async () => {
    expect((await getProject({ name: "Acme Docs" })).id).toBe(DEFAULT_IDS.acmeDocs);
    await expect(getProject({ name: "Nope" })).rejects.toThrow(
      new RegExp(
        '^getProject: no project is named "Nope"; the 4 listed projects are: ' +
          `"Acme Web" \\(id ${DEFAULT_IDS.acmeWeb}, workspace ${DEFAULT_IDS.acmeWorkspace}\\), .*\\. Check the name \\(it is matched exactly, case included\\)\\.$`,
      ),
    );
    await expect(getProject({ name: "Acme Docs", id: DEFAULT_IDS.acmeDocs })).rejects.toThrow(
      "getProject: pass exactly one of `name` and `id`",
    );
    sim.addSite({ projectId: DEFAULT_IDS.acmeDocs, name: "Acme Docs 001", subdomain: "docs-twin" });
    await expect(getSite({ projectId: DEFAULT_IDS.acmeDocs, name: "Acme Docs 001" })).rejects.toThrow(
      `getSite: 2 sites are named "Acme Docs 001" in project ${DEFAULT_IDS.acmeDocs}: "Acme Docs 001" (subdomain "acme-docs-001", id `,
    );
    // Up to five candidates are listed, then how many more.
    for (let i = 1; i <= 6; i++) sim.addSite({ projectId: DEFAULT_IDS.acmeDocs, name: "Twin", subdomain: `twin-${i}` });
    const several = await getSite({ projectId: DEFAULT_IDS.acmeDocs, name: "Twin" }).catch((e: Error) => e);
    expect(several).toBeInstanceOf(pulumi.RunError);
    expect((several as Error).message).toMatch(
      new RegExp(
        `^getSite: 6 sites are named "Twin" in project ${DEFAULT_IDS.acmeDocs}: ` +
          '"Twin" \\(subdomain "twin-1", id [0-9a-f-]{36}\\), (("Twin" \\(subdomain "twin-\\d", id [0-9a-f-]{36}\\)), ){4}and 1 more\\. ' +
          "Look the site up by subdomain to choose\\.$",
      ),
    );
    // One line wherever the SDK prints it: the stack is the message.
    expect((several as Error).stack).toBe((several as Error).message);
    expect((await getSite({ projectId: DEFAULT_IDS.acmeDocs, subdomain: "docs-twin" })).name).toBe("Acme Docs 001");
    expect((await getSite({ projectId: DEFAULT_IDS.acmeDocs, isDefault: true })).subdomain).toBe("acme-docs-001");
  });

  it("Output forms: an unknown argument gives an unknown result without a request; a secret one a secret result", async () => {
    const unknownResult = getSitesOutput({ projectId: pulumi.output(pulumi.unknown) as pulumi.Output<string> });
    expect(await (unknownResult as unknown as { isKnown: Promise<boolean> }).isKnown).toBe(false);
    expect(sim.requests()).toEqual([]);
    const secretResult = getProjectsOutput({ workspaceId: pulumi.secret(DEFAULT_IDS.acmeWorkspace) });
    expect(await pulumi.isSecret(secretResult)).toBe(true);
    expect(sim.requests("projects.list")).toHaveLength(1);
  });
});
