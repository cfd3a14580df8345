/**
 * Stage 4: the combined report — one text for a terminal or a pull request comment, or JSON
 * (`--json`, the same objects, which `serviceapi-catalog report` combines again when a CI matrix ran
 * the stacks in several jobs). Per stack: what is (or would be) created, adopted, updated, replaced
 * and deleted, or what drifted — each changed field with its value before and after, as
 * `pulumi preview --diff` shows it (a secret as `[secret]`, a long value shortened), a change of
 * status to archived called out; what stops the stack (a lock, pending creates) with the way out;
 * totals, and the requests sent. The values come from the engine's events (`stack-run.ts`).
 */
import { isUnknown } from "../resources/checks";
import { shown as shownValue } from "../resources/messages";
import type { FieldValue, ProductLine, StackReport } from "./stack-run";

export interface RunReport {
  command: string;
  /** Stacks in the layout. */
  stacks: number;
  /** What the run was limited to, for the heading ("changed since origin/main: 1 added, 1 changed"). */
  scope?: string;
  /** Moves made before the stacks ran (splits, entries moved between files, the layout of 0.1), one line each. */
  splits: string[];
  /** Lines about the whole catalog a reviewer must see. */
  notes?: string[];
  results: StackReport[];
  /** Requests the tool itself sent, outside any stack (its project listing, which checks the token). */
  requests?: number;
  /** For drift: the commands that fix what it found. */
  next?: string[];
  /** How the rate limit was shared (`run.ts`). */
  rateLimit?: RateLimitReport;
}

/** How the run shared the rate limit, for the report: `--json`'s `rateLimit`. */
export interface RateLimitReport {
  /** "postgres": with the other runners, through the store; "none": this run's processes only. */
  shared: "postgres" | "none";
  /** Where (host:port/database), or why not shared. */
  where: string;
  /** Store transactions made (one per batch of attempts). */
  transactions: number;
  /** Attempts let go by the pacer. */
  attempts: number;
  /** The store failed (or could not be opened): this runner paced alone from then on. */
  alone: boolean;
}

export interface Totals {
  creates: number;
  adopts: number;
  updates: number;
  replaces: number;
  deletes: number;
  drift: number;
  archives: number;
  requests: number;
  failed: number;
  cancelled: number;
  blocked: number;
  skipped: number;
  /** Lost creates left out, not deployed until someone adopts or re-creates them. */
  leftOut: number;
}

export function totals(results: StackReport[]): Totals {
  const t: Totals = {
    creates: 0,
    adopts: 0,
    updates: 0,
    replaces: 0,
    deletes: 0,
    drift: 0,
    archives: 0,
    requests: 0,
    failed: 0,
    cancelled: 0,
    blocked: 0,
    skipped: 0,
    leftOut: 0,
  };
  for (const r of results) {
    t.creates += r.creates.length;
    t.adopts += r.adopts.length;
    t.updates += r.updates.length;
    t.replaces += r.replaces.length;
    t.deletes += r.deletes.length;
    t.drift += r.drift.length;
    t.archives += r.updates.filter(archives).length;
    t.requests += r.requests;
    if (r.status === "failed") t.failed++;
    if (r.status === "cancelled") t.cancelled++;
    if (r.status === "blocked" || r.blocking === true) t.blocked++;
    if (r.status === "skipped") t.skipped++;
    t.leftOut += r.leftOut ?? 0;
  }
  return t;
}

/** At most this many products are listed per stack and kind; the rest is counted. */
const LISTED = 20;

