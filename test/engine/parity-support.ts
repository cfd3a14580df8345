/**
 * The preview-is-the-contract check, shared by the parity suite and its property test: one change
 * of the catalog run as `serviceapi-catalog preview --json`, then `up --json`, from the same state,
 * against the simulator, and three equalities —
 *
 * 1. the same exit code (and, for a refusal before any stack, the same line);
 * 2. the same lines in both reports: each product's operation, fields (before → after) and the
 *    stacks' blocking reasons — a stack an up does not run (blocked) compared by its reasons only;
 * 3. the simulator's writes during the `up` equal the writes the preview announced, derived here
 *    from its JSON alone by the table in `provider/catalog/changes.ts` (an independent oracle).
 *
 * And the preview wrote nothing: neither to the backend (its files' digest) nor to the service.
 */
import { expect } from "vitest";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { openStateBackend } from "../../provider/backend";
import type { PlannedChange } from "../../provider/catalog/changes";
import { denials, type RunReport } from "../../provider/catalog/report";
import type { CatalogUser, ToolRun } from "./catalog-support";
import { expectSchema } from "./json-schema";

const PRODUCTS = "/api/v1/public/products";
/** Where a site's PATCH goes (a site is only ever renamed: `PATCH /v1/sites/{id}`). */
const SITES = "/v1/sites";
/** Where a task is created (`POST /v1/tasks`: the only request a task ever gets). */
const TASKS = "/v1/tasks";
/** The fields a create carries (the contract's table: `status` is sent by one PATCH after the POST). */
const UPDATE_ONLY = new Set(["status"]);
/** The simulator's status for a new product (docs/api-assumptions.md). */
const INITIAL_STATUS = "draft";

export interface ParityResult {
  preview: ToolRun;
  up: ToolRun;
  previewReport?: RunReport;
  upReport?: RunReport;
  /** The writes the up sent, as `METHOD path body` (a new record's id as `:new`). */
  writes: string[];
}

/** The writes of the simulator's log: requests with a body other than `{}` (an empty PATCH is the API's only read of a product). */
function writesOf(sim: Simulator, created: Set<string>): string[] {
  return sim
    .requests()
    .filter((r) => r.operation !== null && r.method !== "GET" && r.body !== null && Object.keys(r.body as object).length > 0)
    .map((r) => {
      const id = r.path.split("/").pop()!;
      const path = created.has(id) ? `${PRODUCTS}/:new` : r.path;
      return `${r.method} ${path} ${canonical(r.body)}`;
    })
    .sort();
}

/** JSON with its keys sorted: two bodies with the same fields read the same. */
function canonical(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  return `{${Object.keys(value as object)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
    .join(",")}}`;
}

/**
 * The writes a report announces, by `changes.ts`'s table: `ids` names each key's record (the state
 * before the run), `projects` each project's id. A stack the up will not run announces nothing.
 */
export function announcedWrites(
  report: RunReport,
  ids: ReadonlyMap<string, string>,
  projectId: (change: PlannedChange) => string,
): string[] {
  const out: string[] = [];
  const patch = (id: string, body: Record<string, unknown>, kind?: PlannedChange["kind"]) =>
    out.push(`PATCH ${kind === "site" ? SITES : PRODUCTS}/${id} ${canonical(body)}`);
  const sent = (change: PlannedChange) => Object.fromEntries(change.fields.filter((f) => f.stackOnly !== true).map((f) => [f.field, f.to]));
  const create = (change: PlannedChange, project = projectId(change)) => {
    const fields = change.fields.filter((f) => f.stackOnly !== true && f.to !== null && f.to !== undefined);
    // A task: one POST of every field it is created with (the API has nothing else for a task).
    if (change.kind === "task") {
      out.push(`POST ${TASKS} ${canonical({ projectId: project, ...Object.fromEntries(fields.map((f) => [f.field, f.to])) })}`);
      return;
    }
    out.push(
      `POST ${PRODUCTS} ${canonical({ projectId: project, ...Object.fromEntries(fields.filter((f) => !UPDATE_ONLY.has(f.field)).map((f) => [f.field, f.to])) })}`,
    );
    const later = Object.fromEntries(fields.filter((f) => UPDATE_ONLY.has(f.field) && f.to !== INITIAL_STATUS).map((f) => [f.field, f.to]));
    if (Object.keys(later).length > 0) patch(":new", later);
  };
  for (const stack of report.results) {
    if (stack.blocked.length > 0 || stack.status === "blocked") continue;
    for (const change of stack.changes) {
      const id = ids.get(change.renamedFrom ?? change.key) ?? `(no id for ${change.key})`;
      switch (change.op) {
        case "create":
          create(change);
          break;
        case "adopt":
        case "update":
        case "give-back":
          if (Object.keys(sent(change)).length > 0)
            patch(change.op === "adopt" ? change.adoptId!.toLowerCase() : id, sent(change), change.kind);
          break;
        case "archive":
          patch(id, { status: "archived" });
          break;
        case "replace": {
          // A new record — created (its project is the replacement's reason) or adopted (a PATCH of the fields it sets) —
          // then the old one's removal.
          if (change.then !== "archive" && change.then !== "retain" && change.then !== "forget")
            throw new Error(
              `${change.key}: a replacement whose old record is given back is not announced field by field; keep it out of parity steps`,
            );
          if (change.adoptId !== undefined) {
            if (Object.keys(sent(change)).length > 0) patch(change.adoptId.toLowerCase(), sent(change));
          } else {
            const project = change.fields.find((f) => f.field === "projectId");
            create({ ...change, fields: change.fields.filter((f) => f.field !== "projectId") }, project?.to as string | undefined);
          }
          if (change.then === "archive") patch(id, { status: "archived" });
          break;
        }
        default:
          break;
      }
    }
  }
  return out.sort();
}

