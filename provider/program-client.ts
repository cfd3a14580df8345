/**
 * Data sources run in the program process (dynamic providers cannot serve invokes), so they read
 * `serviceapi:*` with `pulumi.Config` — the same keys and environment fallbacks as the resources —
 * and use a short-lived client that is closed after each call, so no socket outlives the program.
 */
import * as pulumi from "@pulumi/pulumi";
import { ServiceApiClient } from "./client";
import { readSettings } from "./settings";
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
  }
}

export async function withProgramClient<T>(fn: string, use: (client: ServiceApiClient) => Promise<T>): Promise<T> {
  warnIfTokenNotSecret();
  let client: ServiceApiClient;
  try {
    const config = new pulumi.Config("serviceapi");
    client = new ServiceApiClient(readSettings((key) => config.get(key)).client);
  } catch (error) {
    throw new DataSourceError(`${fn}: ${(error as Error).message}`);
  }
  try {
    return await use(client);
  } catch (error) {
    if (error instanceof DataSourceError) throw error;
    throw new DataSourceError(`${fn}: ${(error as Error).message}`);
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
  args: pulumi.Input<A> | pulumi.Inputs, opts: pulumi.InvokeOutputOptions | undefined, call: (args: A, secret: boolean) => Promise<R>,
): pulumi.Output<R> {
  const resolvedArgs = pulumi.output(args as pulumi.Input<A>);
  const deps = dependencyIds(opts?.dependsOn);
  return pulumi.all([resolvedArgs, ...deps]).apply(async ([resolved]) => call(resolved as A, await pulumi.isSecret(resolvedArgs)));
}

function dependencyIds(dependsOn: pulumi.InvokeOutputOptions["dependsOn"]): pulumi.Output<unknown>[] {
  if (dependsOn === undefined) return [];
  const list = Array.isArray(dependsOn) ? dependsOn : [dependsOn];
  return list
    .filter((r): r is pulumi.Resource => pulumi.Resource.isInstance(r))
    .map((r) => (pulumi.CustomResource.isInstance(r) ? r.id : r.urn));
}

/** How a lookup reads in a message, e.g. `["is named \"Shop\"", "are named \"Shop\""]`. */
export type Criterion = readonly [singular: string, plural: string];

/** `"Shop"`, or a placeholder when the argument is a secret (no message quotes a secret). */
export function quoted(value: string, secret: boolean): string {
  return secret ? "(the secret value given)" : JSON.stringify(value);
}

const SHOWN_CANDIDATES = 5;

/**
 * The one record matching a lookup, or an error that says whether there were none or several,
 * listing up to five of the candidates so the user can pick one.
 */
export function exactlyOne<T>(
  fn: string, noun: readonly [string, string], criterion: Criterion, matches: T[], all: T[], show: (record: T) => string,
  hint: { none: string; several: string },
): T {
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) {
    const listed = all.length === 0 ? `the token can see no ${noun[1]} here`
      : `the ${all.length} listed ${all.length === 1 ? `${noun[0]} is` : `${noun[1]} are`}: ${candidates(all, show)}`;
    throw new DataSourceError(`${fn}: no ${noun[0]} ${criterion[0]}; ${listed}. ${hint.none}`);
  }
  throw new DataSourceError(`${fn}: ${matches.length} ${noun[1]} ${criterion[1]}: ${candidates(matches, show)}. ${hint.several}`);
}

function candidates<T>(records: T[], show: (record: T) => string): string {
  const shown = records.slice(0, SHOWN_CANDIDATES).map(show).join(", ");
  return records.length > SHOWN_CANDIDATES ? `${shown}, and ${records.length - SHOWN_CANDIDATES} more` : shown;
}