export function formatReport(run: RunReport): string {
  const drift = run.command === "drift" || run.command === "refresh";
  // What was done (up, destroy, refresh) or would be (preview, drift).
  const done = run.command.startsWith("up") || run.command === "destroy" || run.command === "refresh";
  const verb = (future: string, past: string) => (done ? past : future);
  const ran = run.results.filter((r) => r.status !== "skipped");
  const lines: string[] = [];
  lines.push(`serviceapi-catalog ${run.command}: ${ran.length} of ${run.stacks} stack(s)${run.scope ? ` (${run.scope})` : ""}`);
  for (const split of run.splits) lines.push(`  ${split}`);
  for (const note of run.notes ?? []) lines.push(`  ! ${note}`);
  for (const r of [...run.results].sort((a, b) => (a.stack < b.stack ? -1 : 1))) {
    if (r.status === "skipped") {
      lines.push(`${r.stack}: skipped, done in the run before with the same products and settings (--all runs it again)`);
      continue;
    }
    const archived = r.updates.filter(archives).length;
    const counts = [
      r.creates.length && `${r.creates.length} ${verb("to create", "created")}`,
      r.adopts.length && `${r.adopts.length} ${verb("to adopt", "adopted")}`,
      r.updates.length && `${r.updates.length} ${verb("to update", "updated")}${archived ? ` (${archived} to archived)` : ""}`,
      r.replaces.length && `${r.replaces.length} ${verb("to replace", "replaced")}`,
      r.deletes.length && `${r.deletes.length} ${verb("to delete", "deleted")}`,
      r.drift.length && `${r.drift.length} ${run.command === "refresh" ? "accepted" : "drifted"}`,
    ].filter(Boolean);
    const state =
      r.status === "ok"
        ? r.blocking === true
          ? " — BLOCKED (an up would not run it)"
          : ""
        : r.status === "failed" && r.log !== undefined
          ? ` — FAILED (log: ${r.log})`
          : ` — ${r.status.toUpperCase()}`;
    const what =
      r.status === "blocked"
        ? "not run"
        : counts.length > 0
          ? // A failed or cancelled run's counts are what the engine reported before it stopped, not the whole change.
            `${counts.join(", ")}${r.status === "ok" ? "" : " before it stopped"}`
          : r.status !== "ok"
            ? "nothing done"
            : drift
              ? "no drift"
              : "no changes";
    const size = `${r.products} ${r.products === 1 ? "product" : "products"}${r.new ? ", a new stack" : ""}`;
    lines.push(`${r.stack} (${size}): ${what}; ${r.requests} request(s), ${r.seconds.toFixed(1)} s${state}`);
    for (const note of r.notes) lines.push(`  ! ${note}`);
    list(lines, "+", r.creates);
    list(lines, "=", r.adopts);
    list(lines, "~", r.updates);
    list(lines, "+-", r.replaces);
    list(lines, "-", r.deletes);
    list(lines, "~", r.drift);
    for (const error of r.errors) lines.push(`  error: ${error}`);
  }
  const t = totals(run.results);
  const own = run.requests ?? 0;
  t.requests += own;
  const kinds = drift
    ? `${t.drift} ${run.command === "refresh" ? "accepted" : "drifted"}`
    : `${t.creates} ${verb("to create", "created")}, ${t.adopts} ${verb("to adopt", "adopted")}, ` +
      `${t.updates} ${verb("to update", "updated")}${t.archives ? ` (${t.archives} to archived)` : ""}, ` +
      `${t.replaces} ${verb("to replace", "replaced")}, ${t.deletes} ${verb("to delete", "deleted")}` +
      // Not deployed, and in no count before: a run that exits 0 must still say so (each is named above, "in flight, find and adopt").
      `${t.leftOut ? `, ${t.leftOut} left out until adopted (in flight, find and adopt: see above)` : ""}`;
  lines.push(
    `Total: ${kinds}; ${t.requests} request(s) sent${own > 0 ? " (the project listing included)" : ""}; ${t.failed} stack(s) failed` +
      `${t.cancelled ? `, ${t.cancelled} cancelled` : ""}${t.blocked ? `, ${t.blocked} blocked` : ""}${t.skipped ? `, ${t.skipped} skipped` : ""}`,
  );
  for (const line of run.next ?? []) lines.push(line);
  return lines.join("\n");
}

/** An update that sets status to archived: called out, since it takes the product off sale. */
function archives(line: ProductLine): boolean {
  return line.fields.some((f) => f.field === "status" && f.to === "archived" && f.from !== "archived");
}

function list(lines: string[], mark: string, items: ProductLine[]): void {
  // Those that change fields first: 200 adoptions of which one changes a record must not hide it among "… and 180 more".
  const quiet = (item: ProductLine) => (item.fields.length === 0 ? 1 : 0);
  items = [...items].sort((a, b) => quiet(a) - quiet(b) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (const item of items.slice(0, LISTED)) {
    lines.push(`  ${mark} ${item.key}${item.what !== undefined ? ` (${item.what})` : ""}`);
    for (const field of item.fields) lines.push(`      ${describeField(field)}`);
  }
  if (items.length > LISTED) lines.push(`  ${mark} … and ${items.length - LISTED} more`);
}

/** `title: "Pro plan" → "Pro"`, with a status change to or from archived said in words. */
export function describeField(change: FieldValue): string {
  // A create's field: no value before.
  if (change.from === undefined && change.to !== undefined)
    return `${change.field}: ${shown(change.to)}${change.field === "status" && change.to === "archived" ? "   ← created archived" : ""}`;
  const note =
    change.field === "status" && change.to === "archived" && change.from !== "archived"
      ? "   ← archives it"
      : change.field === "status" && change.from === "archived" && change.to !== "archived"
        ? "   ← brings it back from archived"
        : change.to === null && change.from !== null
          ? "   (cleared)"
          : "";
  return `${change.field}: ${shown(change.from)} → ${shown(change.to)}${note}`;
}

/** A value as the report prints it: the engine's `[secret]` and unknowns in words, anything else as the provider's messages show values (`shown`). */
export function shown(value: unknown): string {
  if (value === "[secret]") return "[secret]";
  if (isUnknown(value)) return "(known after up)";
  if (value === undefined) return "(unset)";
  return shownValue(value);
}
