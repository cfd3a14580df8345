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
import {
  OPERATIONS,
  REMOVALS,
  archives,
  type FieldChange,
  type Manager,
  type Operation,
  type PlannedChange,
  type Reason,
  type Recovery,
} from "./changes";
import type { CatalogChange } from "./catalog";
import { createdLine } from "./created-lines";
import { countsText } from "./kinds";
import type { Move, Split } from "./plan";
import type { StackReport } from "./stack-run";

/** The version of `--json`'s shape (plan and report): bumped when a field changes meaning or goes. */
export const REPORT_VERSION = 2;

export interface RunReport {
  /** The version of this shape (REPORT_VERSION); none in a report of version 1. */
  version?: number;
  command: string;
  /** Stacks in the layout. */
  stacks: number;
  /** What the run was limited to, for the heading ("changed since origin/main: 1 added, 1 changed"). */
  scope?: string;
  /** What a reviewer must see about the whole catalog. */
  notes?: Reason[];
  results: StackReport[];
  /** Requests the tool itself sent, outside any stack (its project listing, which checks the token; an up's policies' preview). */
  requests?: number;
  /** An up's: the requests of the preview it ran for its policies first (counted in `requests`). */
  previewRequests?: number;
  /** For drift: the commands that fix what it found. */
  next?: string[];
  /** How the rate limit was shared (`run.ts`). */
  rateLimit?: RateLimitReport;
  /** In `--json` only: what the text report's `Total:` line says (`runTotals`). */
  totals?: Totals;
}

/**
 * `plan --json`: what a deploy of the catalog would run, for a CI workflow's matrix and for policy
 * engines (docs/schema/plan-v2.json is this type as JSON Schema, `npm run schema`).
 */
