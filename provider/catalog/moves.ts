/**
 * Moving products between stacks with Pulumi's own `pulumi state move` — no request to the service,
 * no create, no archive: the records stay exactly as they are, only the state that tracks them
 * moves. One mechanism for every reason a product's stack changes: a stack that split, an entry
 * moved to another file (another group), a stack of the layout of 0.1 (`plan.ts` lists them).
 *
 * The order makes every interruption visible and finishes by itself: the destination stacks are
 * created (empty) first, then each source stack's products move, and only then is a stack the
 * layout no longer has removed — when its state holds nothing. A run cut off half-way leaves
 * products in their old stacks, where the next run finds them (a product's stack is what the states
 * say) and moves them again; a preview meanwhile runs on the stacks as they are.
 */
import type { Plan } from "./plan";
import type { Workspaces } from "./workspace";

/** What the moves did, one line per source stack and per stack removed. */
export async function makeMoves(workspaces: Workspaces, plan: Plan, log: (line: string) => void): Promise<string[]> {
  const lines: string[] = [];
  const bySource = new Map<string, Map<string, string[]>>();
  for (const move of plan.moves) {
    const urn = plan.discovery.stacks.get(move.from)!.records.get(move.key)!.urn;
    const into = bySource.get(move.from) ?? new Map<string, string[]>();
    into.set(move.to, [...(into.get(move.to) ?? []), urn]);
    bySource.set(move.from, into);
  }
  // Destinations first: `state move` needs them, and an interruption then leaves the old stack beside its new ones.
  for (const to of new Set(plan.moves.map((m) => m.to))) await workspaces.stack(to);
  for (const [from, into] of [...bySource].sort(([a], [b]) => (a < b ? -1 : 1))) {
    for (const [to, urns] of [...into].sort(([a], [b]) => (a < b ? -1 : 1))) {
      await workspaces.run(from, ["state", "move", "--source", from, "--dest", to, "--yes", ...urns]);
    }
    const line = `moved ${[...into.values()].reduce((n, u) => n + u.length, 0)} product(s) from ${from} into ${[...into]
      .map(([to, urns]) => `${to} (${urns.length})`)
      .join(", ")} with pulumi state move, no request to the service`;
    log(line);
    lines.push(line);
  }
  return lines;
}

/** Removes a stack the layout no longer has, once its state holds no product; whether it did (false: it still holds some). */
export async function retire(workspaces: Workspaces, name: string): Promise<boolean> {
  const stack = await workspaces.stack(name);
  const state = await stack.exportStack();
  const resources = (state.deployment as { resources?: { type: string }[] }).resources ?? [];
  const left = resources.filter((r) => r.type !== "pulumi:pulumi:Stack" && !r.type.startsWith("pulumi:providers:")).length;
  if (left > 0) return false;
  // --force: the emptied stack still has its root `Stack` resource, which `stack rm` counts.
  await stack.workspace.removeStack(name, { force: true });
  return true;
}
