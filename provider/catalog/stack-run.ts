/**
 * One command on one stack, and what it did, read from the engine's structured events (the
 * Automation API's event stream) — never from the provider's message text:
 *
 * - each step's resource outputs event says which product is created, adopted, updated, replaced or
 *   deleted, and carries the values before and after: an update's fields are the PATCH body `up`
 *   sends (`productChanges`, the lifecycle's own rule) with the value the stack holds and the one
 *   declared; a refresh's (drift) are the fields the service changed among those the stack manages
 *   (`driftedFields`), recorded → live. Values are the engine's: a secret is `[secret]`, as in
 *   `pulumi preview --diff`;
 * - a completed create gives the record's id (the line printed at once, for a killed run's log);
 * - error diagnostics, one line each, by key;
 * - everything the engine printed goes to the stack's log file, named in the report of a failed stack.
 *
 * A failed stack is a result like any other, so it never hides another stack's.
 */
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { EngineEvent, Stack, StepEventMetadata, StepEventStateMetadata } from "@pulumi/pulumi/automation";
import { maskText } from "../backend";
import { PRODUCT_FIELD_NAMES, driftedFields, productChanges } from "../resources/product";
import { isProductResource } from "../resources/product/recorded";
import { isUnconfirmed } from "../resources/unconfirmed";

export type RunCommand = "preview" | "up" | "drift" | "refresh" | "destroy";

/** A field's value before and after, as the engine shows them (`[secret]` for a secret). */
export interface FieldValue {
  field: string;
  from: unknown;
  to: unknown;
}

/** One product in a report: its key, the fields that change (with values), and what happens to it in words. */
export interface ProductLine {
  key: string;
  fields: FieldValue[];
  what?: string;
}

export interface StackReport {
  stack: string;
  command: RunCommand;
  status: "ok" | "failed" | "cancelled" | "skipped" | "blocked";
  /** Products in the stack. */
  products: number;
  creates: ProductLine[];
  /** Creates that take over an existing product (`adoptId`), and placeholders of lost creates adopted. */
  adopts: ProductLine[];
  updates: ProductLine[];
  replaces: ProductLine[];
  deletes: ProductLine[];
  /** drift and refresh: what the service changed behind Pulumi's back (recorded → live). */
  drift: ProductLine[];
  /** What a reviewer must see (locks, pending creates, products managed elsewhere, in-flight creates). */
  notes: string[];
  /** Requests to the service, as the shared pacer counted them for this stack. */
  requests: number;
  errors: string[];
  seconds: number;
  /** The digest of the stack's products and settings (resume: a stack done with the same is not run again). */
  fingerprint: string;
  /** The file with everything the engine printed for this stack in this run. */
  log?: string;
  /** Previewed in a throw-away backend: the stack does not exist yet (an up creates it). */
  new?: boolean;
  /** A preview or drift of a stack an up would not run (a lock, pending creates): counted as blocked, exit code 1. */
  blocking?: boolean;
  /** Lost creates the run leaves alone until they are adopted or created anew (each named in `notes`): not deployed. */
  leftOut?: number;
}

export function emptyReport(stack: string, command: RunCommand, products: number, fingerprint: string): StackReport {
  return {
    stack,
    command,
    status: "ok",
    products,
    creates: [],
    adopts: [],
    updates: [],
    replaces: [],
    deletes: [],
    drift: [],
    notes: [],
    requests: 0,
    errors: [],
    seconds: 0,
    fingerprint,
  };
}

export interface RunStackOptions {
  signal: AbortSignal;
  /** Each create's record as it returns (up only). */
  onCreated?: (key: string, id: string) => void;
  /** URNs to leave alone (an up: placeholders of lost creates not yet adopted). */
  exclude?: string[];
  /** Refresh before (up --refresh). */
  refresh?: boolean;
  /** The log file. */
  log?: string;
}

