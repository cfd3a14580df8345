/**
 * The dynamic face as the dynamic-provider server calls it (its exports' signatures), on a fresh
 * context against the simulator: the logical name a dynamic provider is never told is taken from
 * the `__logicalName` the program's resource class adds, kept beside the outputs for read and
 * delete, read back from old state, and absent from state written before names were kept.
 */
import { describe, expect, it } from "vitest";
import { dynamicProvider } from "../../provider/dynamic/adapter";
import { product } from "../../provider/resources/product";
import { DEFAULT_IDS } from "../../simulator/seed";
import { harness } from "../resources/harness";

const project = DEFAULT_IDS.acmeWeb;
const PROVIDER = 'exports.handler = require("pulumi-serviceapi/dynamic/product")';

describe("the dynamic face", () => {
  it("keeps the logical name in the inputs and outputs it stores, and names the record by it", async () => {
    const { ctx, messages } = await harness();
    const face = dynamicProvider(product, ctx);
    const declared = { projectId: project, title: "Pro plan", slug: null, __logicalName: "pro", __provider: PROVIDER };
    const checked = await face.check({}, declared);
    expect(checked).toEqual({ inputs: { projectId: project, title: "Pro plan", __logicalName: "pro" }, failures: [] });
    const { id, outs } = await face.create({ ...checked.inputs, __provider: PROVIDER });
    expect(outs).toMatchObject({ title: "Pro plan", __logicalName: "pro" });
    expect(messages.at(-1)!.message).toBe(`serviceapi: created Product "pro" ${id}`);
    // The server forwards no per-field diff: only what it reads.
    expect(await face.diff(id, outs, { ...checked.inputs, title: "Pro plan 2" })).toEqual({ changes: true, replaces: [] });
    const read = await face.read(id, outs);
    expect(read.props).toMatchObject({ __logicalName: "pro" });
    await face.delete(id, { ...outs, onDelete: "retain" });
    expect(messages.at(-1)!.message).toBe(
      `serviceapi: Product "pro" (id ${id}): nothing sent (onDelete: retain); it stays on the service as it is and is no longer managed by this stack.`,
    );
  });

  it("state written before names were kept is read as it is, and its messages name the record by id", async () => {
    const { ctx, messages, sim } = await harness();
    const face = dynamicProvider(product, ctx);
    const { id, outs } = await face.create({ projectId: project, title: "Old", __provider: PROVIDER });
    expect(outs).not.toHaveProperty("__logicalName");
    sim.clearRequests();
    await face.delete(id, { ...outs, onDelete: "retain" });
    expect(messages.at(-1)!.message).toBe(
      `serviceapi: Product ${id}: nothing sent (onDelete: retain); it stays on the service as it is and is no longer managed by this stack.`,
    );
    expect(sim.requests()).toEqual([]);
  });

  it("a partial failure is recorded with the provider and the name, so later reads and deletes have both", async () => {
    const { ctx, sim } = await harness({ initialRetryDelayMs: "1", maxRetryDelayMs: "5" });
    const face = dynamicProvider(product, ctx);
    sim.addFault({ operation: "products.update", kind: "error", status: 500, times: 4 });
    const error = (await face
      .create({ projectId: project, title: "Launch", status: "active", __logicalName: "launch", __provider: PROVIDER })
      .catch((e: unknown) => e)) as Error & { id: string; properties: Record<string, unknown>; reasons: string[] };
    expect(error.properties).toMatchObject({ status: "draft", __logicalName: "launch", __provider: PROVIDER });
    expect(error.reasons).toEqual([error.message]);
    expect(error.message).toContain(`Product "launch" (id ${error.id}) was created, but setting its status failed`);
  });
});
