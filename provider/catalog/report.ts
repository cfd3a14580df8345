/**
 * The combined report: one readable text for a terminal or a pull request comment (per stack:
 * creates, updates with field names, replaces, deletes or drift; totals; requests sent), or JSON
 * (`--json`) — the same objects, which `serviceapi-catalog report` combines again when a CI matrix
 * ran each stack in a job of its own. Keys and field names only, never a value.
 */
import type { StackReport } from "./stack-run";

export interface RunReport {
  command: string;
  /** Stacks in the layout, and how many of them this run took. */
  stacks: number;
  /** What the run was limited to, for the heading ("changed since origin/main: 1 added, 1 changed"). */
  scope?: string;
  splits: string[];
  results: StackReport[];
  /** Requests the tool itself sent, outside any stack (its token check). */
  requests?: number;
}

export interface Totals {
  creates: number;
  updates: number;
  replaces: number;
  deletes: number;
  requests: number;
  failed: number;
  skipped: number;
}

export function totals(results: StackReport[]): Totals {
  const t: Totals = { creates: 0, updates: 0, replaces: 0, deletes: 0, requests: 0, failed: 0, skipped: 0 };
  for (const r of results) {
    t.creates += r.creates.length;
    t.updates += r.updates.length;
    t.replaces += r.replaces.length;
    t.deletes += r.deletes.length;
    t.requests += r.requests;
    if (r.status === "failed" || r.status === "cancelled") t.failed++;
    if (r.status === "skipped") t.skipped++;
  }
  return t;
}

/** At most this many products are listed per stack and kind; the rest is counted. */
const LISTED = 20;

export function formatReport(run: RunReport): string {
  const drift = run.command === "drift";
  // What was done (up, destroy) or would be (preview, drift).
  const done = run.command === "up" || run.command === "destroy";
  const verb = (future: string, past: string) => (done ? past : future);
  const ran = run.results.filter((r) => r.status !== "skipped");
  const lines: string[] = [];
  lines.push(`serviceapi-catalog ${run.command}: ${ran.length} of ${run.stacks} stack(s)${run.scope ? ` (${run.scope})` : ""}`);
  for (const split of run.splits) lines.push(`  ${split}`);
  for (const r of [...run.results].sort((a, b) => (a.stack < b.stack ? -1 : 1))) {
    if (r.status === "skipped") {
      lines.push(`${r.stack}: skipped, done in the run before with the same products (--all runs it again)`);
      continue;
    }
    const counts = [
      r.creates.length && `${r.creates.length} ${verb("to create", "created")}`,
      r.updates.length && `${r.updates.length} ${drift ? "drifted" : verb("to update", "updated")}`,
      r.replaces.length && `${r.replaces.length} ${verb("to replace", "replaced")}`,
      r.deletes.length && `${r.deletes.length} ${verb("to delete", "deleted")}`,
    ].filter(Boolean);
    const state = r.status === "ok" ? "" : ` — ${r.status.toUpperCase()}`;
    // A stack that failed before any step says so, not "no changes".
    const what = counts.length > 0 ? counts.join(", ") : r.status !== "ok" ? "nothing done" : drift ? "no drift" : "no changes";
    lines.push(`${r.stack} (${r.products} products): ${what}; ${r.requests} request(s), ${r.seconds.toFixed(1)} s${state}`);
    list(lines, "+", r.creates);
    list(
      lines,
      "~",
      r.updates.map((u) => `${u.key}: ${u.fields.join(", ")}`),
    );
    list(
      lines,
      "+-",
      r.replaces.map((u) => `${u.key}: ${u.fields.join(", ")}`),
    );
    list(lines, "-", r.deletes);
    for (const error of r.errors) lines.push(`  error: ${error}`);
  }
  const t = totals(run.results);
  const own = run.requests ?? 0;
  t.requests += own;
  lines.push(
    `Total: ${t.creates} ${verb("to create", "created")}, ${t.updates} ${drift ? "drifted" : verb("to update", "updated")}, ` +
      `${t.replaces} ${verb("to replace", "replaced")}, ${t.deletes} ${verb("to delete", "deleted")}; ` +
      `${t.requests} request(s) sent${own > 0 ? ` (the token check included)` : ""}; ${t.failed} stack(s) failed${t.skipped ? `, ${t.skipped} skipped` : ""}`,
  );
  return lines.join("\n");
}

function list(lines: string[], mark: string, items: string[]): void {
  items = [...items].sort();
  for (const item of items.slice(0, LISTED)) lines.push(`  ${mark} ${item}`);
  if (items.length > LISTED) lines.push(`  ${mark} … and ${items.length - LISTED} more`);
}
