/**
 * A create whose answer never came back (a reset or timeout after the request was sent, or a 5xx
 * that may have been processed). The record may exist on the service, and the API cannot list
 * products or tasks to find out. The create is not retried, and the resource is recorded anyway —
 * as a Pulumi partial failure with a placeholder id and this marker in its outputs — so the stack
 * remembers it: the next preview or up of the resource refuses to create it again (a pipeline's
 * "re-run failed job" would otherwise make a second one) until the user chooses one of two ways out:
 *
 * - `adoptId: "<id>"` of the record that exists: a replacement that takes it over, then forgets the
 *   placeholder (nothing is sent for it);
 * - `pulumi up --replace <urn>`: creates it anew (the engine does not ask the provider's diff then).
 *
 * docs/recovery.md has the whole story.
 */
import { randomUUID } from "node:crypto";
import { ServiceApiError } from "../client";
import type { ProviderContext } from "./context";
import { docsLink } from "./docs-link";
import { UserError } from "./errors";
import { replaceCommand } from "./messages";
import { TOOL_ENV } from "./tool-protocol";

/** The hidden output (the CLI hides `__` keys) that marks the placeholder. */
export const UNCONFIRMED = "__unconfirmedCreate";

export interface UnconfirmedCreate {
  /** `products.create`, `tasks.create`. */
  operation: string;
  /** When the create was sent, ISO 8601 (for a killed run's create: when it was taken in as a placeholder). */
  at: string;
  /** The create was in flight when its `pulumi up` was killed (a pending create taken in by `serviceapi-catalog recover`). */
  killed?: true;
}

/** A create that may have reached the service: its outcome is unknown. */
export function mayHaveSucceeded(error: unknown): boolean {
  return error instanceof ServiceApiError && error.mayHaveSucceeded;
}

/** The placeholder id: not a UUID, so nothing ever sends it to the service, and it says what it is. */
export function placeholderId(): string {
  return `unconfirmed-create-${randomUUID().slice(0, 8)}`;
}

export function unconfirmed(operation: string, at: Date, killed = false): { [UNCONFIRMED]: UnconfirmedCreate } {
  return { [UNCONFIRMED]: { operation, at: at.toISOString(), ...(killed && { killed: true as const }) } };
}

export function isUnconfirmed(props: object | undefined): boolean {
  return (
    typeof props === "object" && props !== null && UNCONFIRMED in props && (props as Record<string, unknown>)[UNCONFIRMED] !== undefined
  );
}

/** What the first `up` says after recording the placeholder. */
export function recordedAsUnconfirmed(ctx: ProviderContext, type: "Product" | "Task", name: string): string {
  // A stack of the catalog tool (it names a create journal for every up): the catalog's ways out, not `pulumi up --replace`.
  if (process.env[TOOL_ENV.createdJournal])
    return (
      `The stack records ${type} ${JSON.stringify(name)} as a lost create, so no later up creates it again by itself: ` +
      `if the ${type.toLowerCase()} exists on the service, add \`adoptId: <its id>\` to its catalog entry; if it does not, ` +
      `run \`serviceapi-catalog recover --create-anew ${name}\`.`
    );
  return (
    `The stack records ${type} ${JSON.stringify(name)} as an unconfirmed create, so no later \`pulumi preview\` or \`pulumi up\` creates it again ` +
    `by itself: if the ${type.toLowerCase()} exists on the service, set \`adoptId: "<its id>"\` on it; if it does not, run ` +
    `${replaceCommand(ctx)}. See ${docsLink("recovery.md")}.`
  );
}

/** The refusal every later diff of the placeholder gives, naming the resource and both ways out. */
export function refusal(ctx: ProviderContext, type: "Product" | "Task", name: string, props: object): UserError {
  const { operation, at, killed } = (props as Record<string, UnconfirmedCreate>)[UNCONFIRMED]!;
  const what = killed
    ? `a \`pulumi up\` was killed while its ${operation} was in flight (taken in as unconfirmed at ${at})`
    : `an earlier \`pulumi up\` sent ${operation} at ${at} and never got the answer`;
  const find =
    type === "Product"
      ? "find it in the service's UI (the API cannot list products; its title is the one declared, and an earlier run's output may have a line " +
        "`serviceapi: created Product …` with its id)"
      : "find it in the service's UI (the API cannot list tasks)";
  return new UserError(
    `${type} ${JSON.stringify(name)}: ${what}, so it may exist ` +
      `on the service; it is not created again by itself. If it exists, ${find} and set \`adoptId: "<its id>"\` on this ${type}, then run ` +
      `\`pulumi up\`: it is taken over, nothing is created. If it does not exist, create it anew: ${replaceCommand(ctx)}. ` +
      `See ${docsLink("recovery.md")}.`,
  );
}
