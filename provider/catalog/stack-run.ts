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
import { PRODUCT_FIELD_NAMES, TAKEN_OVER, driftedFields, fateOf, giveBackPlan, productChanges, type TakenOver } from "../resources/product";
import { SITE, originalKey } from "../resources/site";
import { TASK } from "../resources/task";
import { givingBack } from "../resources/api-fields";
import { isUnconfirmed } from "../resources/unconfirmed";
import type { FieldChange, Operation, PlannedChange, Reason } from "./changes";
import { kindOf, type Kind } from "./kinds";
import type { FoundSite } from "./projects";

export type RunCommand = "preview" | "up" | "drift" | "refresh" | "destroy";

export interface StackReport {
  stack: string;
  command: RunCommand;
  status: "ok" | "failed" | "cancelled" | "skipped" | "blocked";
  /** The records of each kind in the stack. */
  size: Partial<Record<Kind, number>>;
  /** What is (or would be) done to each product that changes, or what drifted: the typed plan (`changes.ts`). */
  changes: PlannedChange[];
  /** What stops the stack (an up does not run it) — a lock, pending creates, an adoption of a managed product. */
  blocked: Reason[];
  /** What a reviewer must see on this stack (lost creates, products managed elsewhere, rename candidates). */
  notes: Reason[];
  /** Requests to the service, as the shared pacer counted them for this stack. */
  requests: number;
  /** The engine's own error lines (its diagnostics, or the CLI's message), one per failure. */
  errors: string[];
  seconds: number;
  /** The digest of the stack's products and settings (resume: a stack done with the same is not run again). */
  fingerprint: string;
  /** The file with everything the engine printed for this stack in this run. */
  log?: string;
  /** Previewed in a throw-away backend: the stack does not exist yet (an up creates it). */
  new?: boolean;
  /** Lost creates the run leaves alone until they are adopted or created anew (each named in `notes`): not deployed. */
  leftOut?: number;
}

