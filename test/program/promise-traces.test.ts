/**
 * The resource classes build the SDK's resource without a formatted stack trace per promise
 * (`withoutPromiseTraces`, the largest per-resource cost of a TypeScript program's preview —
 * `npm run bench`, section 4), and leave `Error.stackTraceLimit` as they found it.
 */
import { createRequire } from "node:module";
import { join } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { Product, Site, Task } from "../../provider";
import { DEFAULT_IDS } from "../../simulator/seed";
import { REPO } from "../../scripts/repo";

beforeAll(async () => {
  // The SDK serializes a dynamic provider (`__provider`) after the constructor, from the module
  // objects; vitest's are not Node's, so that step is stubbed — this file looks at the constructor.
  const closure = createRequire(join(REPO, "package.json"))("@pulumi/pulumi/runtime/closure/serializeClosure") as {
    serializeFunction: (...args: unknown[]) => Promise<unknown>;
  };
  vi.spyOn(closure, "serializeFunction").mockResolvedValue({
    text: "exports.handler = {};",
    exportName: "handler",
    containsSecrets: false,
  });
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => ({ id: `${args.name}-id`, state: args.inputs }),
      call: (args) => args.inputs,
    },
    "project",
    "stack",
    true,
  );
});

/** Stack traces formatted while `construct` runs, by the number of frames each had. */
function tracesFormatted(construct: () => void): number[] {
  const formatted: number[] = [];
  const original = Error.prepareStackTrace;
  Error.prepareStackTrace = (error, frames) => {
    formatted.push(frames.length);
    return original ? original(error, frames) : `${String(error)}\n${frames.map((f) => `    at ${String(f)}`).join("\n")}`;
  };
  try {
    construct();
  } finally {
    Error.prepareStackTrace = original;
  }
  return formatted;
}

const productArgs = { projectId: DEFAULT_IDS.acmeWeb, title: "Pro", slug: "pro", description: "d" };

describe("resource classes and the SDK's promise stack traces", () => {
  const saved = process.env.PULUMI_DEBUG_PROMISE_LEAKS;
  afterEach(() => {
    if (saved === undefined) delete process.env.PULUMI_DEBUG_PROMISE_LEAKS;
    else process.env.PULUMI_DEBUG_PROMISE_LEAKS = saved;
  });

  it("Product, Site and Task format only the SDK's own source-position trace; a bare dynamic resource formats one per promise", () => {
    const withFrames = (traces: number[]) => traces.filter((n) => n > 0).length;
    // The SDK raises the limit itself to record where the resource was declared: that one trace stays.
    expect(withFrames(tracesFormatted(() => new Product("p1", productArgs)))).toBe(1);
    expect(
      withFrames(tracesFormatted(() => new Site("s1", { projectId: DEFAULT_IDS.acmeWeb, siteId: DEFAULT_IDS.acmeWeb, name: "n" }))),
    ).toBe(1);
    expect(
      withFrames(
        tracesFormatted(
          () => new Task("t1", { projectId: DEFAULT_IDS.acmeWeb, title: "t", prompt: "p", scheduledAt: "2027-01-04T09:00:00Z" }),
        ),
      ),
    ).toBe(1);

    // The control: the same properties on a dynamic resource that takes no such measure.
    const provider: pulumi.dynamic.ResourceProvider = { create: async () => ({ id: "x" }) };
    class Bare extends pulumi.dynamic.Resource {}
    const bare = withFrames(tracesFormatted(() => new Bare(provider, "bare", { ...productArgs }, {})));
    expect(bare).toBeGreaterThan(10);
  });

  it("leaves Error.stackTraceLimit as it was, also when the SDK's constructor throws", () => {
    const before = Error.stackTraceLimit;
    new Product("p2", productArgs);
    expect(Error.stackTraceLimit).toBe(before);
    expect(() => new Product(undefined as unknown as string, productArgs)).toThrow(/Missing resource name/);
    expect(Error.stackTraceLimit).toBe(before);
  });

  it("keeps every trace when PULUMI_DEBUG_PROMISE_LEAKS asks for them", () => {
    process.env.PULUMI_DEBUG_PROMISE_LEAKS = "true";
    const traces = tracesFormatted(() => new Product("p3", productArgs));
    expect(traces.filter((n) => n > 0).length).toBeGreaterThan(10);
  });
});