/** What both reports must say alike: per product, its operation and fields; per stack, blocked or not and why. */
export function reportLines(report: RunReport): string[] {
  const lines: string[] = [];
  for (const stack of report.results) {
    const blocked = stack.status === "blocked" || stack.blocked.length > 0;
    // A stack a resumed up skips was done with the same products and settings: it has nothing to do, as its preview must show.
    lines.push(`${stack.stack}: ${blocked ? "BLOCKED" : stack.status === "skipped" ? "ok" : stack.status}`);
    for (const reason of stack.blocked) lines.push(`${stack.stack} blocked: ${JSON.stringify(reason)}`);
    for (const reason of stack.notes) if (reason.code !== "stack-removed") lines.push(`${stack.stack} note: ${JSON.stringify(reason)}`);
    // A stack an up does not run shows, in a preview, what it would do once unblocked: compared by its reasons only.
    if (blocked) continue;
    for (const c of stack.changes) {
      // A move is shown by the stack it leaves (preview) and by the one it reaches (up): compared without the stack.
      const fields = c.fields.map((f) => `${f.field}: ${JSON.stringify(f.from)} → ${JSON.stringify(f.to)}${f.stackOnly ? " (stack)" : ""}`);
      const more = [
        c.renamedFrom && `from ${c.renamedFrom}`,
        c.adoptId && `adopts ${c.adoptId}`,
        c.toStack && `to ${c.toStack}`,
        c.then && `then ${c.then}`,
      ];
      lines.push(
        `${c.key} ${c.kind ?? "product"} ${c.op}${more
          .filter(Boolean)
          .map((m) => ` (${m})`)
          .join("")}${fields.map((f) => `; ${f}`).join("")}`,
      );
      for (const reason of c.reasons)
        if (reason.code !== "outside-change") lines.push(`${c.key} ${reason.code}: ${JSON.stringify(reason)}`);
    }
  }
  return lines.sort();
}

function parse(run: ToolRun): RunReport | undefined {
  return run.stdout.trim().startsWith("{") ? (JSON.parse(run.stdout) as RunReport) : undefined;
}

/** The ids of every product in the stacks' states, by key (read from the backend as the tool reads it: no `pulumi` process). */
async function idsOf(user: CatalogUser): Promise<Map<string, string>> {
  const backend = await openStateBackend({ url: user.env.PULUMI_BACKEND_URL, env: user.env });
  try {
    const ids = new Map<string, string>();
    for (const ref of await backend.stacks()) {
      for (const r of (await backend.state(ref))?.resources ?? []) {
        if (r.id === undefined || r.type === "pulumi:pulumi:Stack" || r.type.startsWith("pulumi:providers:")) continue;
        ids.set(r.urn.split("::").pop()!, r.id.toLowerCase());
      }
    }
    return ids;
  } finally {
    await backend.close();
  }
}

/**
 * Runs the catalog as it is in the working tree as `preview --json` then `up --json`, asserts the
 * three equalities, and returns both runs. `label` names the step in a failure.
 */
export async function parity(
  user: CatalogUser,
  sim: Simulator,
  label: string,
  projectId: (change: PlannedChange) => string,
  args: string[] = [],
): Promise<ParityResult> {
  const ids = await idsOf(user);
  const backend = user.backendDigest();
  sim.clearRequests();
  const preview = await user.tool(["preview", "--json", ...args]);
  const previewWrites = writesOf(sim, new Set());
  expect(previewWrites, `${label}: a preview sends no write`).toEqual([]);
  expect(user.backendDigest(), `${label}: a preview writes nothing to the backend`).toBe(backend);
  sim.clearRequests();
  const up = await user.tool(["up", "--json", ...args]);
  // The records the up made: in the states now, and not before, nor taken over.
  const previewed = parse(preview);
  const adopted = (previewed?.results ?? []).flatMap((r) => r.changes.map((c) => c.adoptId?.toLowerCase()));
  const existing = new Set([...ids.values(), ...adopted]);
  const created = new Set([...(await idsOf(user)).values()].filter((id) => !existing.has(id)));
  const writes = writesOf(sim, created);
  expect(
    up.code,
    `${label}: the up's exit code is the preview's\n--- preview:\n${preview.stdout}${preview.stderr}\n--- up:\n${up.stdout}${up.stderr}`,
  ).toBe(preview.code);
  const previewReport = parse(preview);
  const upReport = parse(up);
  for (const [run, report] of [
    ["preview", previewReport],
    ["up", upReport],
  ] as const)
    if (report !== undefined) expectSchema("report", report, `${label}: the ${run}`);
  if (previewReport === undefined || upReport === undefined) {
    // Refused before any stack ran: the same line, and nothing sent.
    expect(upReport, `${label}: both refused before any stack`).toBeUndefined();
    expect(previewReport).toBeUndefined();
    expect(up.stderr, `${label}: the same refusal`).toBe(preview.stderr);
    expect(writes, `${label}: a refusal writes nothing`).toEqual([]);
    return { preview, up, writes };
  }
  expect(reportLines(upReport), `${label}: the up's report says what the preview's said`).toEqual(reportLines(previewReport));
  // A change a policy denies: the preview fails with exit 3, and the up refuses it whole before any write.
  const announced = denials(previewReport) > 0 ? [] : announcedWrites(previewReport, ids, projectId);
  expect(writes, `${label}: the up sent exactly the writes its preview announced`).toEqual(announced);
  return { preview, up, previewReport, upReport, writes };
}
