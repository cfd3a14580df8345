/**
 * What a user meets when things go wrong, under the real Pulumi CLI: bad input stopped at preview,
 * a missing token, adopting an existing product, a create whose follow-up PATCH fails, and a 429
 * storm. Every case checks the wire (no duplicates, nothing half-applied) and the text shown.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { NUMERIC_OPTIONS, ServiceApiClient } from "../../provider";
import { DEFAULT_IDS } from "../../simulator/seed";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { until } from "../../scripts/engine/async";
import { engineSuite } from "./suite";
import { ENGINE_TIMEOUT_MS, expectFailure, wire } from "../../scripts/engine/driver";

const project = DEFAULT_IDS.acmeDocs;

describe("failures under the Pulumi CLI", { timeout: ENGINE_TIMEOUT_MS }, () => {
  const suite = engineSuite();
  const newStack = suite.newStack;
  let sim: Simulator;
  beforeEach(() => {
    sim = suite.sim();
  });

  it("bad input fails preview naming each field, its problem and the limit, before any API request", async () => {
    const engine = await newStack();
    const site = sim.seed.sites.find((s) => s.projectId === project)!;
    // The engine stops a preview at the first resource that fails its check, so one kind at a time.
    await engine.setSpec({
      products: { big: { projectId: project, title: "x".repeat(1025), status: "published" as "active", externalCheckoutUrl: "not a url" } },
    });
    let text = (await expectFailure(engine.preview())).text;
    // The field and the limit, never the value (any input may be a secret).
    expect(text).toContain(
      "pulumi-nodejs:dynamic/serviceapi:Product resource 'big' has a problem: title must be 1 to 1024 characters long (got 1025)",
    );
    expect(text).toContain('status must be one of "active", "archived", "draft"');
    expect(text).toContain(
      "externalCheckoutUrl must be an absolute URI (RFC 3986: a scheme such as https:, ASCII only, no spaces, % only in %XX escapes)",
    );
    const messages = (await expectFailure(engine.preview())).diagnostics.map((d) => d.message).join("\n");
    expect(messages).toContain("title must be 1 to 1024 characters long (got 1025)");
    for (const value of ["xxxxxxxxxx", "published", "not a url"]) expect(messages).not.toContain(value);
    expect(wire(sim)).toEqual([]);

    await engine.setSpec({ sites: { bad: { projectId: project, siteId: site.id, name: "" } } });
    text = (await expectFailure(engine.preview())).text;
    expect(text).toContain("name must be 1 to 255 characters long (got 0)");
    expect(wire(sim)).toEqual([]);

    await engine.setSpec({
      tasks: { t: { projectId: project, title: "T", prompt: "P", scheduledAt: "next monday", rrule: "FREQ=DAILY;BYHOUR=25" } },
    });
    text = (await expectFailure(engine.preview())).text;
    expect(text).toContain("scheduledAt must be an RFC 3339 date-time such as 2026-07-11T09:00:00Z");
    expect(text).toMatch(/rrule [^\n]*BYHOUR/);
    expect(wire(sim)).toEqual([]);
    expect(text).not.toContain(sim.token);
  });

  it("a missing token is one error naming both ways to set it, and nothing is sent", async () => {
    const engine = await newStack({ token: null });
    await engine.setSpec({ products: { p: { projectId: project, title: "Needs a token" } } });
    const failed = await expectFailure(engine.preview());
    expect(failed.text).toContain(
      "serviceapi: no API token. Set it with `pulumi config set --secret serviceapi:token <token>` or the SERVICEAPI_TOKEN environment variable.",
    );
    expect(wire(sim)).toEqual([]);
  });

  it("adoptId takes over an existing product: an empty PATCH reads it, one PATCH fixes what differs, no POST", async () => {
    const client = new ServiceApiClient({ baseUrl: sim.url, token: sim.token });
    const legacy = await client.createProduct({ projectId: project, title: "Legacy", slug: "legacy" });
    await client.close();
    const before = sim.counts().products;
    const engine = await newStack();
    await engine.setSpec({ products: { legacy: { projectId: project, title: "Legacy plan", slug: "legacy", adoptId: legacy.id } } });
    const up = await engine.up();
    expect(up.result.summary.resourceChanges).toEqual({ create: 2 });
    expect(wire(sim)).toEqual([
      { operation: "products.update", method: "PATCH", path: `/api/v1/public/products/${legacy.id}`, body: {} },
      { operation: "products.update", method: "PATCH", path: `/api/v1/public/products/${legacy.id}`, body: { title: "Legacy plan" } },
    ]);
    expect(sim.counts().products).toBe(before);
    const [state] = await engine.resources("Product");
    expect(state!.id).toBe(legacy.id);
    // The next preview has nothing to do.
    expect((await engine.preview()).result.changeSummary).toEqual({ same: 2 });
  });

  it("a create whose status PATCH fails is recorded, and the next up finishes it with a PATCH, not a second product", async () => {
    const engine = await newStack();
    await engine.setSpec({ products: { launch: { projectId: project, title: "Launch", status: "active" } } });
    const before = sim.counts().products;
    // 1 attempt + 3 retries, all 500.
    sim.addFault({ operation: "products.update", kind: "error", status: 500, times: 4 });
    const failed = await expectFailure(engine.up());
    expect(failed.text).toMatch(
      /Product "launch" \(id [0-9a-f-]{36}\) was created, but setting its status failed: products\.update failed: 500/,
    );
    expect(failed.text).toContain("the next `pulumi up` sets the status with a PATCH and creates no second product");
    // The API's code, message, doc_url and request id reach the CLI output.
    expect(failed.text).toMatch(
      /products\.update failed: 500 [a-z_]+: .+? \(docs: http:\/\/127\.0\.0\.1:\d+\/_simulator\/errors\/[a-z_]+\) \[request id [^\]]+\]/,
    );
    expect(failed.text).not.toContain(sim.token);
    expect(sim.counts().products).toBe(before + 1);
    const [recorded] = await engine.resources("Product");
    expect(recorded!.outputs.status).toBe("draft");

    const up = await engine.up();
    expect(up.result.summary.resourceChanges).toEqual({ same: 1, update: 1 });
    expect(wire(sim)).toEqual([
      { operation: "products.update", method: "PATCH", path: `/api/v1/public/products/${recorded!.id}`, body: { status: "active" } },
    ]);
    expect(sim.counts().products).toBe(before + 1);
    expect((await engine.preview()).result.changeSummary).toEqual({ same: 2 });
  });

  it("a create that may have reached the service (a timeout) is recorded as unconfirmed and says how to go on", async () => {
    const engine = await newStack({ config: { "serviceapi:timeoutMs": "300" } });
    await engine.setSpec({ products: { slow: { projectId: project, title: "Slow" } } });
    sim.addFault({ operation: "products.create", kind: "delay", delayMs: 1000 });
    const failed = await expectFailure(engine.up());
    expect(failed.text).toContain(
      "products.create failed: no response within 300 ms. The request was not retried because the record may have been created",
    );
    expect(failed.text).toContain(
      'The stack records Product \\"slow\\" as an unconfirmed create, so no later `pulumi preview` or `pulumi up` creates it ' +
        'again by itself: if the product exists on the service, set `adoptId: \\"<its id>\\"` on it; if it does not, run `pulumi up --replace <its URN>`',
    );
    expect(sim.requests("products.create")).toHaveLength(1);
    // The delayed create was processed after all: one product, which the re-run (test/engine/rerun.test.ts) does not duplicate.
    await until("the delayed create", () => sim.products().some((p) => p.title === "Slow"), 5_000);
  });

  it("a server that always answers 429: up fails with one message after 1 + maxRateLimitRetries requests, nothing created", async () => {
    const engine = await newStack();
    await engine.setSpec({ products: { limited: { projectId: project, title: "Always limited" } } });
    const before = sim.counts().products;
    sim.addFault({ operation: "products.create", kind: "error", status: 429, retryAfter: "0", times: 1000 });
    const failed = await expectFailure(engine.up());
    const retries = NUMERIC_OPTIONS.maxRateLimitRetries.default;
    const gaveUp = `Answered 429 on ${retries + 1} attempts; serviceapi:maxRateLimitRetries (${retries}) allows no further retry.`;
    const errors = failed.diagnostics.filter((d) => d.severity === "error");
    expect(errors.filter((d) => d.message.includes(gaveUp))).toHaveLength(1);
    expect(errors.find((d) => d.message.includes(gaveUp))!.message).toMatch(
      /products\.create failed: 429 rate_limited: simulated 429 \(fault \d+\)/,
    );
    expect(sim.requests("products.create")).toHaveLength(retries + 1);
    expect(sim.requests().every((r) => r.status === 429)).toBe(true);
    expect(sim.counts().products).toBe(before);
    expect(await engine.resources("Product")).toEqual([]);
    expect(failed.text).not.toContain(sim.token);
  });

  it("a 429 storm during up: every resource lands exactly once", async () => {
    const engine = await newStack();
    const products = Object.fromEntries(
      Array.from({ length: 12 }, (_, i) => [`p${i}`, { projectId: project, title: `Storm ${i}`, status: "active" as const }]),
    );
    await engine.setSpec({ products });
    const before = sim.counts().products;
    sim.setRateLimit({ limit: 4, windowMs: 500 });
    // Two 429s however busy the machine: on a slow one the creates may arrive too spread out for the window to refuse any.
    sim.addFault({ operation: "products.create", kind: "error", status: 429, times: 2 });
    const up = await engine.up();
    expect(up.result.summary.resourceChanges).toEqual({ create: 13 });
    const log = sim.requests();
    expect(log.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(2);
    expect(log.filter((r) => r.operation === "products.create" && r.status === 201)).toHaveLength(12);
    expect(log.filter((r) => r.operation === "products.update" && r.status === 200)).toHaveLength(12);
    expect(sim.counts().products).toBe(before + 12);
    expect(up.text).not.toContain(sim.token);
  });
});
