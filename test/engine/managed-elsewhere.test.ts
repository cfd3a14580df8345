/**
 * No team clears another team's products: an adoption of a product another stack of the same state
 * backend manages is named at preview and refused at up (provider/resources/product/managed-elsewhere.ts),
 * under the real CLI, on one file backend shared by two projects. Team 1's stack (`catalog/prod`)
 * manages product P; team 2's stack (`team2/dev`) adopts P declaring only its title. Its preview
 * fails naming team 1's stack and the name it gives P, its up refuses with nothing sent to the
 * service; with serviceapi:adoptManaged=allow the preview warns and shows what the adoption clears
 * with the live values, and up adopts. Through the dynamic resources (adoptId) and the plugin (the
 * `import` option, and adoptId with a secret title); and through the index the catalog tool passes
 * (SERVICEAPI_OTHER_STACKS_INDEX), which replaces the backend's read.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ServiceApiClient, type ProductRecord } from "../../provider";
import { DEFAULT_IDS } from "../../simulator/seed";
import { otherStacksText } from "../../provider/resources/tool-protocol";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { engineSuite, step } from "./suite";
import { ENGINE_TIMEOUT_MS, EngineStack, expectFailure, wire, type Run } from "../../scripts/engine/driver";

const project = DEFAULT_IDS.acmeWeb;
const DESCRIPTION = "Everything in Starter, plus priority support, single sign-on and an audit log for every workspace.";
const LIVE = { title: "Pro", description: DESCRIPTION, slug: "pro", externalCheckoutUrl: "https://shop.example.com/pro" };

/** Our messages in a run, one per line (diagnostics only). */
function ours(run: Pick<Run<unknown>, "diagnostics">): string[] {
  return run.diagnostics.filter((d) => d.severity !== "debug" && d.message.includes("serviceapi: ")).map((d) => d.message.trim());
}

/** The refusal, after `adoptId ` or `the import `. */
const refusal = (verb: "names" | "takes over", participle: "Adopted" | "Imported") =>
  `${verb} a product that another stack of this state backend manages: organization/catalog/prod (as "pro"). ${participle} here too, ` +
  "the two stacks would undo each other's changes at every `pulumi up`, and a `pulumi destroy` of either would archive the product, " +
  'or set back its fields, under the other. Either that stack gives it up first (onDelete: "retain" on its resource, `pulumi up`, ' +
  "then remove the resource from its program and `pulumi up` again), or, for a deliberate hand-over, set serviceapi:adoptManaged to allow";

const allowed = (who: string, verb: string, participle: string) =>
  `${who}: ${verb} a product that another stack of this state backend manages: organization/catalog/prod (as "pro"). ` +
  `serviceapi:adoptManaged is allow, so it is ${participle}: from then on the two stacks undo each other's changes at every \`pulumi up\`, ` +
  "and a `pulumi destroy` of either archives the product, or sets back its fields, under the other, until that stack gives it up " +
  '(onDelete: "retain", `pulumi up`, then remove it from its program).';

const CHECK_READ = /serviceapi: the adoption check read (\d+) other stacks? of (.*) in \d+ ms\./;

