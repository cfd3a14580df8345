/**
 * The plugin's configuration, under the real CLI: two explicit provider resources with two tokens
 * and two base URLs in one program each reach their own service; a bad provider setting fails
 * preview naming the key; the token never reaches the output.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { DEFAULT_IDS } from "../../simulator/seed";
import { ENGINE_TIMEOUT_MS, REPO, expectFailure, type EngineStack } from "../../scripts/engine/driver";
import { twoAccountsSuite } from "./suite";

describe("explicit plugin providers", { timeout: ENGINE_TIMEOUT_MS }, () => {
  const accounts = twoAccountsSuite();
  const newStack = accounts.newStack;
  let acme: Simulator;
  let globex: Simulator;
  beforeEach(() => {
    acme = accounts.acme();
    globex = accounts.globex();
  });

  /** The two-provider program, configured with both services' tokens and URLs. */
  async function twoProviders(): Promise<EngineStack> {
    // No default provider configuration at all: only the explicit providers' arguments.
    const engine = await newStack({ program: join(REPO, "test", "engine", "yaml-two-providers"), plugin: true, token: null });
    await engine.stack.removeConfig("serviceapi:baseUrl");
    await engine.stack.setConfig("acmeToken", { value: acme.token, secret: true });
    await engine.stack.setConfig("acmeUrl", { value: acme.url });
    await engine.stack.setConfig("globexToken", { value: globex.token, secret: true });
    await engine.stack.setConfig("globexUrl", { value: globex.url });
    await engine.stack.setConfig("projectId", { value: DEFAULT_IDS.acmeDocs });
    return engine;
  }

  it("two providers, two tokens, two base URLs: each product lands on its own service", async () => {
    const engine = await twoProviders();
    const up = await engine.up();
    expect(up.result.summary.resourceChanges).toMatchObject({ create: 5 });
    expect(acme.products().map((p) => p.title)).toEqual(["Acme plan"]);
    expect(globex.products().map((p) => p.title)).toEqual(["Globex plan"]);
    expect(up.text).not.toContain(acme.token);
    expect(up.text).not.toContain(globex.token);
    expect(engine.stateFileText()).not.toContain(acme.token);
  });

  it("a provider argument out of range fails preview naming the key and the range, before any request", async () => {
    const engine = await twoProviders();
    const yaml = join(engine.dir, "Pulumi.yaml");
    writeFileSync(yaml, readFileSync(yaml, "utf8").replace("initialRetryDelayMs: 20", "initialRetryDelayMs: 600000"));
    acme.clearRequests();
    const failed = await expectFailure(engine.preview());
    expect(failed.text).toContain("serviceapi:initialRetryDelayMs must be an integer from 0 to 60000");
    expect(acme.requests()).toEqual([]);
  });

  it("a bad default-provider setting fails preview of a program without lookups, before any request", async () => {
    const plain = await newStack({
      plugin: true,
      yaml: [
        "name: plain",
        "runtime: yaml",
        "resources:",
        "  p:",
        "    type: serviceapi:index:Product",
        "    properties:",
        `      projectId: ${DEFAULT_IDS.acmeDocs}`,
        "      title: Plain",
        "",
      ].join("\n"),
    });
    for (const [key, value, message] of [
      [
        "serviceapi:baseUrl",
        "127.0.0.1:18950",
        'serviceapi:baseUrl must be an absolute URL such as https://api.example.com (got "127.0.0.1:18950")',
      ],
      ["serviceapi:baseUrl", "ftp://x", "serviceapi:baseUrl must use https://"],
      ["serviceapi:token", "tok-a", "token is too short (5 characters; at least 8): check SERVICEAPI_TOKEN or serviceapi:token"],
    ] as const) {
      await plain.stack.setConfig(key, { value, secret: key === "serviceapi:token" });
      acme.clearRequests();
      const failed = await expectFailure(plain.preview());
      expect(failed.text).toContain(message);
      expect(acme.requests()).toEqual([]);
      await plain.stack.setConfig(key, { value: key === "serviceapi:token" ? acme.token : acme.url, secret: key === "serviceapi:token" });
    }
    expect((await plain.preview()).result.changeSummary).toEqual({ create: 2 });
  });
});