/** Runs `report.command` on `stack`, collecting its report; never throws for the stack's own failure. */
export async function runOnStack(stack: Stack, report: StackReport, options: RunStackOptions): Promise<StackReport> {
  const started = performance.now();
  const log = options.log;
  if (log !== undefined) {
    mkdirSync(dirname(log), { recursive: true });
    writeFileSync(log, "");
    report.log = log;
  }
  const write = (text: string) => {
    if (log !== undefined) appendFileSync(log, text);
  };
  const onEvent = (event: EngineEvent) => record(report, event, options);
  const common = { onEvent, onOutput: write, onError: write, signal: options.signal };
  try {
    switch (report.command) {
      case "preview":
        // The same exclusions as the up it previews (creates a killed run left in flight): a preview shows what up will do.
        await stack.preview({
          ...common,
          ...(options.exclude !== undefined && options.exclude.length > 0 && { exclude: options.exclude }),
        });
        break;
      case "drift":
        // What changed on the service since the stacks last recorded it: refresh, previewed (nothing written).
        await stack.previewRefresh({ ...common, runProgram: true });
        break;
      case "refresh":
        await stack.refresh({ ...common, runProgram: true });
        break;
      case "up":
        await stack.up({
          ...common,
          ...(options.refresh === true && { refresh: true, runProgram: true }),
          ...(options.exclude !== undefined && options.exclude.length > 0 && { exclude: options.exclude }),
        });
        break;
      case "destroy":
        await stack.destroy(common);
        break;
    }
  } catch (error) {
    report.status = options.signal.aborted ? "cancelled" : "failed";
    // The engine's own diagnostics say what went wrong; the CLI's message is the fallback.
    if (report.errors.length === 0) report.errors.push(...meaningfulLines(error));
  }
  if (report.errors.length > 0 && report.status === "ok") report.status = "failed";
  report.seconds = Math.round(performance.now() - started) / 1000;
  return report;
}

type Outputs = Record<string, unknown>;

function record(report: StackReport, event: EngineEvent, options: RunStackOptions): void {
  const step = event.resOutputsEvent?.metadata;
  if (step !== undefined && isProduct(step)) recordStep(report, step, options);
  const diagnostic = event.diagnosticEvent;
  if (diagnostic?.severity === "error") {
    const text = diagnostic.message.trim();
    // Pulumi's closing "update failed" repeats what the resources said.
    if (!/^(update|preview|destroy|refresh) failed$/.test(text)) {
      const key = diagnostic.urn?.split("::").pop();
      report.errors.push(key !== undefined && key !== "" ? `${key}: ${firstLines(text)}` : firstLines(text));
    }
  }
}

function isProduct(step: StepEventMetadata): boolean {
  return isProductResource({ type: step.type, outputs: (step.new ?? step.old)?.outputs as Outputs | undefined });
}

