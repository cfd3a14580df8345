/**
 * The dynamic-provider face: maps Pulumi's dynamic-provider signature onto a resource's lifecycle
 * (`../lifecycle/`). What `__provider` in the state requires is one of `product.ts`, `site.ts`,
 * `task.ts` here, each the exports of `dynamicProvider(…)`, reached through the package's
 * `pulumi-serviceapi/lifecycle/<type>` subpaths.
 */
import type * as pulumi from "@pulumi/pulumi";
import { readSettings } from "../settings";
import { PartialFailure, adviseOnFailure } from "../lifecycle/errors";
import { useSettings } from "../lifecycle/service";
import type { Lifecycle } from "../lifecycle/types";
import { expectPrintOf } from "./expected-prints";

/** What the dynamic-provider server adds to every resource's inputs and outputs. */
export interface DynamicKeys {
  /** The serialized provider: `exports.handler = …; const provider = require("pulumi-serviceapi/lifecycle/product")`. */
  __provider: string;
}

export function dynamicProvider<Inputs extends object, Outputs extends object>(lifecycle: Lifecycle<Inputs, Outputs>) {
  return {
    /**
     * The engine hands dynamic providers the whole stack config (secrets decrypted), with
     * `SERVICEAPI_*` as the fallback. Called once per resource type per provider process.
     */
    configure: async (req: pulumi.dynamic.ConfigureRequest) => {
      useSettings(() => readSettings((key) => req.config.get(`serviceapi:${key}`)));
    },
    check: printedOnce(async (olds: object, news: object) => {
      const result = await lifecycle.check(olds as Record<string, unknown>, news as Record<string, unknown>);
      // The server puts `__provider` back into the inputs itself.
      return result as pulumi.dynamic.CheckResult<Inputs & DynamicKeys>;
    }),
    diff: printedOnce((id: string, olds: Outputs, news: Inputs) => lifecycle.diff(id, olds, news)),
    create: (inputs: Inputs & DynamicKeys) => recordedOnFailure(inputs.__provider, adviseOnFailure(() => lifecycle.create(inputs))),
    read: printedOnce(adviseOnFailure(async (id: string, props?: Outputs) => (await lifecycle.read(id, props!)) as pulumi.dynamic.ReadResult<Outputs>)),
    update: (id: string, olds: Outputs, news: Inputs & DynamicKeys) => recordedOnFailure(news.__provider, adviseOnFailure(() => lifecycle.update(id, olds, news))),
    delete: printedOnce(adviseOnFailure((id: string, props: Outputs) => lifecycle.remove(id, props))),
  } satisfies pulumi.dynamic.ResourceProvider<Inputs & DynamicKeys, Outputs>;
}

/**
 * A `PartialFailure` in the shape the dynamic-provider server turns into a partial failure: the
 * engine records `id` with `properties` as the outputs and shows `reasons` (not `message`). The
 * server does not add `__provider` to those properties, and later reads and deletes need it.
 */
async function recordedOnFailure<R>(provider: string, operation: () => Promise<R>): Promise<R> {
  try {
    return await operation();
  } catch (error) {
    if (!(error instanceof PartialFailure)) throw error;
    throw Object.assign(new Error(error.message), {
      id: error.id, properties: { ...error.outputs, __provider: provider }, reasons: [error.message],
    });
  }
}

/** An error meant for the user is printed once, by the engine; a bug (TypeError, RangeError, ReferenceError) keeps its stack. */
function printedOnce<A extends unknown[], R>(method: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args: A) => {
    try {
      return await method(...args);
    } catch (error) {
      if (error instanceof Error && !(error instanceof TypeError) && !(error instanceof RangeError) && !(error instanceof ReferenceError)) {
        expectPrintOf(error);
      }
      throw error;
    }
  };
}
