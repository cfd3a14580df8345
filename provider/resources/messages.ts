/**
 * What the providers tell the user in the CLI output, through the context's sink. Records are named
 * by logical name and id, never by a field value: inside a provider a secret input is plain text.
 * The one place values are shown (an adoption's preview: `product/patch.ts`) shows only those the
 * program did not mark secret, through `shown`.
 */
import type { ProviderContext } from "./context";
import { docsLink } from "./docs-link";
import { journalCreate } from "./journal";

/** `Product "pro" (id 0b3f…)`, or `Product 0b3f…` for state written before the name was kept. */
export function label(type: string, id: string, name: string | undefined): string {
  return name !== undefined ? `${type} ${JSON.stringify(name)} (id ${id})` : `${type} ${id}`;
}

/**
 * One line the moment a create returns: `serviceapi: created Product "pro-plan" <id>`. If the
 * `pulumi up` is then killed before it writes its state (a lost CI runner, OOM), the run's log —
 * which outlives the runner — names every record it made, so each can be taken over with
 * `adoptId` instead of being created twice (docs/recovery.md).
 *
 * Where a create journal is configured (the catalog tool's stacks, `journal.ts`) and the line is
 * written there, the journal is the trace and the line is not printed: the tool prints its own
 * `<stack>: created Product …` line from the engine's events into the run's log, so a second line
 * per create would only be carried through the CLI (a diagnostic event each) for nobody — 10,000 of
 * them in a catalog's first `up` (docs/scale.md).
 */
export function logCreated(ctx: ProviderContext, type: string, id: string, name: string | undefined): void {
  const journal = journalCreate({ type, name: name ?? "", id, urn: ctx.urn(), at: new Date().toISOString() });
  if (journal.written) return;
  if (journal.problem !== undefined) ctx.once("warning", journal.problem);
  ctx.info(`created ${type} ${name === undefined ? "(unnamed)" : JSON.stringify(name)} ${id}`);
}

/**
 * What `diff` found, by field name (never values), once per record per command: the CLI cannot show
 * which field of a dynamic resource changed when its values are secrets (both sides print
 * `[secret]`), so this line does. The engine calls `diff` in two phases: refreshing (the live record
 * against the inputs of the last `up`: drift) and planning (against the program, after `check`):
 * `Product "pro" (id …): changed on the service since the last \`pulumi up\`: title.` /
 * `Product "pro" (id …): \`pulumi up\` will send PATCH {title}.`
 */
export function announceDiff(ctx: ProviderContext, who: string, fields: readonly string[], planning: boolean): void {
  if (fields.length === 0) return;
  const text = planning
    ? `\`pulumi up\` will send PATCH {${fields.join(", ")}}.`
    : `changed on the service since the last \`pulumi up\`: ${fields.join(", ")}.`;
  ctx.once("info", `${who}: ${text}`);
}

/** Values longer than this are shortened when a message shows them (a description may be 10,000 characters). */
const SHOWN = 60;

/**
 * A value as a message shows it: JSON text, a string longer than SHOWN cut to SHOWN characters
 * (the last one `…`) and its length added — `"Everything in Starter, plus…" (87 characters)`. Only
 * for values that are not secrets: a caller that cannot tell shows none.
 */
export function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  if (typeof value !== "string" || value.length <= SHOWN) return text;
  return `${JSON.stringify(`${value.slice(0, SHOWN - 1)}…`)} (${value.length} characters)`;
}

/** `pulumi up --replace '<urn>'` where the face knows the URN, else a placeholder and where to find it. */
export function replaceCommand(ctx: ProviderContext): string {
  const urn = ctx.urn();
  return urn ? `\`pulumi up --replace '${urn}'\`` : "`pulumi up --replace <its URN>` (`pulumi stack --show-urns` lists it)";
}

export { docsLink };