export interface PlanReport {
  /** The version of this shape (REPORT_VERSION). */
  version: typeof REPORT_VERSION;
  /** The stacks an up runs, by name. */
  stacks: string[];
  /** `strategy.matrix: ${{ fromJSON(needs.plan.outputs.matrix) }}` in GitHub Actions. */
  matrix: { stack: string[] };
  /** Whether there is a stack to run: Actions refuses an empty matrix. */
  any: boolean;
  /** The stacks a preview (or drift) runs: before the moves, where the products are now. */
  preview: { matrix: { stack: string[] }; any: boolean };
  /**
   * Stacks per CI job, comma-separated, for `--stack "$BATCH"`. `preview` holds every preview stack;
   * `previewReadOnly` those a token that may only read can preview, `previewAdopting` those that
   * take products over (`adoptId`), whose preview reads each with an empty PATCH and so needs a token
   * that may update products (the example workflow's approved `adoption` job).
   */
  batches: { deploy: string[]; preview: string[]; previewReadOnly: string[]; previewAdopting: string[] };
  /** Stacks split into others (state moves; no request to the service). */
  splits: Split[];
  /** State moves due before a deploy (`pulumi state move`). */
  moves: Move[];
  /** Renamed keys: the new key, and the key the state holds. */
  renames: { key: string; from: string }[];
  /** Stacks an up would not run, with why. */
  blocked: { stack: string; reasons: Reason[] }[];
  /** What a reviewer must see about the whole catalog. */
  notes: Reason[];
  /** With `--base`: the entries the change adds, changes, moves and removes; null without. */
  change: CatalogChange | null;
  layout: {
    /** Stacks in the layout after the moves. */
    stacks: number;
    /** Entries in the catalog. */
    products: number;
    /** No stack exists yet: the first up creates them. */
    fresh: boolean;
  };
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

/** Per operation: its mark in a report, and its words before (a preview) and after (an up). */
const OPS: Record<Operation, { mark: string; future: string; past: string }> = {
  create: { mark: "+", future: "to create", past: "created" },
  adopt: { mark: "=", future: "to adopt", past: "adopted" },
  update: { mark: "~", future: "to update", past: "updated" },
  state: { mark: "~", future: "to record in the stack only", past: "recorded in the stack only" },
  replace: { mark: "+-", future: "to replace", past: "replaced" },
  archive: { mark: "-", future: "to archive", past: "archived" },
  "give-back": { mark: "-", future: "to give back", past: "given back" },
  retain: { mark: "-", future: "to release (kept as it is)", past: "released (kept as they are)" },
  forget: { mark: "-", future: "to forget", past: "forgotten" },
  rename: { mark: ">", future: "to rename", past: "renamed" },
  move: { mark: ">", future: "to move", past: "moved" },
  drift: { mark: "~", future: "drifted", past: "accepted" },
  gone: { mark: "-", future: "gone from the service", past: "dropped (gone from the service)" },
};

/** The order a stack lists its changes in (and counts them): the typed plan's. */
const ORDER = OPERATIONS;
const REMOVED = REMOVALS;

export interface Totals {
  /** Changes by operation. */
  ops: Record<Operation, number>;
  /** Updates (and creates) that set status to archived. */
  archives: number;
  requests: number;
  failed: number;
  cancelled: number;
  blocked: number;
  skipped: number;
  /** Lost creates left out, not deployed until someone adopts or re-creates them. */
  leftOut: number;
  /** Policy verdicts (docs/policies.md): denials (exit 3; an up refused before any write) and warnings. */
  denied: number;
  warned: number;
}

export function totals(results: StackReport[]): Totals {
  const t: Totals = {
    ops: Object.fromEntries(ORDER.map((op) => [op, 0])) as Record<Operation, number>,
    archives: 0,
    requests: 0,
    failed: 0,
    cancelled: 0,
    blocked: 0,
    skipped: 0,
    leftOut: 0,
    denied: 0,
    warned: 0,
  };
  for (const r of results) {
    for (const change of r.changes) t.ops[change.op] += 1;
    t.archives += r.changes.filter((c) => c.op === "update" && archives(c)).length;
    t.requests += r.requests;
    if (r.status === "failed") t.failed++;
    if (r.status === "cancelled") t.cancelled++;
    if (isBlocked(r)) t.blocked++;
    if (r.status === "skipped") t.skipped++;
    t.leftOut += r.leftOut ?? 0;
    t.denied += r.changes.reduce((n, c) => n + verdicts(c.reasons, "deny"), 0);
    t.warned += r.changes.reduce((n, c) => n + verdicts(c.reasons, "warn"), 0);
  }
  return t;
}

function verdicts(reasons: Reason[] | undefined, level: "deny" | "warn"): number {
  return (reasons ?? []).filter((r) => r.code === "policy" && r.level === level).length;
}

/** A whole run's totals: its stacks' and the requests the tool sent itself. */
export function runTotals(run: RunReport): Totals {
  const t = totals(run.results);
  t.requests += run.requests ?? 0;
  t.denied += verdicts(run.notes, "deny");
  t.warned += verdicts(run.notes, "warn");
  return t;
}

/** Blocked: an up did not run it, or a preview ran a stack an up would not run (the check fails the same way). */
export function isBlocked(r: StackReport): boolean {
  return r.status === "blocked" || (r.status !== "skipped" && r.blocked.length > 0);
}

/** At most this many products are listed per stack and kind; the rest is counted. */
const LISTED = 20;

export function formatReport(run: RunReport): string {
  const drift = run.command === "drift" || run.command === "refresh";
  // What was done (up, destroy, refresh) or would be (preview, drift).
  const done = run.command.startsWith("up") || run.command === "destroy" || run.command === "refresh";
  const verb = (op: Operation) => (done ? OPS[op].past : OPS[op].future);
  const ran = run.results.filter((r) => r.status !== "skipped");
  const lines: string[] = [];
  lines.push(`serviceapi-catalog ${run.command}: ${ran.length} of ${run.stacks} stack(s)${run.scope ? ` (${run.scope})` : ""}`);
  for (const note of run.notes ?? []) lines.push(`  ! ${describeReason(note)}`);
  for (const r of [...run.results].sort((a, b) => (a.stack < b.stack ? -1 : 1))) {
    if (r.status === "skipped") {
      lines.push(`${r.stack}: skipped, done in the run before with the same products and settings (--all runs it again)`);
      continue;
    }
    const counts = ORDER.map((op) => {
      const n = r.changes.filter((c) => c.op === op).length;
      const archived = op === "update" ? r.changes.filter((c) => c.op === op && archives(c)).length : 0;
      return n > 0 && `${n} ${verb(op)}${archived ? ` (${archived} ${done ? "archived" : "to archive"})` : ""}`;
    }).filter(Boolean);
    const state =
      r.status === "ok"
        ? r.blocked.length > 0
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
    const size = `${countsText(r.size)}${r.new ? ", a new stack" : ""}`;
    lines.push(`${r.stack} (${size}): ${what}; ${r.requests} request(s), ${r.seconds.toFixed(1)} s${state}`);
    for (const reason of [...r.blocked, ...r.notes]) lines.push(`  ! ${describeReason(reason)}`);
    for (const op of ORDER) {
      const changes = r.changes.filter((c) => c.op === op);
      if (op === "move") listMoves(lines, changes, done);
      else list(lines, changes, done);
    }
    for (const error of r.errors) lines.push(`  error: ${error}`);
  }
  const t = runTotals(run);
  const own = run.requests ?? 0;
  const count = (op: Operation) => `${t.ops[op]} ${verb(op)}`;
  const removed = REMOVED.reduce((n, op) => n + t.ops[op], 0);
  const extra = (["state", "rename", "move"] as const).filter((op) => t.ops[op] > 0).map(count);
  const kinds = drift
    ? count("drift") + (t.ops.gone > 0 ? `, ${count("gone")}` : "")
    : `${count("create")}, ${count("adopt")}, ${count("update")}${t.archives ? ` (${t.archives} ${done ? "archived" : "to archive"})` : ""}, ${count("replace")}, ` +
      `${removed} ${done ? "removed" : "to remove"}` +
      (removed > 0
        ? ` (${REMOVED.filter((op) => t.ops[op] > 0)
            .map((op) => `${t.ops[op]} ${done ? OPS[op].past : OPS[op].future}`)
            .join(", ")})`
        : "") +
      extra.map((e) => `, ${e}`).join("") +
      // Not deployed, and in no count before: a run that exits 0 must still say so (each is named above, "in flight, find and adopt").
      `${t.leftOut ? `, ${t.leftOut} left out until adopted (in flight, find and adopt: see above)` : ""}`;
  const verdictsText =
    (t.denied > 0 ? `${t.denied} DENIED by policy (nothing written: an up refuses the whole change); ` : "") +
    (t.warned > 0 ? `${t.warned} policy warning(s); ` : "");
  lines.push(
    `Total: ${kinds}; ${verdictsText}${t.requests} request(s) sent${own > 0 ? ` (the project listing${run.previewRequests ? ` and the policies' preview's ${run.previewRequests}` : ""} included)` : ""}; ${t.failed} stack(s) failed` +
      `${t.cancelled ? `, ${t.cancelled} cancelled` : ""}${t.blocked ? `, ${t.blocked} blocked` : ""}${t.skipped ? `, ${t.skipped} skipped` : ""}`,
  );
  for (const line of run.next ?? []) lines.push(line);
  return lines.join("\n");
}

function list(lines: string[], items: PlannedChange[], done: boolean): void {
  // Those that change fields first: 200 adoptions of which one changes a record must not hide it among "… and 180 more".
  const quiet = (item: PlannedChange) => (item.fields.length === 0 ? 1 : 0);
  items = [...items].sort((a, b) => quiet(a) - quiet(b) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (const item of items.slice(0, LISTED)) {
    const what = describeChange(item, done);
    lines.push(`  ${OPS[item.op].mark} ${item.key}${what !== "" ? ` (${what})` : ""}`);
    // A policy's verdict on a field under that field's line; the other reasons after the fields.
    const onField = (reason: Reason, field?: string) => reason.code === "policy" && reason.field !== undefined && reason.field === field;
    const fields = new Set(item.fields.map((f) => f.field));
    for (const field of item.fields) {
      lines.push(`      ${describeField(field, item.op === "drift")}`);
      for (const reason of item.reasons.filter((r) => onField(r, field.field))) lines.push(`      ${describeFieldReason(reason)!}`);
    }
    for (const reason of item.reasons.filter((r) => !(r.code === "policy" && r.field !== undefined && fields.has(r.field)))) {
      const line = describeFieldReason(reason);
      if (line !== undefined) lines.push(`      ${line}`);
    }
  }
  if (items.length > LISTED) lines.push(`  ${OPS[items[0]!.op].mark} … and ${items.length - LISTED} more`);
}

/** Moves, one line per pair of stacks (a relayout moves hundreds). */
function listMoves(lines: string[], moves: PlannedChange[], done: boolean): void {
  const pairs = new Map<string, PlannedChange[]>();
  for (const move of moves) {
    const pair = `${move.fromStack} → ${move.toStack}`;
    pairs.set(pair, [...(pairs.get(pair) ?? []), move]);
  }
  for (const pair of [...pairs.values()].sort((a, b) => (a[0]!.toStack! < b[0]!.toStack! ? -1 : 1))) {
    const keys = pair.map((m) => m.key).sort();
    const many = keys.length === 1 ? "moves" : `(${keys.length}) move`;
    lines.push(
      done
        ? `  > ${listed(keys)} ${keys.length === 1 ? "moved" : `(${keys.length}) moved`} from ${pair[0]!.fromStack} to ${pair[0]!.toStack} (their file's stack): pulumi state move, no request to the service`
        : `  > ${listed(keys)} ${many} to ${pair[0]!.toStack} (their file's stack) at the next split or up: pulumi state move, no request to the service`,
    );
  }
}

/** What happens to the product, in words beside its key; "" when its mark and fields say it all. */
export function describeChange(change: PlannedChange, done: boolean): string {
  const words: string[] = [];
  const d = (future: string, past: string) => (done ? past : future);
  switch (change.op) {
    case "adopt":
      words.push(
        change.kind === "site" ? `${d("takes over", "took over")} site ${change.adoptId}` : `${d("adopts", "adopted")} ${change.adoptId}`,
      );
      break;
    case "state":
      words.push(d("the stack's own record changes; nothing is sent", "the stack's own record changed; nothing was sent"));
      break;
    case "replace":
      words.push(
        change.kind === "site"
          ? `${d("takes over", "took over")} site ${change.adoptId} instead; the old one ${describeRemoval(change.then ?? "give-back", [], "site")}`
          : change.kind === "task"
            ? `${d("a new task replaces it", "a new task replaced it")}${change.adoptId !== undefined ? ` (adopting ${change.adoptId})` : ""}; the old one ${change.then === "forget" ? describeRemoval("forget") : `${change.runningId === undefined ? "" : `(task ${change.runningId}) `}keeps running on the service (the API cannot change or stop a task)`}`
            : `${d("a new record replaces it", "a new record replaced it")}${change.adoptId !== undefined ? ` (adopting ${change.adoptId})` : ""}; the old one ${describeRemoval(change.then ?? "archive")}`,
      );
      break;
    case "archive":
    case "give-back":
    case "retain":
    case "forget":
      words.push(describeRemoval(change.op, change.reasons, change.kind, change.runningId));
      // Its fields are judged at the up against the live record, which a preview without --refresh has not read.
      if (change.op === "give-back" && !done && change.fields.length > 0)
        words.push("a field changed on the service since the stack last read it is left as it is (preview --refresh reads them)");
      break;
    case "rename":
      words.push(`renamed from ${change.renamedFrom}: the same record, ${d("nothing is sent", "nothing was sent")}`);
      break;
    case "gone":
      words.push("gone from the service (404): the refresh drops it from the stack");
      break;
    default:
      break;
  }
  if (change.op !== "rename" && change.renamedFrom !== undefined) words.unshift(`renamed from ${change.renamedFrom}`);
  for (const reason of change.reasons)
    if (describeFieldReason(reason) === undefined && !isRemovalReason(reason)) words.push(describeReason(reason));
  return words.join("; ");
}

function isRemovalReason(reason: Reason): boolean {
  return reason.code === "adopted-without-record";
}

/** What removing the entry does to the record (the same words before and after: the state it leaves). */
function describeRemoval(op: Operation, reasons: Reason[] = [], kind?: PlannedChange["kind"], runningId?: string): string {
  // A site is never deleted: its entry gone, it gets back what it had when taken over, or keeps what it has.
  if (kind === "site" && op === "give-back") return "given back as it was found: a site is never deleted";
  if (kind === "site" && op === "retain") return "kept on the service as it is (restoreNameOnDelete: false)";
  // A task can only be created: nothing stops it.
  if (kind === "task" && op === "retain")
    return `left running on the service${runningId === undefined ? "" : ` as task ${runningId}`} (the API cannot change or stop a task: stop it there if it should stop)`;
  switch (op) {
    case "archive":
      return "archived: this stack created it";
    case "give-back":
      return "given back as it was found: taken over, not archived";
    case "retain":
      return reasons.some((r) => r.code === "adopted-without-record")
        ? "left as it is: adopted by an older version, which kept no record of what it found"
        : "kept on the service as it is (onDelete: retain)";
    case "forget":
      return "forgotten: its create was never confirmed, so there is nothing to archive";
    default:
      return OPS[op].past;
  }
}

/** A reason shown under a product's fields, as one more field line; undefined for one said beside the key. */
function describeFieldReason(reason: Reason): string | undefined {
  switch (reason.code) {
    case "keeps-status":
      return `status: stays ${shown(reason.status)} (it was ${shown(reason.found)} when taken over): removing an entry never makes a product more live`;
    case "changed-since":
      return `${reason.fields.join(", ")}: left as the service shows ${reason.fields.length === 1 ? "it" : "them"} (changed since this stack set ${reason.fields.length === 1 ? "it" : "them"})`;
    case "give-back-unread":
      return "its fields are set back to what they were when taken over; they could not be read before the run to be listed here";
    case "already-as-found":
      return `${reason.fields.join(", ")}: already as found on the service, nothing to send`;
    case "already-gone":
      return "gone from the service (404): nothing was sent, the stack forgot it";
    case "policy":
      return describePolicy(reason);
    default:
      return undefined;
  }
}

/** Every reason in words: what it means and the way out. The one place a reason becomes a sentence. */
export function describeReason(reason: Reason): string {
  switch (reason.code) {
    case "state-unloadable":
      return (
        `its state cannot be loaded (${reason.detail}): a run was killed while writing it. ` +
        `\`serviceapi-catalog recover --stack ${reason.stack}\` repairs it`
      );
    case "locked":
      return (
        `LOCKED by ${reason.by.username}@${reason.by.hostname} (pid ${reason.by.pid}) since ${reason.by.since}: a run on it was killed, or is still running. ` +
        `When no run is left (a killed or cancelled job), \`serviceapi-catalog recover --stack ${reason.stack}\` clears it`
      );
    case "pending-creates":
      return (
        `${reason.keys.length} create(s) left pending by a killed run (${listed(reason.keys)}): an up now would create them again. ` +
        `\`serviceapi-catalog recover --stack ${reason.stack}\` takes in those whose answer the run recorded and names the others`
      );
    case "pending-undeclared":
      return reason.keys.map(({ key, id }) => undeclaredCreate(reason.stack, key, id)).join("; ");
    case "pending-operations":
      return (
        `${reason.operations.length} other operation(s) left pending by a killed run (${listed(reason.operations.map((p) => `${p.key}: ${p.op}`))}): ` +
        `\`serviceapi-catalog recover --stack ${reason.stack}\` clears them`
      );
    case "adopts-managed":
      return (
        `${reason.key}: adoptId names a product that ${managers(reason.managers)} already manages; ` +
        (reason.allowed
          ? "allowed by serviceapi:adoptManaged=allow — the two stacks will undo each other's changes until one lets it go"
          : "an up refuses it (the two would undo each other's changes). Let the other stack give it up first (onDelete: retain, up, remove it), " +
            "or pass --config serviceapi:adoptManaged=allow for a hand-over")
      );
    case "lost-create":
      return describeLostCreate(reason);
    case "managed-elsewhere":
      return (
        `${reason.key}: also recorded by ${managers(reason.managers)}: two stacks manage one product and undo ` +
        `each other's changes. Keep it in one: the other sets onDelete: retain, runs up, then removes it`
      );
    case "in-two-stacks":
      return `${reason.key} is in the state of both ${reason.kept} and ${reason.ignored}: the later one is ignored until one of them no longer holds it`;
    case "move-waits":
      return `${reason.key} is due to move from ${reason.from} to ${reason.to}, which waits until ${reason.waitsFor} is recovered`;
    case "rename-candidate":
      return (
        `${reason.key} has the same fields as ${reason.from}, which the catalog no longer has: as they are, ${reason.from} is removed and ${reason.key} created. ` +
        `If it is a rename, add \`renamedFrom: ${reason.from}\` to ${reason.key}'s entry: the record is kept, nothing is sent`
      );
    case "removes-most":
      return (
        `this change removes ${reason.removed} of the ${reason.total} records of ${reason.stack}. If that is not what it means to do — ` +
        "another team's catalog with the same file names and --stack-prefix, a file emptied by mistake — stop here: " +
        "each catalog needs a --stack-prefix of its own"
      );
    case "stack-removed":
      return `removed ${reason.stack}: its products moved, and the layout no longer has it`;
    case "outside-change":
      return "not part of this change: the stack's state differs from the catalog (a refresh accepted a value, or a deploy did not run)";
    case "keeps-status":
    case "changed-since":
    case "give-back-unread":
    case "already-as-found":
    case "already-gone":
      return describeFieldReason(reason)!;
    case "adopted-without-record":
      return "adopted by an older version, which kept no record of what it found";
    case "lost-create-adopted":
      return "the record a killed or failed create of this stack made";
    case "policy":
      return `${reason.key !== undefined ? `${reason.key}: ` : ""}${describePolicy(reason)}`;
  }
}

/** A policy's verdict: the rule's own message, under the policy's name. */
function describePolicy(reason: Extract<Reason, { code: "policy" }>): string {
  const where = reason.field !== undefined ? `${reason.field}: ` : "";
  return reason.level === "deny"
    ? `${where}DENIED by policy ${reason.policy}: ${reason.message}`
    : `${where}warning from policy ${reason.policy}: ${reason.message}`;
}

/** Every policy denial in a run: on its changes and on the run. */
export function denials(run: RunReport): number {
  return runTotals(run).denied;
}

/** What `recover` did on a stack, in words (its `?` lines are the lost creates plan and preview name, word for word). */
export function describeRecovery(line: Recovery): string {
  switch (line.code) {
    case "repaired":
      return `repaired: removed ${line.file}, an empty attributes file the kill left, which stopped Pulumi from loading the state`;
    case "unlocked":
      return `unlocked: the lock of ${line.by.username}@${line.by.hostname} (pid ${line.by.pid}) since ${line.by.since} ${line.forced ? "(--force-unlock)" : "(that process is gone)"}`;
    case "locked-running":
      return `locked by pid ${line.pid}, a process still running on this machine: left as it is (let it end, or stop it first)`;
    case "locked-elsewhere":
      return (
        `locked by ${line.by.username}@${line.by.hostname} (pid ${line.by.pid}) since ${line.by.since}, another machine this tool cannot check: ` +
        `if that run is gone (a cancelled, killed or lost job), run \`serviceapi-catalog recover --force-unlock --stack ${line.stack}\``
      );
    case "taken-in":
      return line.source === "log"
        ? `= ${line.key} (adopted ${line.id}: the id a log given names for its create, checked against the record; read, nothing created)`
        : line.was === "pending"
          ? `= ${line.key} (adopted ${line.id}: its create returned before the kill, and the run recorded its id; read, nothing created)`
          : `= ${line.key} (adopted ${line.id}: a lost create whose id the run recorded; read, nothing created)`;
    case "id-refused":
      return (
        `! ${line.key}: not taken in as ${line.id}, the id ${line.log} gives for its create: ` +
        (line.managers !== undefined
          ? `${managers(line.managers)} already records that product`
          : `that product's ${line.differs!.field} is ${shown(line.differs!.live)}, not the declared ${shown(line.differs!.declared)}`) +
        ". Check the log line; it stays a lost create until the right id is found"
      );
    case "lost":
      return `? ${describeLostCreate(line.reason)}${line.now ? "" : " (still: no id for it in the journals or logs given)"}`;
    case "adopt-next":
      return `= ${line.key}: a lost create the catalog now adopts (adoptId ${line.adoptId}): the next up takes it over, nothing created`;
    case "create-anew":
      return `+ ${line.key}: forgotten as a lost create (--create-anew): the next up creates it (once more, if it was on the service after all)`;
    case "cleared":
      return `cleared ${line.operations.length} other pending operation(s) (${line.operations.join(", ")}): their resources are in the state`;
    case "undeclared":
      return `! ${undeclaredCreate(line.stack, line.key, line.id)}`;
    case "journal-removed":
      return `removed ${line.file}: the create journal of a run that skipped Pulumi's checkpoints; the state now holds what it named`;
    case "nothing":
      return "nothing to recover";
  }
}

/**
 * A create a killed run sent of a key the catalog has dropped since (plan, preview and up name it as
 * a blocker, `recover` as what it could not take in: the same words).
 */
function undeclaredCreate(stack: string, key: string, id: string | undefined): string {
  return (
    `${key}: created by the killed run${id === undefined ? " (its answer lost)" : ` as ${id}`}, but the catalog no longer declares it: not taken in, ` +
    `and ${stack} stays blocked. Put its entry back and run \`serviceapi-catalog recover --stack ${stack}\` (a later pull request that removes it archives it)`
  );
}

/** The words for a create whose answer was lost: what a person searches for, and both ways out (plan, preview, up and recover say the same). */
function describeLostCreate(reason: Extract<Reason, { code: "lost-create" }>): string {
  const where = reason.file === undefined ? "its entry" : `${reason.key} in ${reason.file}`;
  return (
    `${reason.key}: in flight, find and adopt — a run sent its create and never recorded the answer (the run was killed, or the connection lost); its create may not have reached the service, ` +
    `but one that did is usually processed, so look for it (title ${JSON.stringify(reason.title ?? "")}${reason.slug ? `, slug ${JSON.stringify(reason.slug)}` : ""}); it is not created again by itself. ` +
    `Find it in the service's UI (or its id in the killed run's log: \`${createdLine({ stack: reason.stack, key: reason.key, id: "<id>", ...(reason.kind === "task" && { resource: "Task" as const }) })}\`, which \`recover --created-log FILE\` reads) and add \`adoptId: <its id>\` to ${where}; ` +
    `only if it is certainly not there, \`serviceapi-catalog recover --create-anew ${reason.key}\``
  );
}

function managers(list: Manager[]): string {
  return list.map((m) => `stack ${m.stack} (as ${m.name})`).join(", ");
}

function listed(items: string[]): string {
  return items.length <= 5 ? items.join(", ") : `${items.slice(0, 5).join(", ")} and ${items.length - 5} more`;
}

/**
 * `title: "Pro plan" → "Pro"`, with a status change to or from archived said in words: what the
 * write does, or for drift (recorded → live) what someone did on the service.
 */
export function describeField(change: FieldChange, drift = false): string {
  const own = change.stackOnly === true ? "   (kept by the stack: nothing sent)" : "";
  // A create's field: no value before.
  if (change.from === undefined && change.to !== undefined)
    return `${change.field}: ${shown(change.to)}${change.field === "status" && change.to === "archived" ? "   ← created archived" : ""}`;
  const note =
    change.field === "status" && change.to === "archived" && change.from !== "archived"
      ? drift
        ? "   ← archived on the service"
        : "   ← archives it"
      : change.field === "status" && change.from === "archived" && change.to !== "archived"
        ? drift
          ? "   ← brought back from archived on the service"
          : "   ← brings it back from archived"
        : change.to === null && change.from !== null
          ? "   (cleared)"
          : "";
  return `${change.field}: ${shown(change.from)} → ${shown(change.to)}${note}${own}`;
}

/** A value as the report prints it: the engine's `[secret]` and unknowns in words, anything else as the provider's messages show values (`shown`). */
export function shown(value: unknown): string {
  if (value === "[secret]") return "[secret]";
  if (isUnknown(value)) return "(known after up)";
  if (value === undefined) return "(unset)";
  return shownValue(value);
}
