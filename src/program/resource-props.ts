/**
 * The props a resource class hands to `pulumi.dynamic.Resource`, built in the program process.
 */
import * as pulumi from "@pulumi/pulumi";
import { NAME_KEY } from "../provider/stored-state";
import { guardStrings } from "./unicode-guard";
import { warnIfTokenNotSecret } from "./token-warning";

/**
 * - every output is listed (undefined unless the program set it) so the resource gets an Output
 *   for each; an output the program sets itself reaches `check`, which refuses it by name;
 * - string inputs pass the Unicode guard while the program's own strings are still visible;
 * - the `import` option is refused with what to do instead;
 * - the logical name travels as the hidden `__logicalName`, so the provider can name the resource in its
 *   messages without quoting a field value (any of which may be a secret).
 */
export function resourceProps(
  type: string,
  name: string,
  args: object,
  outputs: readonly string[],
  opts: pulumi.CustomResourceOptions | undefined,
): Record<string, unknown> {
  warnIfTokenNotSecret();
  if (opts?.import !== undefined) {
    // The engine would reach the dynamic-provider server's read with no properties, which fails
    // with "Cannot read properties of undefined (reading 'toJavaScript')"; say what works instead.
    throw new pulumi.RunError(
      `${type} "${name}": the \`import\` resource option does not work with Pulumi dynamic providers` +
        (type === "Product" ? '; to take over an existing product, set `adoptId: "<id>"` instead.' : "."),
    );
  }
  const listed = Object.fromEntries(outputs.map((key) => [key, undefined]));
  return { ...listed, ...guardStrings(args), [NAME_KEY]: name };
}

/** A resource's `Args`: its lifecycle's inputs, each accepting an `Input` (as SST derives `Input<Inputs["x"]>`). */
export type ResourceArgs<Inputs> = { [K in keyof Inputs]: pulumi.Input<Inputs[K]> };

/**
 * A resource's outputs as the class exposes them: every output of its lifecycle (`ProductOutputs`,
 * …) as an `Output`, minus the hidden `__` keys. The SDK sets one property per output on the
 * instance, so a class merges this interface instead of declaring each field again.
 */
export type ResourceOutputs<Outputs> = {
  readonly [K in keyof Outputs as K extends `__${string}` ? never : K]-?: pulumi.Output<Outputs[K]>;
};
