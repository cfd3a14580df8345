/**
 * Messages from the plugin reach the user through the engine's Log RPC, attached to the resource
 * the current request is about (a plugin's own stdout and stderr are not shown by the CLI). Each
 * RPC handler runs inside `forResource(urn, …)`, so a message knows its resource without every
 * function passing the URN along, and the handler waits for its messages to be delivered before it
 * answers — a `created` line is in the engine's output before the create is.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import * as grpc from "@grpc/grpc-js";
import { EngineClient } from "@pulumi/pulumi/proto/engine_grpc_pb";
import { LogRequest, LogSeverity } from "@pulumi/pulumi/proto/engine_pb";
import type { MessageSink } from "../resources/context";

interface RequestContext {
  urn: string;
  deliveries: Promise<void>[];
}

const current = new AsyncLocalStorage<RequestContext>();
/** Messages on their way to the engine, for `delivered` (the summary line, said outside any request). */
const pending = new Set<Promise<void>>();

/** Runs one RPC's work with its messages attached to `urn`, and waits for them before returning. */
export async function forResource<T>(urn: string, work: () => Promise<T>): Promise<T> {
  const context: RequestContext = { urn, deliveries: [] };
  try {
    return await current.run(context, work);
  } finally {
    await Promise.all(context.deliveries);
  }
}

/** A sink for the context's messages (`resources/context.ts`) that logs through the engine at `address`. */
export function engineSink(address: string): MessageSink {
  const engine = new EngineClient(address, grpc.credentials.createInsecure());
  return (severity, message) => {
    const request = new LogRequest();
    request.setSeverity(severity === "info" ? LogSeverity.INFO : LogSeverity.WARNING);
    request.setMessage(message);
    const context = current.getStore();
    request.setUrn(context?.urn ?? "");
    // A message that cannot be delivered must not fail the operation it describes.
    const delivered = new Promise<void>((resolve) => engine.log(request, () => resolve()));
    context?.deliveries.push(delivered);
    pending.add(delivered);
    void delivered.then(() => pending.delete(delivered));
  };
}

/** Resolves once every message sent so far has reached the engine, or after `timeoutMs`. */
export async function delivered(timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
  await Promise.race([Promise.all(pending), late]);
  clearTimeout(timer);
}

/** The URN of the resource the current RPC is about, if any. */
export function currentUrn(): string | undefined {
  return current.getStore()?.urn || undefined;
}
