/**
 * The provider's settings: `serviceapi:*` stack config first, `SERVICEAPI_*` second, each refused
 * at preview with a message naming the key as the user sets it, the range and the value; and the
 * client's give-ups named the same way.
 */
import { describe, expect, it } from "vitest";
import { product } from "../../provider/resources/product";
import { withDefaults } from "../../provider/resources/with-defaults";
import { readSettings } from "../../provider/resources/settings";
import { DEFAULT_IDS } from "../../simulator/seed";
import { harness } from "./harness";

describe("settings", () => {
  it("a numeric config value that is not an integer in range names the key, the range and the value", () => {
    const base = { token: "sim_test_token", baseUrl: "http://127.0.0.1:1" };
    expect(() => readSettings((k) => ({ ...base, timeoutMs: "abc" })[k as "token"], {})).toThrow(
      'serviceapi:timeoutMs must be an integer from 1 to 3600000 (got "abc")',
    );
    expect(() => readSettings((k) => ({ ...base, maxRetries: "11" })[k as "token"], {})).toThrow(
      'serviceapi:maxRetries must be an integer from 0 to 10 (got "11")',
    );
    expect(readSettings((k) => ({ ...base, maxRetries: " 2 " })[k as "token"], {}).client.maxRetries).toBe(2);
  });

  it("a base URL or token the client refuses fails when the settings are read (at preview), named by where it was set", () => {
    expect(() => readSettings((k) => ({ token: "sim_test_token", baseUrl: "http://api.example.com" })[k as "token"], {})).toThrow(
      /^serviceapi:baseUrl must use https:\/\//,
    );
    expect(() =>
      readSettings(() => undefined, { SERVICEAPI_TOKEN: "sim_test_token", SERVICEAPI_BASE_URL: "http://api.example.com" }),
    ).toThrow(/^SERVICEAPI_BASE_URL must use https:\/\//);
    expect(() => readSettings((k) => ({ token: "sim_test_token", baseUrl: "127.0.0.1:18950" })[k as "token"], {})).toThrow(
      'serviceapi:baseUrl must be an absolute URL such as https://api.example.com (got "127.0.0.1:18950")',
    );
    expect(() => readSettings((k) => ({ token: "tok-a", baseUrl: "https://api.example.com" })[k as "token"], {})).toThrow(
      "token is too short (5 characters; at least 8): check SERVICEAPI_TOKEN or serviceapi:token",
    );
  });

  it("429 give-ups say serviceapi:maxRetryAfterMs and serviceapi:maxRateLimitRetries; nothing is created", async () => {
    const { ctx, sim } = await harness({ maxRetryAfterMs: "5000", maxRateLimitRetries: "1", minRateLimitDelayMs: "10" });
    const inputs = { projectId: DEFAULT_IDS.acmeWeb, title: "Pro plan" };
    sim.addFault({ operation: "products.create", kind: "error", status: 429, retryAfter: "120" });
    const { create } = withDefaults(product);
    const tooLong = await create(ctx, { name: "p", inputs }).catch((e: unknown) => e);
    expect((tooLong as Error).message).toMatch(
      / The server asked to wait 120000 ms, more than serviceapi:maxRetryAfterMs \(5000 ms\); not retried\.$/,
    );
    sim.addFault({ operation: "products.create", kind: "error", status: 429, retryAfter: "0", times: 2 });
    const tooMany = await create(ctx, { name: "p", inputs }).catch((e: unknown) => e);
    expect((tooMany as Error).message).toMatch(
      / Answered 429 on 2 attempts; serviceapi:maxRateLimitRetries \(1\) allows no further retry\.$/,
    );
    expect(sim.requests("products.create")).toHaveLength(3);
    expect(sim.counts().products).toBe(0);
  });
});
