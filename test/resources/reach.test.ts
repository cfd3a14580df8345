/**
 * What a provider process says about the service it reached (the context, `resources/context.ts`):
 * the summary line counting what it sent by kind and naming the command; the line naming the
 * origin a command that uses the recorded settings talks to, and the warning naming each setting
 * the stack config or the environment now gives otherwise (names, never values); the advice on a
 * refused token or an unreachable service, by where the setting came from.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { parseCommand, type PulumiCommand } from "../../provider/resources/command";
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
  /** The CLI's arguments after `pulumi`. */
  command?: string;
  projectDir?: string;
  owner?: SettingsOwner;
}

function context(sim: Simulator, setup: Setup = {}) {
  const messages: { severity: Severity; message: string }[] = [];
  const command: PulumiCommand | undefined =
    setup.command === undefined ? undefined : parseCommand(["pulumi", ...setup.command.split(" ")]);
  const ctx = new ProviderContext({
    sink: (severity, message) => messages.push({ severity, message }),
    env: setup.env ?? {},
    command: () => command,
    ...(setup.projectDir !== undefined && { projectDir: setup.projectDir }),
  });
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

function stackFolder(stackFile: string): string {
  const dir = mkdtempSync(join(tmpdir(), "serviceapi-reach-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, "Pulumi.yaml"), "name: reach\nruntime: nodejs\n");
  writeFileSync(join(dir, "Pulumi.test.yaml"), stackFile);
  return dir;
}

describe("what a provider process says about the service it reached", () => {
  it("the summary counts requests by kind and names the command; a process that did nothing says nothing", async () => {
    const sim = await simulator();
    const { ctx } = context(sim, { command: "up --skip-preview --stack test" });
    expect(ctx.summary()).toBeUndefined();
    const { id, outs } = await handlers.create(ctx, { name: "p", inputs });
    await handlers.read(ctx, { name: "p", id, state: outs });
    await ctx.client().listProjects().toArray();
    expect(ctx.summary()).toBe("this update sent 3 requests: 1 read (empty PATCH), 1 lookup, 1 write");
    const unknown = context(sim);
    await handlers.read(unknown.ctx, { name: "p", id, state: outs });
    expect(unknown.ctx.summary()).toBe("this command sent 1 request: 1 read (empty PATCH), 0 lookups, 0 writes");
    const preview = context(sim, { command: "preview --refresh" });
    await handlers.read(preview.ctx, { name: "p", id, state: outs });
    preview.ctx.end();
    expect(preview.messages).toEqual([
      {
        severity: "info",
        message: `serviceapi: the refresh step of this preview talks to ${sim.url} (the settings recorded at the last \`pulumi up\`).`,
      },
      { severity: "info", message: "serviceapi: this preview sent 1 request: 1 read (empty PATCH), 0 lookups, 0 writes" },
    ]);
  });

  it("a refresh on recorded settings names its origin, and each setting the stack config or the environment now gives otherwise, by name", async () => {
    const sim = await simulator();
    const { id, state } = await existing(sim);
    const projectDir = stackFolder(
      [
        "config:",
        "  serviceapi:baseUrl: http://127.0.0.1:9",
        "  serviceapi:token:",
        "    secure: v1:abc",
        '  serviceapi:maxRetries: "1"',
        "",
      ].join("\n"),
    );
    const { ctx, messages } = context(sim, {
      command: "refresh --skip-preview --stack test",
      projectDir,
      env: { SERVICEAPI_TOKEN: "another_token_0003" },
    });
    await handlers.read(ctx, { name: "p", id, state });
    await handlers.read(ctx, { name: "p", id, state });
    expect(messages).toEqual([
      { severity: "info", message: `serviceapi: this refresh talks to ${sim.url} (the settings recorded at the last \`pulumi up\`).` },
      {
        severity: "warning",
        message:
          "serviceapi: this refresh uses the settings recorded at the last `pulumi up`, and serviceapi:baseUrl (changed in the stack config), " +
          "serviceapi:maxRetries (added to the stack config), SERVICEAPI_TOKEN (set in the environment, but the recorded serviceapi:token wins) " +
          "now say otherwise. To use the current settings, run `pulumi refresh --run-program` (it records them), or `pulumi up` first.",
      },
    ]);
    expect(JSON.stringify(messages)).not.toContain("127.0.0.1:9");
    expect(JSON.stringify(messages)).not.toContain("another_token_0003");
  });

  it("with --run-program, or a command that is not known, nothing is said about recorded settings", async () => {
    const sim = await simulator();
    const { id, state } = await existing(sim);
    for (const command of ["refresh --run-program", undefined]) {
      const { ctx, messages } = context(sim, { ...(command !== undefined && { command }), projectDir: stackFolder("config: {}\n") });
      await handlers.read(ctx, { name: "p", id, state });
      expect(messages).toEqual([]);
    }
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
    expect(await advice({ config: { baseUrl: sim.url }, env: { SERVICEAPI_TOKEN: "wrong_token_0001" }, command: "refresh" })).toBe(
      "The service refused the token: it is SERVICEAPI_TOKEN in the environment `pulumi` runs in; set the right one there.",
    );
    expect(await advice({ config: wrong, command: "refresh" })).toBe(
      "The service refused the token: this refresh uses serviceapi:token as recorded at the last `pulumi up`, not the stack config as it is now. " +
        "If it was rotated since, run `pulumi refresh --run-program` (which records the current one), or `pulumi up` first.",
    );
    expect(await advice({ config: wrong, command: "up" }, "create")).toBe(
      "The service refused the token: it is serviceapi:token in the stack config; set the right one with " +
        "`pulumi config set --secret serviceapi:token <token>`, or remove it to use SERVICEAPI_TOKEN.",
    );
    expect(
      await advice({
        config: wrong,
        command: "refresh",
        owner: { explicit: true, urn: "urn:pulumi:t::p::pulumi:providers:serviceapi::acme" },
      }),
    ).toBe("The service refused the token: it is the explicit provider's `token` argument; check what the program passes.");
    expect(await advice({ config: wrong })).toBe(
      "The service refused the token. If serviceapi:token changed since the last `pulumi up`: `pulumi refresh` and `pulumi destroy` " +
        "still use the one recorded then; run them with `--run-program`.",
    );
  });

  it("a service that does not answer is named by the setting that gave its URL, and where that came from", async () => {
    const sim = await simulator();
    const { id, state } = await existing(sim);
    const dead = "http://127.0.0.1:9";
    const fast = { maxRetries: "0" };
    const advice = async (setup: Setup) => {
      const { ctx } = context(sim, setup);
      return ((await handlers.read(ctx, { name: "p", id, state }).catch((e: unknown) => e)) as { advice: string }).advice;
    };
    expect(await advice({ config: { token: sim.token, baseUrl: dead, ...fast }, command: "destroy" })).toBe(
      `Nothing answered at ${dead}, the serviceapi:baseUrl recorded at the last \`pulumi up\` (this destroy does not read the stack config ` +
        "as it is now). If the service moved, run `pulumi destroy --run-program`; otherwise check that it runs there.",
    );
    expect(await advice({ config: { token: sim.token, baseUrl: dead, ...fast }, command: "preview --refresh --run-program" })).toBe(
      `Nothing answered at ${dead}, serviceapi:baseUrl in the stack config: check the URL, and that the service runs there.`,
    );
    expect(await advice({ config: { token: sim.token, ...fast }, env: { SERVICEAPI_BASE_URL: dead }, command: "refresh" })).toBe(
      `Nothing answered at ${dead}, SERVICEAPI_BASE_URL in the environment: check the URL, and that the service runs there.`,
    );
    // Products go to publicBaseUrl when it is set: that is the setting named.
    expect(await advice({ config: { token: sim.token, baseUrl: sim.url, publicBaseUrl: dead, ...fast }, command: "up --refresh" })).toBe(
      `Nothing answered at ${dead}, the serviceapi:publicBaseUrl recorded at the last \`pulumi up\` (the refresh step of this update does ` +
        "not read the stack config as it is now). If the service moved, run `pulumi up --refresh --run-program`; otherwise check that it runs there.",
    );
  });
});