function recordStep(report: StackReport, step: StepEventMetadata, options: RunStackOptions): void {
  const key = step.urn.split("::").pop()!;
  const old = state(step.old);
  const declared = inputsOf(step.new);
  if (report.command === "drift" || report.command === "refresh") {
    if (step.op === "update") {
      const fields = driftedFields(old.outputs as never, state(step.new).outputs as never, old.inputs as never);
      if (fields.length > 0) report.drift.push({ key, fields });
    } else if (step.op === "delete") {
      report.drift.push({ key, fields: [], what: "gone from the service (404): the refresh drops it from the stack" });
    }
    return;
  }
  switch (step.op) {
    case "create": {
      if (typeof declared.adoptId === "string") report.adopts.push({ key, fields: [], what: `adopts ${declared.adoptId}` });
      // A create shows every field it sets (no value before), as `pulumi preview --diff` shows a new resource.
      else report.creates.push({ key, fields: createdFields(declared) });
      const id = step.new?.id;
      if (report.command === "up" && typeof declared.adoptId !== "string" && id !== undefined && id !== "") options.onCreated?.(key, id);
      break;
    }
    case "update": {
      const fields: FieldValue[] = productChanges(old.outputs as never, declared as never);
      // Fields only the stack keeps (nothing is sent for them).
      for (const field of ["onDelete", "adoptId"]) {
        const was = old.inputs[field] ?? (field === "onDelete" ? old.outputs.onDelete : undefined);
        const now = declared[field] ?? (field === "onDelete" ? "archive" : undefined);
        if (now !== was) fields.push({ field, from: was ?? null, to: now ?? null });
      }
      report.updates.push({ key, fields });
      break;
    }
    case "replace": {
      if (isUnconfirmed(old.outputs) && typeof declared.adoptId === "string") {
        report.adopts.push({ key, fields: [], what: `adopts ${declared.adoptId}, the record a killed or failed create made` });
        break;
      }
      const fields = ["projectId", "adoptId"]
        .filter((field) => (declared[field] ?? null) !== (old.inputs[field] ?? old.outputs[field] ?? null))
        .map((field) => ({ field, from: old.inputs[field] ?? old.outputs[field] ?? null, to: declared[field] ?? null }));
      report.replaces.push({ key, fields });
      break;
    }
    case "delete":
      report.deletes.push({ key, fields: [], what: fateOf(old.outputs) });
      break;
  }
}

/** The product's fields a create sets: those the entry declares, in the contract's order. */
function createdFields(declared: Outputs): FieldValue[] {
  return PRODUCT_FIELD_NAMES.filter((field) => declared[field] !== undefined && declared[field] !== null).map((field) => ({
    field,
    from: undefined,
    to: declared[field],
  }));
}

/** What deleting does to the product, in words, from the state the engine shows (a secret record shows as `[secret]`, which is enough). */
function fateOf(outputs: Outputs): string {
  if (isUnconfirmed(outputs)) return "forgotten: its create was never confirmed, so there is nothing to archive";
  if (outputs.onDelete === "retain") return "kept on the service as it is (onDelete: retain)";
  const declared = Array.isArray(outputs.__declared) ? (outputs.__declared as string[]) : [];
  if (declared.includes("onDelete") || outputs.__createdByThisStack === true) return "archived";
  if (outputs.__takenOver !== undefined) return "given back as it was found (taken over, not archived)";
  if (outputs.adoptId !== undefined) return "left as it is (adopted by an older version)";
  return "archived";
}

function state(s: StepEventStateMetadata | undefined): { inputs: Outputs; outputs: Outputs } {
  return { inputs: (s?.inputs ?? {}) as Outputs, outputs: (s?.outputs ?? {}) as Outputs };
}

/** Declared inputs, without the engine's own keys. */
function inputsOf(s: StepEventStateMetadata | undefined): Outputs {
  return Object.fromEntries(Object.entries((s?.inputs ?? {}) as Outputs).filter(([key]) => !key.startsWith("__")));
}

function firstLines(text: string): string {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .slice(0, 2)
    .join(" ");
}

/**
 * The lines of a failed CLI run worth a report: its error lines, not the command line or the captured
 * streams' headers. The Automation API words most failures as `code: -2` first (execa threw on the exit
 * code), the CLI's own `error:` lines after it; the first line alone says nothing.
 */
export function meaningfulLines(error: unknown): string[] {
  // The CLI names a PostgreSQL backend by its URL, password included ("unable to open bucket postgres://…"):
  // a report is pasted into pull requests and kept as a CI artifact.
  const text = maskText(String((error as Error)?.message ?? error), []);
  const lines = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !/^(code|stdout|stderr|commandResult|err\?):/.test(line));
  // The same error line comes twice when execa's message repeats the CLI's stderr.
  const errors = [...new Set(lines.filter((line) => line.startsWith("error:")))];
  return [(errors.length > 0 ? errors.slice(0, 2) : lines.slice(-1)).join(" ") || "the command failed"];
}
