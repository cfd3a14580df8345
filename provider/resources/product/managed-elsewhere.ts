/**
 * One product, one stack: before a resource takes over a product that exists (`adoptId`, `pulumi
 * import` or the `import` option), the other stacks of the same state backend that record it
 * (`other-stacks.ts`). Two stacks managing one product undo each other's changes at every `up`,
 * and a destroy of either archives the product, or sets its fields back, under the other; the API
 * cannot tell (it knows nothing of stacks), so only the backend can.
 *
 * `serviceapi:adoptManaged` decides: `refuse` (the default) fails the adoption's preview and its
 * `up`, naming each stack and the name it gives the product, with the ways out; `allow` says the
 * same as a warning and adopts (a deliberate hand-over). A backend that cannot be read is said once,
 * and the adoption goes on: a check that cannot run must not block a team.
 */
import type { ProviderContext } from "../context";
import { label } from "../messages";
import { otherStacks, type Manager } from "./other-stacks";

/** How the product is being taken over: the words a message uses for it. */
export type TakeOver = "adoptId" | "import";

/**
 * The refusal, to follow "adoptId " or "the import " (the caller's failure names the resource: `names a
 * product that another stack …` / `takes over a product that …`), when another stack of
 * the backend records `productId` and `serviceapi:adoptManaged` is `refuse`; `undefined` to go on,
 * after a warning when the setting allows it, or when the other stacks cannot be read.
 */
export async function managedElsewhere(
  ctx: ProviderContext,
  productId: string,
  how: TakeOver,
  name: string | undefined,
): Promise<string | undefined> {
  const read = await otherStacks(ctx);
  if (!read.readable) {
    ctx.once(
      "warning",
      `the adoptions and imports of this command are not checked against the other stacks of the state backend: ${read.why}. ` +
        "They go on as if no other stack managed those products.",
    );
    return undefined;
  }
  // Once per process, as the read itself: what the check cost, and where it looked.
  ctx.once("info", `the adoption check read ${read.stacks} other stack${read.stacks === 1 ? "" : "s"} of ${read.source} in ${read.ms} ms.`);
  for (const { stack, why } of read.unread)
    ctx.once("warning", `the adoption check cannot see the products the stack ${stack} manages: ${why}.`);
  const managers = read.managers.get(productId.toLowerCase()) ?? [];
  if (managers.length === 0) return undefined;
  const settings = ctx.settings();
  const found = `${how === "adoptId" ? "names" : "takes over"} a product that ${others(managers)}`;
  if (settings.adoptManaged === "refuse") {
    return (
      `${found}. ${how === "adoptId" ? "Adopted" : "Imported"} here too, the two stacks would undo each other's changes at every ` +
      "`pulumi up`, and a `pulumi destroy` of either would archive the product, or set back its fields, under the other. " +
      `Either ${managers.length === 1 ? "that stack gives" : "those stacks give"} it up first (onDelete: "retain" on its resource, ` +
      "`pulumi up`, then remove the resource from its program and `pulumi up` again), or, for a deliberate hand-over, set " +
      "serviceapi:adoptManaged to allow"
    );
  }
  const setting = settings.sources.adoptManaged === "env" ? "SERVICEAPI_ADOPT_MANAGED" : "serviceapi:adoptManaged";
  ctx.once(
    "warning",
    `${label("Product", productId, name)}: ${how === "adoptId" ? "adoptId" : "the import"} ${found}. ${setting} is allow, so it is ${how === "adoptId" ? "adopted" : "imported"}: ` +
      "from then on the two stacks undo each other's changes at every `pulumi up`, and a `pulumi destroy` of either archives the " +
      `product, or sets back its fields, under the other, until ${managers.length === 1 ? "that stack gives" : "those stacks give"} ` +
      'it up (onDelete: "retain", `pulumi up`, then remove it from its program).',
  );
  return undefined;
}

/** `another stack of this state backend manages: organization/shop/prod (as "pro")`, or `other stacks … manage: …, … and …`. */
function others(managers: readonly Manager[]): string {
  const each = managers.map((m) => `${m.stack} (as ${JSON.stringify(m.name)})`);
  const list = each.length === 1 ? each[0]! : `${each.slice(0, -1).join(", ")} and ${each.at(-1)!}`;
  return managers.length === 1
    ? `another stack of this state backend manages: ${list}`
    : `other stacks of this state backend manage: ${list}`;
}
