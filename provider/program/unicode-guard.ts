/**
 * Runs in the program process, where the strings are still as the program wrote them.
 *
 * A JavaScript string may hold a lone UTF-16 surrogate, which has no UTF-8 form. Pulumi's
 * serializer does not refuse it: it replaces it (so a description reaches the service changed
 * and the drift gate never notices) or fails with `13 INTERNAL: grpc: … invalid UTF-8`. By the
 * time `check()` runs in the provider the original is gone, so each string input is looked at
 * here, and a bad one is replaced by a marker that `check()` turns into a failure naming the field
 * — at preview, before any request.
 */
import { Output, output, type Input } from "@pulumi/pulumi/output"; // by module: see resource-props.ts
import { ILL_FORMED } from "../resources/checks";

/**
 * The same inputs, each string input passed through the check above (secrets and unknowns kept).
 * A plain value is checked here and now; only an `Output` or a promise gets an `apply`. Every
 * Output the SDK makes costs a stack trace per promise it holds (source-mapped under ts-node), and
 * wrapping every input doubled a resource's cost in a program of a thousand products.
 */
export function guardStrings<T extends object>(args: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined) out[key] = undefined;
    else if (Output.isInstance(value) || value instanceof Promise) out[key] = output(value as Input<string>).apply(markIllFormed);
    else out[key] = markIllFormed(value);
  }
  return out as T;
}

function markIllFormed(value: unknown): unknown {
  if (typeof value !== "string" || value.isWellFormed()) return value;
  let position = 0;
  for (const char of value) {
    position += 1;
    const code = char.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) break;
  }
  return { [ILL_FORMED]: position };
}
