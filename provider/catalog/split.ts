/**
 * A stack that grew past its size splits in two with Pulumi's own state commands — no request to
 * the service, no create, no archive: the records stay exactly as they are, only the state that
 * tracks them moves.
 *
 * The order makes every interruption visible in the stack list alone, on any runner: the new
 * stacks (`S0` and `S1`, or deeper when a half is still over size) are created empty first, then
 * `pulumi state move` moves each product of `S` to the stack its hash names, and only then is the
 * emptied `S` removed. Until that last step the backend holds `S` beside its halves — an overlap no
 * finished layout has (`shards.ts`) — and the next `up` or `split` finishes the moves (they only
 * take what is still in `S`), while `preview` and `drift` refuse to guess.
 */
import type { Stack } from "@pulumi/pulumi/automation";
import { keyBits, stackName, type Shard } from "./shards";
import type { Workspaces } from "./workspace";

export interface SplitStep {
  from: string;
  /** Each new stack, and how many products moved into it. */
  into: { stack: string; moved: number }[];
}

/**
 * Moves every product of `shard`'s stack to the one of `leaves` (the shards it becomes) its hash
 * names, then removes the emptied stack. Each product moves once, however many levels the split
 * goes down; run again after an interruption, it moves only what is still there.
 */
export async function split(workspaces: Workspaces, shard: Shard, leaves: Shard[], log: (line: string) => void): Promise<SplitStep> {
  const prefix = workspaces.options.stackPrefix;
  const source = await workspaces.stack(shard);
  for (const leaf of leaves) await workspaces.stack(leaf); // created empty: `state move` needs its destination
  const urns = await productUrns(source);
  const into: SplitStep["into"] = [];
  for (const leaf of leaves) {
    const moving = urns.filter((urn) => keyBits(urn.split("::").pop()!).startsWith(leaf));
    into.push({ stack: stackName(prefix, leaf), moved: moving.length });
    if (moving.length === 0) continue;
    await workspaces.run(shard, [
      "state",
      "move",
      "--source",
      stackName(prefix, shard),
      "--dest",
      stackName(prefix, leaf),
      "--yes",
      ...moving,
    ]);
  }
  const left = await productUrns(source);
  if (left.length > 0)
    throw new Error(`${stackName(prefix, shard)} still holds ${left.length} product(s) after the moves; it was left in place`);
  // --force: the emptied stack still has its root `Stack` resource, which `stack rm` counts.
  await source.workspace.removeStack(stackName(prefix, shard), { force: true });
  const step: SplitStep = { from: stackName(prefix, shard), into };
  log(
    `split ${step.from} into ${into.map((i) => `${i.stack} (${i.moved})`).join(", ")}: moved with pulumi state move, no request to the service`,
  );
  return step;
}

/** The URNs of the products in a stack's state (not the stack itself, not its providers). */
export async function productUrns(stack: Stack): Promise<string[]> {
  const state = await stack.exportStack();
  const resources = (state.deployment as { resources?: { urn: string; type: string }[] }).resources ?? [];
  return resources.filter((r) => r.type !== "pulumi:pulumi:Stack" && !r.type.startsWith("pulumi:providers:")).map((r) => r.urn);
}
