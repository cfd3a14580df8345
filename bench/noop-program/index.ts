/**
 * The baseline for `pulumi up` timing: one do-nothing dynamic resource per product in the same
 * `engine:spec`, so the difference to the real stack is our provider and the API round trips.
 */
import * as pulumi from "@pulumi/pulumi";

const doNothing: pulumi.dynamic.ResourceProvider = {
  async create(inputs: Record<string, unknown>) {
    return { id: String(inputs.title), outs: inputs };
  },
};

class Noop extends pulumi.dynamic.Resource {
  constructor(name: string, props: Record<string, unknown>) {
    super(doNothing, name, props, {}, "bench", "Noop");
  }
}

const spec = new pulumi.Config("engine").requireObject<{ products?: Record<string, Record<string, unknown>> }>("spec");
export const count = Object.entries(spec.products ?? {}).map(([name, args]) => new Noop(name, { ...args })).length;
