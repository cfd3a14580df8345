/**
 * Data sources run in the program process (dynamic providers cannot serve invokes), so they read
 * `serviceapi:*` with `pulumi.Config` — the same keys and environment fallbacks as the resources —
 * and use a short-lived client that is closed after each call, so no socket outlives the program.
 */
import * as pulumi from "@pulumi/pulumi";
import { ConnectionError, ServiceApiClient } from "../client";
import { LookupError } from "../resources/lookups";
import { readSettings, type ProviderSettings } from "../resources/settings";
import { warnIfTokenNotSecret } from "./token-warning";

/**
 * A data source's failure as Pulumi shows it best: one line, no stack trace (`RunError`), once.
 *
 * When the result of an `…Output` data source feeds resources, the SDK rejects each of them with
 * the *same* error object and prefixes its message each time (`error serializing property
 * "projectId": …`, in `runtime/rpc.js`); it then reports that object once. The message is fixed
 * here so the user reads what went wrong, not how it travelled.
 */
export class DataSourceError extends pulumi.RunError {
  constructor(message: string) {
    super(message);
    this.name = "DataSourceError";
    Object.defineProperty(this, "message", { get: () => message, set: () => {}, enumerable: false, configurable: true });
    // When the program has already returned (the lookup feeds a resource and nothing awaits it),
    // the SDK's first unhandled-rejection handler prints `err.stack`, not the RunError's message
    // (`@pulumi/pulumi/cmd/run/index.js`): the stack is the message, so that print is one line too.
    this.stack = message;
  }
}

/**
 * A lookup that reached nothing names the setting, as a resource's failure does (`resources/errors.ts`):
 * the lookups list projects and sites, which the API serves at `baseUrl`.
 */
function unreachableAdvice(error: unknown, settings: ProviderSettings): string {
  if (!(error instanceof ConnectionError) || !error.unreachable) return "";
  const where = settings.sources.baseUrl === "env" ? "SERVICEAPI_BASE_URL in the environment" : "serviceapi:baseUrl in the stack config";
  return ` Nothing answered at ${settings.client.baseUrl}, ${where}: check the URL, and that the service runs there.`;
}

/** A data source's arguments as its `…Output` form takes them: each may be an `Input`. */
export type InputArgs<A> = { [K in keyof A]: pulumi.Input<A[K]> };

export async function withProgramClient<T>(fn: string, use: (client: ServiceApiClient) => Promise<T>): Promise<T> {
  warnIfTokenNotSecret();
  let client: ServiceApiClient;
  let settings: ProviderSettings;
  try {
    const config = new pulumi.Config("serviceapi");
    settings = readSettings((key) => config.get(key));
    client = new ServiceApiClient(settings.client);
  } catch (error) {
    throw new DataSourceError(`${fn}: ${(error as Error).message}`);
  }
  try {
    return await use(client);
  } catch (error) {
    if (error instanceof LookupError) throw new DataSourceError(error.message);
    throw new DataSourceError(`${fn}: ${(error as Error).message}${unreachableAdvice(error, settings)}`);
  } finally {
    await client.close();
  }
}

/**
 * The Output form of a data source, as Pulumi's generated `…Output` functions behave: an unknown
 * argument (or an unknown id in `dependsOn`) gives an unknown result at preview, and a secret
 * argument gives a secret result. `call` learns whether the arguments are secret, so its messages
 * can leave their values out.
 */
export function invokeOutput<A, R>(
  args: pulumi.Input<A> | pulumi.Inputs,
  opts: pulumi.InvokeOutputOptions | undefined,
  call: (args: A, secret: boolean) => Promise<R>,
): pulumi.Output<R> {
  const resolvedArgs = pulumi.output(args as pulumi.Input<A>);
  const deps = dependencyIds(opts?.dependsOn);
  return pulumi.all([resolvedArgs, ...deps]).apply(async ([resolved]) => call(resolved as A, await pulumi.isSecret(resolvedArgs)));
}

/**
 * A data source's two forms over one lookup, `getX(args)` and `getXOutput(args)`: each opens its own
 * client and names itself in its messages (`fn`, then `fn` + "Output"), and the Output form tells
 * `find` whether its arguments are secret. Written once, so no data source calls its lookup its own way.
 */
export function dataSource<A, R>(fn: string, find: (client: ServiceApiClient, fn: string, args: A, secret: boolean) => Promise<R>) {
  const outputFn = `${fn}Output`;
  return {
    call: (args: A): Promise<R> => withProgramClient(fn, (client) => find(client, fn, args, false)),
    output: (args: InputArgs<A>, opts: pulumi.InvokeOutputOptions | undefined): pulumi.Output<R> =>
      invokeOutput<A, R>(args, opts, (a, secret) => withProgramClient(outputFn, (client) => find(client, outputFn, a, secret))),
  };
}

function dependencyIds(dependsOn: pulumi.InvokeOutputOptions["dependsOn"]): pulumi.Output<unknown>[] {
  if (dependsOn === undefined) return [];
  const list = Array.isArray(dependsOn) ? dependsOn : [dependsOn];
  return list
    .filter((r): r is pulumi.Resource => pulumi.Resource.isInstance(r))
    .map((r) => (pulumi.CustomResource.isInstance(r) ? r.id : r.urn));
}
