/**
 * The scale bench's TypeScript program: `bench:count` products of one shape (title, slug,
 * description) through one face, chosen by `bench:face`:
 *  - `floor`: a do-nothing dynamic provider — what the engine, the Node.js runtime and a dynamic
 *    provider process cost with no work of ours (the baseline every ratio is taken against);
 *  - `dynamic`: this package's `Product` (the dynamic face);
 *  - `plugin`: the serviceapi plugin's `Product` through its generated TypeScript SDK
 *    (`@pulumi-serviceapi/serviceapi`, sdk/nodejs), run by the same Node.js language host.
 * The program does nothing else (one stack output: the count), so the faces differ only in the resource.
 */
import * as pulumi from "@pulumi/pulumi";

const config = new pulumi.Config("bench");
const face = config.require("face");
const count = config.requireNumber("count");
const projectId = config.require("projectId");

const doNothing: pulumi.dynamic.ResourceProvider = {
  async create(inputs: Record<string, unknown>) {
    return { id: String(inputs.slug), outs: inputs };
  },
};

class Noop extends pulumi.dynamic.Resource {
  constructor(name: string, props: Record<string, unknown>) {
    super(doNothing, name, props, {}, "bench", "Noop");
  }
}

function declare(name: string, args: Record<string, unknown>): void {
  if (face === "floor") {
    new Noop(name, args);
  } else if (face === "dynamic") {
    // Loaded only for this face, so the floor's program does not pay for the package.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Product } = require("pulumi-serviceapi") as typeof import("pulumi-serviceapi");
    new Product(name, args as never);
  } else if (face === "plugin") {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Product } = require("@pulumi-serviceapi/serviceapi") as typeof import("@pulumi-serviceapi/serviceapi");
    new Product(name, args as never);
  } else {
    throw new Error(`bench:face must be floor, dynamic or plugin (got ${face})`);
  }
}

for (let i = 0; i < count; i++) {
  declare(`product${i}`, {
    projectId,
    title: `Product ${i}`,
    slug: `product-${i}`,
    description: `Product ${i} of the scale bench, declared by one line of a program.`,
  });
}

export const products = count;
