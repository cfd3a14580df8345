/**
 * The dynamic-provider face: maps Pulumi's dynamic-provider signature onto a resource's lifecycle
 * (`../resources/`), through `withDefaults`, as the plugin does. What `__provider` in the state
 * requires is one of `product.ts`, `site.ts`, `task.ts` here, each the exports of
 * `dynamicProvider(…)`, reached through the package's `pulumi-serviceapi/dynamic/<type>` subpaths
 * (and, for stacks made before the restructure, `pulumi-serviceapi/lifecycle/<type>`, kept forever).
 *
 * What is this face's own: the logical name. A dynamic provider is told nothing of the resource
 * but its values, so the program's resource class puts the name in the inputs (`__logicalName`),
 * and this face keeps it beside the outputs too — read and delete see only those. Each request's
 * `name` is taken from there (new inputs first, then the state); state from before names were kept
 * has none, and its messages name the record by id. Likewise the stack the program runs in and the
 * inputs it marked secret, which only `check` needs and no state keeps (`resources/program-hints.ts`).
 */
import type * as pulumi from "@pulumi/pulumi";
import { PartialFailure, isBug } from "../resources/errors";
import type { Lifecycle, Values } from "../resources/lifecycle";
import { readSettings } from "../resources/settings";
import { programHints } from "../resources/program-hints";
import { nameIn, withName } from "../resources/stored-state";
import { withDefaults, type Handlers } from "../resources/with-defaults";
import { context } from "./context";
import { expectPrintOf } from "./expected-prints";

/** What the dynamic-provider server adds to every resource's inputs and outputs. */
export interface DynamicKeys {
  /** The serialized provider: `exports.handler = …; const provider = require("pulumi-serviceapi/dynamic/product")`. */
  __provider: string;
}

/** The dynamic provider for one lifecycle, on the process's context. */
export function dynamicProvider<I extends object, O extends object>(lifecycle: Lifecycle<I, O>, ctx = context) {
  const handlers: Handlers = withDefaults(lifecycle);
  return {
    /**
     * The engine hands dynamic providers the whole stack config (secrets decrypted), with
     * `SERVICEAPI_*` as the fallback. Called once per resource type per provider process.
     */
    configure: async (req: pulumi.dynamic.ConfigureRequest) => {
      ctx.useSettings(() => readSettings((key) => req.config.get(`serviceapi:${key}`)));
    },
    check: printedOnce(async (olds: Values, news: Values): Promise<pulumi.dynamic.CheckResult<Values & DynamicKeys>> => {
      const name = nameIn(news) ?? nameIn(olds);
      // What the program tells this face alone (its stack, its secret inputs) is read here and kept nowhere.
      const hints = programHints(news);
      if (hints.stack !== undefined) ctx.noteOwnStack(hints.stack);
      const { inputs, failures } = await handlers.check(ctx, { name, olds, news, secrets: hints.secrets });
      // The server puts `__provider` back into the inputs itself; the name is ours to keep.
      return { inputs: kept(inputs, name) as Values & DynamicKeys, failures };
    }),
    diff: printedOnce(async (id: string, olds: Values, news: Values): Promise<pulumi.dynamic.DiffResult> => {
      // The dynamic-provider server forwards no per-field diff; `changed` is for the plugin.
      const { changes, replaces, deleteBeforeReplace } = await handlers.diff(ctx, { name: nameIn(news) ?? nameIn(olds), id, olds, news });
      return { changes, replaces, deleteBeforeReplace };
    }),
    create: async (inputs: Values & DynamicKeys) => {
      const name = nameIn(inputs);
      const { id, outs } = await recordedOnFailure(inputs.__provider, name, () => handlers.create(ctx, { name, inputs }));
      return { id, outs: kept(outs, name) };
    },
    read: printedOnce(async (id: string, props?: Values): Promise<pulumi.dynamic.ReadResult<Values>> => {
      const name = nameIn(props);
      const { props: state, ...found } = await handlers.read(ctx, { name, id, state: props ?? {} });
      return state === undefined ? found : { ...found, props: kept(state, name) };
    }),
    update: async (id: string, olds: Values, news: Values & DynamicKeys) => {
      const name = nameIn(news) ?? nameIn(olds);
      const { outs } = await recordedOnFailure(news.__provider, name, () => handlers.update(ctx, { name, id, olds, news }));
      return { outs: kept(outs, name) };
    },
    delete: printedOnce(async (id: string, props: Values) => {
      await handlers.remove(ctx, { name: nameIn(props), id, state: props });
    }),
  } satisfies pulumi.dynamic.ResourceProvider<Values & DynamicKeys, Values>;
}

/** What the engine stores for the resource: the lifecycle's values, and the logical name beside them. */
function kept(values: object, name: string | undefined): Values {
  return withName(values as Values, name);
}

/**
 * A `PartialFailure` in the shape the dynamic-provider server turns into a partial failure: the
 * engine records `id` with `properties` as the outputs and shows `reasons` (not `message`). The
 * server does not add `__provider` to those properties, and later reads and deletes need it, as
 * they need the name.
 */
async function recordedOnFailure<R>(provider: string, name: string | undefined, operation: () => Promise<R>): Promise<R> {
  try {
    return await operation();
  } catch (error) {
    if (!(error instanceof PartialFailure)) throw error;
    throw Object.assign(new Error(error.message), {
      id: error.id,
      properties: { ...withName(error.outputs, name), __provider: provider },
      reasons: [error.message],
    });
  }
}

/** An error meant for the user is printed once, by the engine; a bug keeps its stack trace (`isBug`). */
function printedOnce<A extends unknown[], R>(method: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args: A) => {
    try {
      return await method(...args);
    } catch (error) {
      if (error instanceof Error && !isBug(error)) expectPrintOf(error);
      throw error;
    }
  };
}