export function emptyReport(stack: string, command: RunCommand, size: Partial<Record<Kind, number>>, fingerprint: string): StackReport {
  return {
    stack,
    command,
    status: "ok",
    size,
    changes: [],
    blocked: [],
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
  onCreated?: (key: string, id: string, resource: "Product" | "Task") => void;
  /** A step of one of the stack's records finished (its URN): the run's progress. */
  onStep?: (urn: string) => void;
  /** URNs to leave alone (an up: placeholders of lost creates not yet adopted). */
  exclude?: string[];
  /** What each product taken over was when taken over, by key (read from the state with its secrets): a give-back's fields. */
  takenOver?: ReadonlyMap<string, TakenOver>;
  /** Each site entry's site as the tool found it before the run (by key): a take-over's fields are its name → the declared one. */
  sites?: ReadonlyMap<string, FoundSite>;
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
  const engineErrors: { urn?: string; text: string }[] = [];
  const onEvent = (event: EngineEvent) => record(report, event, options, engineErrors);
  const common = { onEvent, onOutput: write, onError: write, signal: options.signal };
  try {
    switch (report.command) {
      case "preview":
        // The same exclusions as the up it previews (creates a killed run left in flight): a preview shows what up will do.
        await stack.preview({
          ...common,
          // preview --refresh: what up --refresh does, drift and what only the live record decides (a give-back's fields) included.
          ...(options.refresh === true && { refresh: true }),
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
    report.errors.push(...errorLines(engineErrors));
    if (report.errors.length === 0) report.errors.push(...meaningfulLines(error));
  }
  if (report.errors.length === 0) report.errors.push(...errorLines(engineErrors));
  if (report.errors.length > 0 && report.status === "ok") report.status = "failed";
  report.seconds = Math.round(performance.now() - started) / 1000;
  return report;
}

type Outputs = Record<string, unknown>;

function record(report: StackReport, event: EngineEvent, options: RunStackOptions, engineErrors: { urn?: string; text: string }[]): void {
  const step = event.resOutputsEvent?.metadata;
  const kind =
    step === undefined ? undefined : kindOf({ type: step.type, outputs: (step.new ?? step.old)?.outputs as Outputs | undefined });
  if (step !== undefined && kind === "product") {
    options.onStep?.(step.urn);
    const change = changeOf(report.command, step, options);
    if (change !== undefined) report.changes.push(change);
    if (change?.op === "create" && report.command === "up" && step.new?.id) options.onCreated?.(change.key, step.new.id, "Product");
  } else if (step !== undefined && kind === "site") {
    options.onStep?.(step.urn);
    const change = siteChangeOf(report.command, step, options.sites, options.takenOver);
    if (change !== undefined) report.changes.push(change);
  } else if (step !== undefined && kind === "task") {
    options.onStep?.(step.urn);
    const change = taskChangeOf(report.command, step);
    if (change !== undefined) report.changes.push(change);
    // A task is created once and can never be read back: its id is said the moment it exists, as a product's is.
    const made = change?.op === "create" || (change?.op === "replace" && change.adoptId === undefined);
    if (made && report.command === "up" && step.new?.id) options.onCreated?.(change.key, step.new.id, "Task");
  }
  const diagnostic = event.diagnosticEvent;
  if (diagnostic?.severity === "error") engineErrors.push({ urn: diagnostic.urn || undefined, text: firstLines(diagnostic.message) });
}

/**
 * The engine's error diagnostics as report lines, by key. Those a resource raised name it (their
 * URN); the engine's own closing one ("update failed") names none and only repeats them, so it is
 * shown only when no resource said anything — told apart by that structure, not by its words.
 */
function errorLines(errors: { urn?: string; text: string }[]): string[] {
  const byResource = errors.filter((e) => e.urn !== undefined);
  return (byResource.length > 0 ? byResource : errors).map((e) => (e.urn !== undefined ? `${e.urn.split("::").pop()}: ${e.text}` : e.text));
}

/**
 * What every kind's change is read from: the record's key, its state before and the inputs declared
 * now, the key it was renamed from, and a maker of its change (`kind` set for all but a product).
 */
function stepOf(step: StepEventMetadata, kind?: PlannedChange["kind"]) {
  const key = step.urn.split("::").pop()!;
  // An alias took the state of an old key (a renamed key): the step's old state is under the old URN.
  const oldKey = step.old?.urn?.split("::").pop();
  const renamedFrom = oldKey !== undefined && oldKey !== key ? oldKey : undefined;
  const change = (op: Operation, fields: FieldChange[], more: Partial<PlannedChange> = {}): PlannedChange => ({
    key,
    ...(kind !== undefined && { kind }),
    op,
    fields,
    ...(renamedFrom !== undefined && { renamedFrom }),
    reasons: [],
    ...more,
  });
  return { key, old: state(step.old), declared: inputsOf(step.new), renamedFrom, change };
}

/** A step of the engine as the typed plan's change of one product; nothing for a product the step leaves as it is. */
export function changeOf(
  command: RunCommand,
  step: StepEventMetadata,
  options: Pick<RunStackOptions, "takenOver"> = {},
): PlannedChange | undefined {
  const { key, old, declared, renamedFrom, change } = stepOf(step);
  if (command === "drift" || command === "refresh") {
    if (step.op === "update") {
      const fields = driftedFields(old.outputs as never, state(step.new).outputs as never, old.inputs as never);
      return fields.length > 0 ? change("drift", fields) : undefined;
    }
    return step.op === "delete" ? change("gone", []) : undefined;
  }
  switch (step.op) {
    case "same":
      return renamedFrom !== undefined ? change("rename", []) : undefined;
    case "create":
      // A create shows every field it sets (no value before), as `pulumi preview --diff` shows a new resource.
      if (typeof declared.adoptId === "string") return change("adopt", [], { adoptId: declared.adoptId });
      return change("create", createdFields(declared));
    case "update": {
      const sent: FieldChange[] = productChanges(old.outputs as never, declared as never);
      // Fields only the stack keeps (nothing is sent for them).
      const kept: FieldChange[] = [];
      for (const field of ["onDelete", "adoptId"]) {
        const was = old.inputs[field] ?? (field === "onDelete" ? old.outputs.onDelete : undefined);
        const now = declared[field] ?? (field === "onDelete" ? "archive" : undefined);
        if (now !== was) kept.push({ field, from: was ?? null, to: now ?? null, stackOnly: true });
      }
      // Counted by what is sent: an update that sends nothing is the stack's own record changing.
      return change(sent.length > 0 ? "update" : renamedFrom !== undefined && kept.length === 0 ? "rename" : "state", [...sent, ...kept]);
    }
    case "replace": {
      if (isUnconfirmed(old.outputs) && typeof declared.adoptId === "string")
        return change("adopt", [], { adoptId: declared.adoptId, reasons: [{ code: "lost-create-adopted" }] });
      // What makes it a replacement (the project, or the record adopted), then — for a new record — every field it is
      // created with; for an adoption the fields its PATCH sets, live → declared, come from its provider (`run.ts`).
      const adoptId = typeof declared.adoptId === "string" ? declared.adoptId : undefined;
      const why: FieldChange[] = ["projectId", "adoptId"]
        .filter((field) => (declared[field] ?? null) !== (old.inputs[field] ?? old.outputs[field] ?? null))
        .map((field) => ({
          field,
          from: old.inputs[field] ?? old.outputs[field] ?? null,
          to: declared[field] ?? null,
          // Sent nowhere: the adopted record keeps its project, and adoptId is the stack's own.
          ...((field === "adoptId" || adoptId !== undefined) && { stackOnly: true as const }),
        }));
      const then = removal(key, old.outputs, options.takenOver).op;
      return change("replace", [...why, ...(adoptId !== undefined ? [] : createdFields(declared))], {
        then,
        ...(adoptId !== undefined && { adoptId }),
      });
    }
    case "delete":
      return removal(key, old.outputs, options.takenOver);
    default:
      return undefined;
  }
}

/**
 * A step of a site as the typed plan's change. A site is never created nor deleted: a new entry
 * takes the site over (`adopt`: its fields, as the tool found the site before the run → declared,
 * which the take-over's one PATCH sends; none when they already match), an entry removed gives it
 * back (`give-back`: each field this stack set, now → as found, by the same rule the provider's
 * delete follows, `givingBack`), or leaves it as it is (`retain`, `restoreNameOnDelete: false`).
 */
export function siteChangeOf(
  command: RunCommand,
  step: StepEventMetadata,
  found: ReadonlyMap<string, FoundSite> = new Map(),
  takenOver?: ReadonlyMap<string, TakenOver>,
): PlannedChange | undefined {
  const { key, old, declared, renamedFrom, change } = stepOf(step, "site");
  const fields = SITE.updatable.map(SITE.property);
  // The fields that differ between two sets of values (`to` left out where the second has none).
  const differ = (from: Outputs, to: Outputs, only = fields) =>
    only
      .filter((f) => to[f] !== undefined && (from[f] ?? null) !== (to[f] ?? null))
      .map((f) => ({ field: f, from: from[f] ?? null, to: to[f] }));
  if (command === "drift" || command === "refresh") {
    if (step.op === "update") {
      const drifted = differ(
        old.outputs,
        state(step.new).outputs,
        fields.filter((f) => old.inputs[f] !== undefined),
      );
      return drifted.length > 0 ? change("drift", drifted) : undefined;
    }
    return step.op === "delete" ? change("gone", []) : undefined;
  }
  const takeOver = (): FieldChange[] => {
    const site = found.get(key);
    return site === undefined ? [] : differ(site.fields, declared);
  };
  switch (step.op) {
    case "same":
      return renamedFrom !== undefined ? change("rename", []) : undefined;
    case "create":
      return change("adopt", takeOver(), { adoptId: String(declared.siteId) });
    case "update": {
      const sent = differ(old.outputs, declared);
      const was = old.outputs.restoreNameOnDelete ?? true;
      const now = declared.restoreNameOnDelete ?? true;
      const kept: FieldChange[] = was !== now ? [{ field: "restoreNameOnDelete", from: was, to: now, stackOnly: true }] : [];
      return change(sent.length > 0 ? "update" : renamedFrom !== undefined && kept.length === 0 ? "rename" : "state", [...sent, ...kept]);
    }
    case "replace": {
      const why: FieldChange[] = ["projectId", "siteId"]
        .filter((f) => (declared[f] ?? null) !== (old.inputs[f] ?? null))
        .map((f) => ({ field: f, from: old.inputs[f] ?? null, to: declared[f] ?? null, stackOnly: true as const }));
      return change("replace", [...why, ...takeOver()], { then: siteRemoval(key, old, takenOver).op, adoptId: String(declared.siteId) });
    }
    case "delete":
      return siteRemoval(key, old, takenOver);
    default:
      return undefined;
  }
}

/**
 * A step of a task as the typed plan's change. The API can create a task and nothing else: a new
 * entry is one POST (`create`, every field it is created with); a changed entry is a new task
 * (`replace`, each field old → new, the rest as the new task gets them) and the old one keeps
 * running (`then: retain`); a removed entry stops nothing (`retain`), or forgets a create whose
 * answer was lost (`forget`). Nothing is ever read back, so drift and refresh find nothing.
 */
export function taskChangeOf(command: RunCommand, step: StepEventMetadata): PlannedChange | undefined {
  const { old, declared, renamedFrom, change } = stepOf(step, "task");
  if (command === "drift" || command === "refresh") return undefined;
  const created = (from: Outputs = {}) =>
    TASK.created
      .map(TASK.property)
      .filter((f) => declared[f] !== undefined && declared[f] !== null)
      .map((f): FieldChange => ({ field: f, ...(from[f] !== undefined && from[f] !== declared[f] && { from: from[f] }), to: declared[f] }));
  const removed = () => (isUnconfirmed(old.outputs) ? "forget" : "retain");
  // The task left running, named: the API cannot stop it, so the report says which one to stop by hand.
  const running = !isUnconfirmed(old.outputs) && typeof step.old?.id === "string" && step.old.id !== "" ? { runningId: step.old.id } : {};
  switch (step.op) {
    case "same":
      return renamedFrom !== undefined ? change("rename", []) : undefined;
    case "create":
      if (typeof declared.adoptId === "string") return change("adopt", [], { adoptId: declared.adoptId });
      return change("create", created());
    case "update": {
      // Only adoptId can change in place (removed, or set to the task's own id): the stack's record, nothing sent.
      const was = old.inputs.adoptId ?? null;
      const now = declared.adoptId ?? null;
      if (was !== now) return change("state", [{ field: "adoptId", from: was, to: now, stackOnly: true }]);
      return change(renamedFrom !== undefined ? "rename" : "state", []);
    }
    case "replace": {
      if (isUnconfirmed(old.outputs) && typeof declared.adoptId === "string")
        return change("adopt", [], { adoptId: declared.adoptId, reasons: [{ code: "lost-create-adopted" }] });
      const adoptId = typeof declared.adoptId === "string" ? declared.adoptId : undefined;
      const project =
        (declared.projectId ?? null) !== (old.inputs.projectId ?? null)
          ? [{ field: "projectId", from: old.inputs.projectId ?? null, to: declared.projectId ?? null }]
          : [];
      return change("replace", adoptId !== undefined ? [] : [...project, ...created(old.inputs)], {
        then: removed(),
        ...(adoptId !== undefined && { adoptId }),
        ...running,
      });
    }
    case "delete":
      return change(removed(), [], running);
    default:
      return undefined;
  }
}

/**
 * What removing a site's entry sends, by the provider's rule (`site.ts`, \`remove\`) applied to the
 * state: each field the entry declared is set back to its value when taken over, unless it is
 * already so, or it was changed since this stack set it (a refresh recorded another value).
 */
function siteRemoval(
  key: string,
  old: { inputs: Outputs; outputs: Outputs },
  takenOver: ReadonlyMap<string, TakenOver> | undefined,
): PlannedChange {
  const base = { key, kind: "site" as const, reasons: [] as Reason[] };
  if (old.outputs.restoreNameOnDelete === false) return { ...base, op: "retain", fields: [] };
  const managed = SITE.updatable.filter((f) => old.inputs[SITE.property(f)] !== undefined);
  const foundThen = Object.fromEntries(managed.map((f) => [SITE.property(f), old.outputs[originalKey(f)] ?? null]));
  // A field whose value when taken over is unknown is left as it is (the provider warns).
  const known = managed.filter((f) => foundThen[SITE.property(f)] !== null);
  // What this stack last set (the state's secret, read before the run); a state from before it was kept: the field as recorded.
  const lastSet = (takenOver?.get(key)?.set ?? {}) as Outputs;
  const set = Object.fromEntries(
    managed.map((f) => [SITE.property(f), lastSet[SITE.property(f)] ?? old.outputs[SITE.property(f)] ?? null]),
  );
  const plan = givingBack(SITE, known, foundThen, set, old.outputs);
  return {
    ...base,
    op: "give-back",
    fields: plan.back.map((f) => ({
      field: SITE.property(f),
      from: old.outputs[SITE.property(f)] ?? null,
      to: foundThen[SITE.property(f)],
    })),
    reasons: plan.since.length > 0 ? [{ code: "changed-since", fields: plan.since.map(SITE.property) }] : [],
  };
}

/**
 * What removing a product sends, by the provider's own rules (`fateOf`, `giveBackPlan`) applied to
 * the state the engine shows: archived (the status, → archived), given back (each field set back,
 * now → as found, when the state's record of the take-over was read), kept (`retain`), or
 * forgotten (a lost create).
 */
function removal(key: string, outputs: Outputs, takenOver: ReadonlyMap<string, TakenOver> | undefined): PlannedChange {
  const base = { key, reasons: [] as Reason[] };
  if (isUnconfirmed(outputs)) return { ...base, op: "forget", fields: [] };
  // The engine's events leave the secret record of a take-over out: the one read with the stack's secrets says it.
  const record = takenOver?.get(key);
  const fate = fateOf({ ...outputs, ...(record !== undefined && { [TAKEN_OVER]: record }) } as never);
  if (fate === "retain") return { ...base, op: "retain", fields: [] };
  if (fate === "adopted without a record") return { ...base, op: "retain", fields: [], reasons: [{ code: "adopted-without-record" }] };
  if (fate === "archive") return { ...base, op: "archive", fields: [{ field: "status", from: outputs.status ?? null, to: "archived" }] };
  if (record === undefined) return { ...base, op: "give-back", fields: [], reasons: [{ code: "give-back-unread" }] };
  const plan = giveBackPlan(record, outputs as never);
  return {
    ...base,
    op: "give-back",
    fields: plan.fields,
    reasons: [
      ...(plan.keptStatus !== undefined ? [{ code: "keeps-status" as const, ...plan.keptStatus }] : []),
      ...(plan.since.length > 0 ? [{ code: "changed-since" as const, fields: plan.since }] : []),
    ],
  };
}

/** The product's fields a create sets: those the entry declares, in the contract's order. */
function createdFields(declared: Outputs): FieldChange[] {
  return PRODUCT_FIELD_NAMES.filter((field) => declared[field] !== undefined && declared[field] !== null).map((field) => ({
    field,
    from: undefined,
    to: declared[field],
  }));
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
 * What a failed `pulumi` command said, for a report: the CLI's own stderr (the Automation API keeps
 * it on the error it throws, as the command's result), its last lines as they are — the CLI ends with
 * its error — and everything in the stack's log. No line is picked by its words.
 */
export function meaningfulLines(error: unknown): string[] {
  const result = (error as { commandResult?: { stderr?: unknown } } | undefined)?.commandResult;
  const text =
    typeof result?.stderr === "string" && result.stderr.trim() !== "" ? result.stderr : String((error as Error)?.message ?? error);
  // The CLI names a PostgreSQL backend by its URL, password included ("unable to open bucket postgres://…"):
  // a report is pasted into pull requests and kept as a CI artifact.
  const lines = maskText(text, [])
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  // The CLI's last error, whole: a list of errors is printed over several lines ("error: 2 errors
  // occurred:", "1) open …: read-only file system", "2) Unknown"), whose last line alone says nothing.
  const from = lines.findLastIndex((line) => line.startsWith("error: "));
  return [from >= 0 ? lines.slice(from).join(" ") : (lines.at(-1) ?? "the command failed")];
}