describe("an adoption of a product another stack of the backend manages", { timeout: ENGINE_TIMEOUT_MS * 2 }, () => {
  const suite = engineSuite();
  let sim: Simulator;
  let client: ServiceApiClient;
  const stacks: EngineStack[] = [];
  beforeAll(() => {
    sim = suite.sim();
    client = new ServiceApiClient({ baseUrl: sim.url, token: sim.token });
    return () => client.close();
  });
  afterEach(async () => {
    // The second stack first: the first one's folder holds the backend.
    for (const stack of stacks.splice(0).reverse()) await stack.dispose();
  });

  /** Team 1's stack, `organization/catalog/prod`, manages product "pro" (created by its up). */
  async function team1(): Promise<{ stack: EngineStack; id: string; live: ProductRecord }> {
    const stack = await EngineStack.create(sim, { project: "catalog", stack: "prod" });
    stacks.push(stack);
    await stack.setSpec({ products: { pro: { projectId: project, ...LIVE } } });
    const up = await stack.up();
    // A plain up (no adoption) reads no other stack.
    expect(ours(up).filter((m) => CHECK_READ.test(m))).toEqual([]);
    const [resource] = await stack.resources("Product");
    return { stack, id: resource!.id, live: await client.updateProduct(resource!.id, {}) };
  }

  /** Team 2's stack in the same backend (another project), `options` added. */
  async function team2(first: EngineStack, options: Parameters<typeof EngineStack.create>[1] = {}): Promise<EngineStack> {
    const stack = await EngineStack.create(sim, {
      project: "team2",
      stack: "dev",
      ...options,
      env: { PULUMI_BACKEND_URL: first.env.PULUMI_BACKEND_URL!, ...options.env },
    });
    stacks.push(stack);
    return stack;
  }

  it("dynamic: team 2's preview fails naming team 1's stack, its up sends nothing; with adoptManaged=allow it warns, shows the live values it clears, and adopts", async () => {
    const { stack: first, id, live } = await team1();
    const second = await team2(first);
    await second.setSpec({ products: { "pro-plan": { projectId: project, title: "Pro plan", adoptId: id } } });

    await step("preview fails naming organization/catalog/prod and its name for the product, before any request", async () => {
      const failed = await expectFailure(second.preview());
      expect(failed.text).toContain(
        `pulumi-nodejs:dynamic/serviceapi:Product resource 'pro-plan' has a problem: adoptId ${refusal("names", "Adopted")}`,
      );
      expect(wire(sim)).toEqual([]);
    });

    await step("up refuses the same way: 0 requests to the service, the live record unchanged", async () => {
      const failed = await expectFailure(second.up());
      expect(failed.text).toContain(`resource 'pro-plan' has a problem: adoptId ${refusal("names", "Adopted")}`);
      expect(sim.requests()).toEqual([]);
      expect(await client.updateProduct(id, {})).toEqual(live);
      expect(await second.resources("Product")).toEqual([]);
    });

    await second.stack.setConfig("serviceapi:adoptManaged", { value: "allow" });

    await step("with allow, the preview warns naming the stack, and names what adoption clears with the live values", async () => {
      const preview = await second.preview();
      const messages = ours(preview);
      expect(messages.join("\n")).toContain(`serviceapi: ${allowed(`Product "pro-plan" (id ${id})`, "adoptId names", "adopted")}`);
      expect(messages.find((m) => m.includes("adoptId takes over"))).toContain(
        'will change it in one PATCH: sets title ("Pro" → "Pro plan"); clears description (now "Everything in Starter, plus priority support, ' +
          `single sign-o…" (${DESCRIPTION.length} characters)), slug (now "pro"), externalCheckoutUrl (now "https://shop.example.com/pro"). ` +
          "A field the program leaves out is cleared; declare it to keep its live value.",
      );
      // One read of the backend for the process: 1 other stack (team 1's).
      expect(messages.filter((m) => CHECK_READ.test(m)).map((m) => CHECK_READ.exec(m)!.slice(1, 3))).toEqual([
        ["1", `the state backend ${first.env.PULUMI_BACKEND_URL}`],
      ]);
    });

    await step("up adopts: the read, then one PATCH", async () => {
      const up = await second.up();
      expect(wire(sim).map((c) => c.body)).toEqual([{}, { title: "Pro plan", description: null, slug: null, externalCheckoutUrl: null }]);
      expect(ours(up).filter((m) => CHECK_READ.test(m))).toHaveLength(1);
    });
  });

  it("dynamic, secret inputs: the adoption's preview names a secret field without its values, and shows the live value it clears", async () => {
    const other = await client.createProduct({ projectId: project, title: "Board-only", description: "Public copy" });
    const alone = await EngineStack.create(sim);
    stacks.push(alone);
    await alone.setSpec({
      secretInputs: true,
      products: { board: { projectId: project, title: "Board-only plan 5f2", adoptId: other.id } },
    });
    const preview = await alone.preview();
    expect(ours(preview).find((m) => m.includes("adoptId takes over"))).toContain(
      'will change it in one PATCH: sets title (marked secret: not shown); clears description (now "Public copy").',
    );
    expect(preview.visible).not.toContain("Board-only plan 5f2");
    // Only this stack in its backend: nothing elsewhere, no warning.
    expect(ours(preview).filter((m) => m.includes("another stack"))).toEqual([]);
  });

  it("plugin (YAML): the import option is refused at preview and up; with allow it imports; adoptId with a secret title shows no value of it", async () => {
    const { stack: first, id, live } = await team1();
    const other = await client.createProduct({ projectId: project, title: "Board-only", description: "Public copy" });
    const program = (withBoard: boolean) =>
      [
        "name: team2",
        "runtime: yaml",
        "resources:",
        "  pro-plan:",
        "    type: serviceapi:index:Product",
        "    properties:",
        `      projectId: ${project}`,
        "      title: Pro plan",
        "    options:",
        `      import: ${project}/${id}`,
        ...(withBoard
          ? [
              "  board:",
              "    type: serviceapi:index:Product",
              "    properties:",
              `      projectId: ${project}`,
              "      title:",
              "        fn::secret: Board-only plan 5f2",
              `      adoptId: ${other.id}`,
            ]
          : []),
        "",
      ].join("\n");
    const second = await team2(first, { yaml: program(false), plugin: true });

    await step("preview fails naming the stack, before any request", async () => {
      const failed = await expectFailure(second.preview());
      expect(failed.text).toContain(`Product "pro-plan" (id ${id}): the import ${refusal("takes over", "Imported")}.`);
      expect(wire(sim)).toEqual([]);
    });

    await step("up refuses: no request for the product, the live record unchanged", async () => {
      const failed = await expectFailure(second.up());
      expect(failed.text).toContain(`Product "pro-plan" (id ${id}): the import ${refusal("takes over", "Imported")}.`);
      expect(sim.requests().filter((r) => r.path.endsWith(id))).toEqual([]);
      expect(await client.updateProduct(id, {})).toEqual(live);
    });

    await step("`pulumi import` is refused the same way", async () => {
      sim.clearRequests();
      const run = second.spawnCli(["import", "serviceapi:index:Product", "pro-cli", `${project}/${id}`, "--yes", "--non-interactive"]);
      expect(await run.exited).not.toBe(0);
      expect(run.output()).toContain(`Product "pro-cli" (id ${id}): the import ${refusal("takes over", "Imported")}.`);
      expect(sim.requests()).toEqual([]);
    });

    await second.stack.setConfig("serviceapi:adoptManaged", { value: "allow" });
    second.writeProgram(program(true));

    await step("with allow, the preview warns naming the stack; the secret title is named, never shown", async () => {
      const preview = await second.preview();
      const messages = ours(preview);
      expect(messages.join("\n")).toContain(`serviceapi: ${allowed(`Product "pro-plan" (id ${id})`, "the import takes over", "imported")}`);
      expect(messages.find((m) => m.includes(`Product "board"`) && m.includes("adoptId takes over"))).toContain(
        'will change it in one PATCH: sets title (marked secret: not shown); clears description (now "Public copy").',
      );
      expect(preview.visible).not.toContain("Board-only plan 5f2");
    });

    await step("up imports pro-plan and adopts board; the secret title stays encrypted in the state", async () => {
      const up = await second.up();
      expect(up.result.summary.resourceChanges).toMatchObject({ import: 1 });
      expect(second.stateFileText()).not.toContain("Board-only plan 5f2");
      expect((await client.updateProduct(other.id, {})).title).toBe("Board-only plan 5f2");
      // Imported, then updated to the program, which leaves out what team 1 had set: cleared, as allowed.
      const after = await client.updateProduct(id, {});
      expect([after.title, after.description, after.slug]).toEqual(["Pro plan", null, null]);
    });
  });

  it("the index the catalog tool passes (SERVICEAPI_OTHER_STACKS_INDEX) is read instead of the backend", async () => {
    const { stack: first, id } = await team1();
    // A stack of the backend whose state cannot be read: a read of the backend says so; a read of the index does not.
    const backend = first.env.PULUMI_BACKEND_URL!.replace(/^file:\/\//, "");
    mkdirSync(join(backend, ".pulumi", "stacks", "broken"), { recursive: true });
    writeFileSync(join(backend, ".pulumi", "stacks", "broken", "x.json"), "{ not json");
    const index = join(backend, "..", "other-stacks.json");
    writeFileSync(index, otherStacksText({ [id]: [{ stack: "organization/catalog/shard-7", name: "pro-7" }] }));

    const second = await team2(first);
    await second.setSpec({ products: { "pro-plan": { projectId: project, title: "Pro plan", adoptId: id } } });

    await step("without the index, the backend is read: team 1's stack is named, the unreadable stack said", async () => {
      const failed = await expectFailure(second.preview());
      expect(failed.text).toContain('organization/catalog/prod (as "pro")');
      expect(ours(failed).join("\n")).toContain(
        `serviceapi: the adoption check cannot see the products the stack organization/broken/x manages: the state backend ${first.env.PULUMI_BACKEND_URL} ` +
          "cannot be read: reading the stack organization/broken/x (.pulumi/stacks/broken/x.json): not JSON",
      );
    });

    await step("with the index: the stack it names, not the backend's; the unreadable stack is not read", async () => {
      const failed = await second.withEnv({ SERVICEAPI_OTHER_STACKS_INDEX: index }, () => expectFailure(second.preview()));
      expect(failed.text).toContain(
        "resource 'pro-plan' has a problem: adoptId names a product that another stack of this state backend manages: " +
          'organization/catalog/shard-7 (as "pro-7").',
      );
      expect(failed.text).not.toContain("organization/catalog/prod");
      expect(ours(failed).filter((m) => m.includes("cannot"))).toEqual([]);
      expect(
        ours(failed)
          .filter((m) => CHECK_READ.test(m))
          .map((m) => CHECK_READ.exec(m)!.slice(1, 3)),
      ).toEqual([["1", `the index ${index} (SERVICEAPI_OTHER_STACKS_INDEX)`]]);
      expect(wire(sim)).toEqual([]);
    });
  });
});
