/**
 * The props a resource class hands to `pulumi.dynamic.Resource`, built in the program process.
 */
// Pulumi's SDK by module, not `@pulumi/pulumi`: its index also loads the Automation API (npm's
// arborist, pacote, …), which a program that declares only products has no use for — the catalog's
// stack programs (`light-resource.ts`), a process per stack, would each load it for nothing.
import { RunError } from "@pulumi/pulumi/errors";
import { getOrganization, getProject, getStack } from "@pulumi/pulumi/metadata";
import { isSecret, output, type Input, type Output } from "@pulumi/pulumi/output";
import type { CustomResourceOptions } from "@pulumi/pulumi/resource";
import { propertyNames, type ResourceFields } from "../resources/field-table";
import { SECRETS_KEY, STACK_KEY } from "../resources/program-hints";
import { NAME_KEY } from "../resources/stored-state";
import { noteInputProblems } from "./input-problems";
import { guardStrings } from "./unicode-guard";
import { warnIfTokenNotSecret } from "./token-warning";

/**
 * - every output is listed (undefined unless the program set it) so the resource gets an Output
 *   for each; an output the program sets itself reaches `check`, which refuses it by name;
 * - string inputs pass the Unicode guard while the program's own strings are still visible, and
 *   the field table's checks, so one preview names every bad resource (`input-problems.ts`);
 * - the `import` option is refused with what to do instead;
 * - the logical name travels as the hidden `__logicalName`, so the provider can name the resource in its
 *   messages without quoting a field value (any of which may be a secret);
 * - so do the stack the program runs in and the names of the inputs it passed as secrets
 *   (`resources/program-hints.ts`), which the engine tells a dynamic provider nowhere: an adoption's
 *   check looks for the product in the backend's other stacks, and its preview shows no secret value.
 */
export function resourceProps<I>(
  fields: ResourceFields<I>,
  name: string,
  args: object,
  opts: CustomResourceOptions | undefined,
): Record<string, unknown> {
  const type = fields.resource;
  warnIfTokenNotSecret();
  if (opts?.import !== undefined) {
    // The engine would reach the dynamic-provider server's read with no properties, which fails
    // with "Cannot read properties of undefined (reading 'toJavaScript')"; say what works instead.
    throw new RunError(
      `${type} "${name}": the \`import\` resource option does not work with Pulumi dynamic providers` +
        (type === "Product" ? '; to take over an existing product, set `adoptId: "<id>"` instead.' : "."),
    );
  }
  const listed = Object.fromEntries(propertyNames(fields).map((key) => [key, undefined]));
  const guarded = guardStrings(args);
  noteInputProblems(fields, name, guarded);
  return { ...listed, ...guarded, [NAME_KEY]: name, ...stackHint(), [SECRETS_KEY]: secretNames(args) };
}

/** `{__stack: "organization/project/stack"}`, or nothing where the SDK cannot say (a program under mocks). */
function stackHint(): Record<string, string> {
  try {
    return { [STACK_KEY]: `${getOrganization()}/${getProject()}/${getStack()}` };
  } catch {
    return {};
  }
}

/** The names of the inputs in `args` whose values are secret: an output of names only, known at preview too. */
function secretNames(args: object): Output<string[]> {
  const entries = Object.entries(args as Record<string, unknown>);
  return output(
    Promise.all(entries.map(async ([key, value]) => ((await isSecret(output(value))) ? [key] : []))).then((found) => found.flat()),
  );
}

/** A resource's `Args`: its lifecycle's inputs, each accepting an `Input` (as SST derives `Input<Inputs["x"]>`). */
export type ResourceArgs<Inputs> = { [K in keyof Inputs]: Input<Inputs[K]> };

/**
 * A resource's outputs as the class exposes them: every output of its lifecycle (`ProductOutputs`,
 * …) as an `Output`, minus the hidden `__` keys. The SDK sets one property per output on the
 * instance, so a class merges this interface instead of declaring each field again.
 */
export type ResourceOutputs<Outputs> = {
  readonly [K in keyof Outputs as K extends `__${string}` ? never : K]-?: Output<Outputs[K]>;
};

/**
 * Lets a resource class run the SDK's constructor without a stack trace per promise, and returns
 * what puts things back (call it in a `finally` around `super(…)`).
 *
 * Why: the SDK makes about four promises per property of a resource while its constructor runs,
 * and stamps each with `new Error().stack` — kept only for `PULUMI_DEBUG_PROMISE_LEAKS`. In a
 * TypeScript program ts-node's source-map-support formats every one of those traces, frame by
 * frame; with the eleven properties of a Product that was the largest cost of a preview (1,000
 * products: 9.0 s against 6.5 s for a do-nothing resource of four properties; 5.95 s without the
 * traces — `npm run bench`, section 4). With `Error.stackTraceLimit` at 0 for those synchronous
 * lines the traces are empty and cost nothing. Not touched: the SDK's own record of where the
 * resource was declared (it raises the limit itself while it takes it), errors thrown later
 * (the limit is back before `super` returns), and programs run with `PULUMI_DEBUG_PROMISE_LEAKS`,
 * which keep every trace.
 */
export function withoutPromiseTraces(): () => void {
  if (process.env.PULUMI_DEBUG_PROMISE_LEAKS) return () => {};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  return () => {
    Error.stackTraceLimit = limit;
  };
}
