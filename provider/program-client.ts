/**
 * Data sources run in the program process (dynamic providers cannot serve invokes), so they read
 * `serviceapi:*` with `pulumi.Config` — the same keys and environment fallbacks as the resources —
 * and use a short-lived client that is closed after each call, so no socket outlives the program.
 */
import * as pulumi from "@pulumi/pulumi";
import { ServiceApiClient } from "./client";
import { readSettings } from "./settings";

export async function withProgramClient<T>(use: (client: ServiceApiClient) => Promise<T>): Promise<T> {
  const config = new pulumi.Config("serviceapi");
  const client = new ServiceApiClient(readSettings((key) => config.get(key)).client);
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

/**
 * The Output form of a data source, as Pulumi's generated `…Output` functions behave: an unknown
 * argument (or an unknown id in `dependsOn`) gives an unknown result at preview, and a secret
 * argument gives a secret result.
 */
export function invokeOutput<A, R>(
  args: pulumi.Input<A> | pulumi.Inputs, opts: pulumi.InvokeOutputOptions | undefined, call: (args: A) => Promise<R>,
): pulumi.Output<R> {
  const deps = dependencyIds(opts?.dependsOn);
  return pulumi.all([pulumi.output(args as pulumi.Input<A>), ...deps]).apply(([resolved]) => call(resolved as A));
}

function dependencyIds(dependsOn: pulumi.InvokeOutputOptions["dependsOn"]): pulumi.Output<unknown>[] {
  if (dependsOn === undefined) return [];
  const list = Array.isArray(dependsOn) ? dependsOn : [dependsOn];
  return list
    .filter((r): r is pulumi.Resource => pulumi.Resource.isInstance(r))
    .map((r) => (pulumi.CustomResource.isInstance(r) ? r.id : r.urn));
}

/** The one record matching a lookup, or an error that says whether there were none or several. */
export function exactlyOne<T extends { id: string }>(fn: string, what: string, matches: T[], listed: number, hint: string): T {
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) throw new Error(`${fn}: no ${what} (${listed} listed). ${hint}`);
  throw new Error(`${fn}: ${matches.length} match ${what}: ${matches.map((m) => m.id).join(", ")}. ${hint}`);
}
