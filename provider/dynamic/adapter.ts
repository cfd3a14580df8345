/**
 * The dynamic-provider face: maps Pulumi's dynamic-provider signature onto a resource's lifecycle
 * (`../provider/`). What `__provider` in the state requires is one of `product.ts`, `site.ts`,
 * `task.ts` here, each the exports of `dynamicProvider(…)`, reached through the package's
 * `pulumi-serviceapi/dynamic/<type>` subpaths (and, for stacks made before the restructure,
 * `pulumi-serviceapi/lifecycle/<type>`, kept forever).
 */
import type * as pulumi from "@pulumi/pulumi";
import { PartialFailure, adviseOnFailure } from "../resources/errors";
import type { Lifecycle, Values } from "../resources/lifecycle";
import { readSettings } from "../resources/settings";
import { context } from "./context";
import { expectPrintOf } from "./expected-prints";

/** What the dynamic-provider server adds to every resource's inputs and outputs. */
export interface DynamicKeys {
  /** The serialized provider: `exports.handler = …; const provider = require("pulumi-serviceapi/dynamic/product")`. */
  __provider: string;
}

/**
 * The dynamic provider for one lifecycle, on the process's context. What the lifecycle leaves out,
 * the face supplies: inputs as given, the engine's own diff, the stored state at refresh, the
 * stored outputs at update, nothing at delete.
 */
export function dynamicProvider<Outputs extends object>(lifecycle: Lifecycle<Outputs>, ctx = context) {
  return {
    /**
     * The engine hands dynamic providers the whole stack config (secrets decrypted), with
     * `SERVICEAPI_*` as the fallback. Called once per resource type per provider process.
     */
    configure: async (req: pulumi.dynamic.ConfigureRequest) => {
      ctx.useSettings(() => readSettings((key) => req.config.get(`serviceapi:${key}`)));
    },
    check: printedOnce(async (olds: Values, news: Values): Promise<pulumi.dynamic.CheckResult<Values & DynamicKeys>> => {
      // The server puts `__provider` back into the inputs itself.
      const { inputs, failures } = lifecycle.check ? await lifecycle.check(ctx, olds, news) : { inputs: news, failures: [] };
      return { inputs: inputs as Values & DynamicKeys, failures };
    }),
    diff: printedOnce(async (id: string, olds: Outputs, news: Values): Promise<pulumi.dynamic.DiffResult> => {
      if (!lifecycle.diff) return {};
      // The dynamic-provider server forwards no per-field diff; `changed` is for the plugin.
      const { changes, replaces, deleteBeforeReplace } = await lifecycle.diff(ctx, id, olds, news);
      return { changes, replaces, deleteBeforeReplace };
    }),
    create: (inputs: Values & DynamicKeys) =>
      recordedOnFailure(
        inputs.__provider,
        adviseOnFailure(() => lifecycle.create(ctx, inputs)),
      ),
    read: printedOnce(
      adviseOnFailure(async (id: string, props?: Outputs): Promise<pulumi.dynamic.ReadResult<Outputs>> => {
        if (!lifecycle.read) return { id, ...(props !== undefined && { props }) };
        return (await lifecycle.read(ctx, id, props!)) as pulumi.dynamic.ReadResult<Outputs>;
      }),
    ),
    update: (id: string, olds: Outputs, news: Values & DynamicKeys) =>
      recordedOnFailure(
        news.__provider,
        adviseOnFailure(async () => {
          return lifecycle.update ? lifecycle.update(ctx, id, olds, news) : { outs: olds };
        }),
      ),
    delete: printedOnce(
      adviseOnFailure(async (id: string, props: Outputs) => {
        await lifecycle.remove?.(ctx, id, props);
      }),
    ),
  } satisfies pulumi.dynamic.ResourceProvider<Values & DynamicKeys, Outputs>;
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
      id: error.id,
      properties: { ...error.outputs, __provider: provider },
      reasons: [error.message],
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
