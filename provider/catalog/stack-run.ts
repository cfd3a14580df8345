/**
 * One command on one stack, and what it did, read from the engine's events: which products it
 * creates, updates (with the field names, never values), replaces and deletes, how many requests
 * the provider says it sent (its summary line), and every error diagnostic as one line. A failed
 * stack is a result like any other, so it never hides another stack's.
 */
import { isDeepStrictEqual } from "node:util";
import type { EngineEvent, Stack, StepEventMetadata } from "@pulumi/pulumi/automation";
import { PRODUCT_FIELDS, PRODUCT_NULLABLE } from "../resources/product";
import { RESTORE_STATUS } from "../resources/product/fields";
import type { Shard } from "./shards";

export type Command = "preview" | "up" | "drift" | "destroy";

export interface StackReport {
  stack: string;
  shard: Shard;
  command: Command;
  status: "ok" | "failed" | "cancelled" | "skipped";
  /** Products the catalog puts in this stack. */
  products: number;
  creates: string[];
  updates: { key: string; fields: string[] }[];
  replaces: { key: string; fields: string[] }[];
  deletes: string[];
  /** Requests to the service, as the provider processes counted them (their summary lines). */
  requests: number;
  /** One line per problem. */
  errors: string[];
  seconds: number;
  /** The digest of the stack's products (resume: a stack done with the same products is not run again). */
  fingerprint: string;
}

/** Summary lines of the provider (`resources/context.ts`): "this update sent 12 requests: …". */
const SENT = /\bsent (\d+) requests?\b/;

export function emptyReport(stack: string, shard: Shard, command: Command, products: number, fingerprint: string): StackReport {
  return {
    stack,
    shard,
    command,
    status: "ok",
    products,
    creates: [],
    updates: [],
    replaces: [],
    deletes: [],
    requests: 0,
    errors: [],
    seconds: 0,
    fingerprint,
  };
}

/**
 * The line each create prints the moment it returns (`resources/messages.ts`). After a kill it is the
 * one trace of a record the state may miss (docs/recovery.md), so the tool passes it on at once.
 */
const CREATED = /serviceapi: created \w+ "[^"]*" \S+/;

/**
 * Runs `command` on `stack`, collecting its report; never throws for the stack's own failure.
 * `onCreated` gets each create's line as it comes.
 */
export async function runOnStack(
  stack: Stack,
  report: StackReport,
  signal: AbortSignal,
  parallel?: number,
  onCreated?: (line: string) => void,
): Promise<StackReport> {
  const started = performance.now();
  const onEvent = (event: EngineEvent) => {
    record(report, event);
    const created = event.diagnosticEvent?.severity.startsWith("info") ? CREATED.exec(event.diagnosticEvent.message) : null;
    if (created !== null) onCreated?.(created[0]);
  };
  try {
    switch (report.command) {
      case "preview":
        await stack.preview({ onEvent, signal, parallel });
        break;
      case "drift":
        await stack.preview({ onEvent, signal, parallel, refresh: true });
        break;
      case "up":
        await stack.up({ onEvent, signal, parallel });
        break;
      case "destroy":
        await stack.destroy({ onEvent, signal, parallel });
        break;
    }
  } catch (error) {
    report.status = signal.aborted ? "cancelled" : "failed";
    // The engine's own diagnostics say what went wrong; the CLI's message is the fallback (its last line: Pulumi's summary of the failure).
    if (report.errors.length === 0) report.errors.push(lastLine(error));
  }
  if (report.errors.length > 0 && report.status === "ok") report.status = "failed";
  report.seconds = Math.round(performance.now() - started) / 1000;
  return report;
}

function record(report: StackReport, event: EngineEvent): void {
  const pre = event.resourcePreEvent?.metadata;
  if (pre !== undefined && isProduct(pre.type)) {
    const key = pre.urn.split("::").pop()!;
    const fields = changedFields(pre);
    switch (pre.op) {
      case "create":
        report.creates.push(key);
        break;
      case "update":
        report.updates.push({ key, fields });
        break;
      case "replace":
        report.replaces.push({ key, fields });
        break;
      case "delete":
        report.deletes.push(key);
        break;
    }
  }
  const diagnostic = event.diagnosticEvent;
  if (diagnostic !== undefined) {
    const text = diagnostic.message.trim();
    const sent = SENT.exec(text);
    if (sent !== null && diagnostic.severity.startsWith("info")) report.requests += Number(sent[1]);
    if (diagnostic.severity === "error") {
      const key = diagnostic.urn?.split("::").pop();
      // Pulumi's closing "update failed" line repeats what the resources said.
      if (!/^(update|preview|destroy|refresh) failed$/.test(text))
        report.errors.push(key !== undefined && key !== "" ? `${key}: ${firstLine(text)}` : firstLine(text));
    }
  }
}

/**
 * The fields a step changes. A dynamic provider's diff carries no field names (Pulumi's Node.js
 * dynamic-provider server sends only "some changes"), so they are found here the way the lifecycle
 * finds them: each declared input against the record as the stack last saw it (its outputs — after
 * a refresh, the live record, which makes these the drifted fields). A field left out that the
 * program clears (description, slug, externalCheckoutUrl) counts when the record has a value, and
 * a status left out counts when a refresh found the product archived behind Pulumi's back (`up` sets it back).
 * Values are compared, never kept or printed; a secret is masked in events and never shows here.
 */
export function changedFields(step: Pick<StepEventMetadata, "old" | "new" | "diffs">): string[] {
  const news = step.new?.inputs ?? {};
  const olds = { ...step.old?.inputs, ...step.old?.outputs };
  const fields = Object.keys(PRODUCT_FIELDS.inputs).filter((field) => {
    const declared = news[field];
    const had = olds[field];
    if (declared === undefined)
      return (NULLABLE.has(field) && had !== undefined && had !== null) || (field === "status" && olds[RESTORE_STATUS] !== undefined);
    return !isDeepStrictEqual(declared, had);
  });
  return fields.length > 0 ? fields : (step.diffs ?? []).filter((field) => !field.startsWith("__"));
}

const NULLABLE = new Set<string>(PRODUCT_NULLABLE);

function isProduct(type: string): boolean {
  return type !== "pulumi:pulumi:Stack" && !type.startsWith("pulumi:providers:");
}

function firstLine(text: string): string {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .slice(0, 2)
    .join(" ");
}

function lastLine(error: unknown): string {
  const lines = String((error as Error)?.message ?? error)
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("code:") && !line.startsWith("stdout:") && !line.startsWith("stderr:"));
  return lines.pop() ?? "the command failed";
}
