/**
 * What a provider process says about the service it reached (the context, `resources/context.ts`):
 * the summary line counting what it sent by kind; nothing about the settings before a read or a
 * delete (the provider is not told which command runs, nor whether its settings are the ones
 * recorded at the last `pulumi up`); the advice on a refused token or an unreachable service, by
 * where the setting came from, naming both cases where a read or a delete cannot tell them apart.
 */
import { describe, expect, it, onTestFinished } from "vitest";
import { ProviderContext, type Severity, type SettingsOwner } from "../../provider/resources/context";
import { product } from "../../provider/resources/product";
import { readSettings } from "../../provider/resources/settings";
import { withDefaults } from "../../provider/resources/with-defaults";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { DEFAULT_IDS } from "../../simulator/seed";
import { simulator } from "../helpers";

const handlers = withDefaults(product);
const inputs = { projectId: DEFAULT_IDS.acmeDocs, title: "Reach" };

interface Setup {
  /** `serviceapi:*` config handed to the provider (recorded or current, as the command goes). */
  config?: Record<string, string>;
  env?: NodeJS.ProcessEnv;
  owner?: SettingsOwner;
}

function context(sim: Simulator, setup: Setup = {}) {
  const messages: { severity: Severity; message: string }[] = [];
  const ctx = new ProviderContext({ sink: (severity, message) => messages.push({ severity, message }), env: setup.env ?? {} });
  const config = setup.config ?? { token: sim.token, baseUrl: sim.url };
  ctx.useSettings(() => readSettings((key) => config[key], setup.env ?? {}), setup.owner);
  onTestFinished(() => ctx.close());
  return { ctx, messages };
}

/** A product on `sim`, and its stored state, as a refresh finds them. */
async function existing(sim: Simulator) {
  const { ctx } = context(sim);
  const { id, outs } = await handlers.create(ctx, { name: "p", inputs });
  return { id, state: outs };
}

describe("what a provider process says about the service it reached", () => {
  it("the summary counts requests by kind; a process that did nothing says nothing", async () => {
    const sim = await simulator();
    const { ctx } = context(sim);
    expect(ctx.summary()).toBeUndefined();
    const { id, outs } = await handlers.create(ctx, { name: "p", inputs });
    await handlers.read(ctx, { name: "p", id, state: outs });
    await ctx.client().listProjects().toArray();
    expect(ctx.summary()).toBe("this provider process sent 3 requests: 1 read (empty PATCH), 1 lookup, 1 write");
    const reader = context(sim);
    await handlers.read(reader.ctx, { name: "p", id, state: outs });
    reader.ctx.end();
    expect(reader.messages).toEqual([
      { severity: "info", message: "serviceapi: this provider process sent 1 request: 1 read (empty PATCH), 0 lookups, 0 writes" },
    ]);
  });

  it("a read or a delete says nothing of the settings it uses before it sends: the provider cannot tell recorded from current", async () => {
    const sim = await simulator();
    const { id, state } = await existing(sim);
    // A SERVICEAPI_TOKEN beside serviceapi:token (which wins), as a refresh on recorded settings may see it: not named.
    const { ctx, messages } = context(sim, { env: { SERVICEAPI_TOKEN: "another_token_0003" } });
    await handlers.read(ctx, { name: "p", id, state });
    await handlers.read(ctx, { name: "p", id, state });
    expect(messages).toEqual([]);
  });

  it("a refused token's advice says where the token came from and what to do there", async () => {
    const sim = await simulator();
    const { id, state } = await existing(sim);
    const advice = async (setup: Setup, operation: "read" | "create" = "read") => {
      const { ctx } = context(sim, setup);
      const failed = (await (
        operation === "read" ? handlers.read(ctx, { name: "p", id, state }) : handlers.create(ctx, { name: "p", inputs })
      ).catch((e: unknown) => e)) as Error & { advice: string };
      expect(failed.message).toMatch(/^products\.(update|create) failed: 401 unauthorized: invalid public API token /);
      return failed.advice;
    };
    const wrong = { token: "wrong_token_0001", baseUrl: sim.url };
    expect(await advice({ config: { baseUrl: sim.url }, env: { SERVICEAPI_TOKEN: "wrong_token_0001" } })).toBe(
      "The service refused the token: it is SERVICEAPI_TOKEN in the environment `pulumi` runs in; set the right one there.",
    );
    // A read may run on the token recorded at the last up or on the stack config's now: the advice names both.
    expect(await advice({ config: wrong })).toBe(
      "The service refused the token: it is serviceapi:token, as recorded at the last `pulumi up` for `pulumi refresh`, `pulumi destroy` " +
        "and the refresh step of `--refresh` (unless run with `--run-program`), else as the stack config sets it now. If it was rotated " +
        "since that `pulumi up`, run the command with `--run-program`, or `pulumi up` first; otherwise set the right one with " +
        "`pulumi config set --secret serviceapi:token <token>`.",
    );
    // A create runs the program: the stack config as it is now.
    expect(await advice({ config: wrong }, "create")).toBe(
      "The service refused the token: it is serviceapi:token in the stack config; set the right one with " +
        "`pulumi config set --secret serviceapi:token <token>`, or remove it to use SERVICEAPI_TOKEN.",
    );
    expect(await advice({ config: wrong, owner: { explicit: true, urn: "urn:pulumi:t::p::pulumi:providers:serviceapi::acme" } })).toBe(
      "The service refused the token: it is the explicit provider's `token` argument; check what the program passes.",
    );
  });

  it("a service that does not answer is named by the setting that gave its URL, and where that came from", async () => {
    const sim = await simulator();
    const { id, state } = await existing(sim);
    const dead = "http://127.0.0.1:9";
    const fast = { maxRetries: "0" };
    const advice = async (setup: Setup, operation: "read" | "create" = "read") => {
      const { ctx } = context(sim, setup);
      const failing = operation === "read" ? handlers.read(ctx, { name: "p", id, state }) : handlers.create(ctx, { name: "p", inputs });
      return ((await failing.catch((e: unknown) => e)) as { advice: string }).advice;
    };
    const eitherSettings =
      "as recorded at the last `pulumi up` for `pulumi refresh`, `pulumi destroy` and the refresh step of `--refresh` " +
      "(unless run with `--run-program`), else as the stack config sets it now. If the service moved, run the command with " +
      "`--run-program`, or `pulumi up` first; otherwise check that it runs there.";
    expect(await advice({ config: { token: sim.token, baseUrl: dead, ...fast } })).toBe(
      `Nothing answered at ${dead}, serviceapi:baseUrl, ${eitherSettings}`,
    );
    expect(await advice({ config: { token: sim.token, baseUrl: dead, ...fast } }, "create")).toBe(
      `Nothing answered at ${dead}, serviceapi:baseUrl in the stack config: check the URL, and that the service runs there.`,
    );
    expect(await advice({ config: { token: sim.token, ...fast }, env: { SERVICEAPI_BASE_URL: dead } })).toBe(
      `Nothing answered at ${dead}, SERVICEAPI_BASE_URL in the environment: check the URL, and that the service runs there.`,
    );
    // Products go to publicBaseUrl when it is set: that is the setting named.
    expect(await advice({ config: { token: sim.token, baseUrl: sim.url, publicBaseUrl: dead, ...fast } })).toBe(
      `Nothing answered at ${dead}, serviceapi:publicBaseUrl, ${eitherSettings}`,
    );
  });
});
