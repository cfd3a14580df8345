/**
 * A product this stack did not create — taken over with `adoptId`, or imported through the plugin
 * (`pulumi import`, the `import` option) — is given back as it was found when the resource is
 * deleted, not archived: another stack, or a person, may still count on it. What is given back is
 * each field this stack changed, set again to the value it had when this stack took the product
 * over (as a `Site` gets its original name back), unless the program declares `onDelete: "archive"`
 * (archive it anyway) or `"retain"` (leave it as it is).
 *
 * The state keeps, in one hidden output stored as a secret (`secret-output.ts`: the values are the
 * live record's, and any field may be a secret), what the product was when taken over (`found`) and
 * what this stack last set (`set`). `set` is what makes the give-back safe: a refresh rewrites the
 * outputs with whatever the service shows, another stack's changes included, so only a field whose
 * live value is still the one this stack set is set back; one changed since (by a person, or by
 * another stack that manages the same product) is left as it is, with a warning.
 *
 * A product adopted by a version that did not record what it found is marked so by its state's
 * migration (`state-migrations.ts`): what it was is unknown, so it is left as it is (and the destroy
 * says so). Any other product without a record is one this stack created (or imported before the
 * record was kept, which the state cannot tell apart) and is archived, as before.
 */
import type { Product, UpdateProductBody } from "../../client";
import type { ProviderContext } from "../context";
import { isNotFound } from "../errors";
import { secret, revealed, type Secret } from "../secret-output";
import type { Values } from "../lifecycle";
import { migrateState } from "../state-migrations";
import { DECLARED } from "../stored-state";
import { recordGiveBack } from "./write-file";
import { PRODUCT_FIELD_NAMES, type ProductField } from "../../contract/schemas";
import { givingBack } from "../api-fields";
import {
  ADOPTED_WITHOUT_RECORD,
  CREATED_HERE,
  PRODUCT,
  TAKEN_OVER,
  keptFields,
  type StoredProductInputs,
  type KeptFields,
  type LiveFields,
  type Ownership,
  type ProductOutputs,
  type TakenAgain,
  type TakenOver,
} from "./inputs-and-state";

/** The record of a product taken over now: as found, and as this stack's write left it. */
export function tookOver(found: LiveFields, written: LiveFields): Ownership {
  return { [TAKEN_OVER]: secret({ found: keptFields(found), set: keptFields(written) }) };
}

/** What a state says of how the product came into the stack (the engine hands the record over plain). */
export function takenOverIn(state: object): TakenOver | undefined {
  return revealed((state as Ownership)[TAKEN_OVER] as TakenOver | Secret<TakenOver> | undefined);
}

/** The ownership outputs a write or a read keeps: `written` is what a write of this stack just left (none for a read). */
export function ownershipAfter(state: object, written?: LiveFields): Ownership {
  const record = takenOverIn(state);
  return {
    ...(record !== undefined && { [TAKEN_OVER]: secret(written === undefined ? record : { ...record, set: keptFields(written) }) }),
    ...((state as Ownership)[CREATED_HERE] === true && { [CREATED_HERE]: true as const }),
  };
}

/** The ownership of a product adopted now, from what this command knew of it (a replacement, a lost create's recovery). */
export function ownershipOfAdopted(again: TakenAgain | undefined, found: LiveFields, written: LiveFields): Ownership {
  if (again === "created") return { [CREATED_HERE]: true };
  if (again !== undefined) return { [TAKEN_OVER]: secret({ found: again.found, set: keptFields(written) }) };
  return tookOver(found, written);
}

/** What deleting the resource does to the product. */
export type Fate = "retain" | "archive" | "give back" | "adopted without a record";

/** What deleting does to the product a state records: a lifecycle's, or one the catalog tool read (migrated here, as `withDefaults` does). */
export function fateOf(stored: ProductOutputs): Fate {
  const state = migrateState("Product", stored as unknown as Values) as unknown as ProductOutputs;
  if (state.onDelete === "retain") return "retain";
  // A declared onDelete (only "archive" is left) wins; undeclared, the stored "archive" is the default's.
  if (state[DECLARED].includes("onDelete")) return "archive";
  if (state[CREATED_HERE] === true) return "archive";
  if (takenOverIn(state) !== undefined) return "give back";
  if (state[ADOPTED_WITHOUT_RECORD] === true) return "adopted without a record";
  return "archive";
}

/** What the adoption's preview says `pulumi destroy` will do with the product. */
export function destroyOfAdopted(desired: Partial<StoredProductInputs>, again: TakenAgain | undefined): string {
  if (desired.onDelete === "retain") return '`pulumi destroy` leaves it as it is (onDelete: "retain").';
  if (desired.onDelete === "archive") return '`pulumi destroy` archives it (onDelete: "archive").';
  if (again === "created") return "`pulumi destroy` archives it: this stack created it.";
  return (
    "`pulumi destroy` does not archive it: it gives back the fields this stack changed, as it found them " +
    '(declare onDelete: "archive" to archive it instead).'
  );
}

const NOT_ARCHIVED = 'It is not archived: this stack took it over rather than creating it (declare onDelete: "archive" for that).';

/**
 * How live each status is. Removing a resource never makes its product more live than it is: a
 * give-back that would raise the status (archived → draft or active, draft → active) leaves it as
 * it is — a product archived while the stack held it stays archived when the stack lets it go. A
 * status this package does not know is not compared, and so not given back either.
 */
const LIVENESS: Readonly<Record<string, number>> = { archived: 0, draft: 1, active: 2 };

/** Whether setting the status from `now` to `to` makes the product more live, or cannot be told. */
export function raisesLiveness(now: unknown, to: unknown): boolean {
  const a = LIVENESS[String(now)];
  const b = LIVENESS[String(to)];
  return a === undefined || b === undefined || b > a;
}

/** What a give-back sends, decided from the record of the take-over and the product as it is now. */
export interface GiveBackPlan {
  /** The fields this stack changed (as found ≠ as it set them): none, and nothing is read or sent. */
  changed: ProductField[];
  /** The PATCH body: each field set back to its value when taken over. */
  body: Partial<KeptFields>;
  /** Each field of `body`, now → as found. */
  fields: { field: ProductField; from: unknown; to: unknown }[];
  /** Fields changed since this stack last set them (by a person, by another stack): left as they are. */
  since: ProductField[];
  /** The status when it is not given back: setting it back would make the product more live. */
  keptStatus?: { status: string; found: string };
}

/**
 * The one rule for a give-back, which the provider's delete follows against the live record (one
 * read) and the catalog's preview shows against the state: each field this stack changed is set
 * back to its value when taken over — unless it is already so, changed since by someone else, a
 * value this package cannot send, or a status more live than the product's now.
 */
export function giveBackPlan(record: TakenOver, now: Partial<KeptFields>): GiveBackPlan {
  const changed = PRODUCT_FIELD_NAMES.filter((key) => !same(record.found[key], record.set[key]));
  // The rule every type's give-back follows (`api-fields.ts`), over the fields this stack changed.
  const { since, back } = givingBack(PRODUCT, changed, record.found, record.set, now);
  const plan: GiveBackPlan = { changed, body: {}, fields: [], since: since as ProductField[] };
  for (const key of back as ProductField[]) {
    const found = record.found[key];
    if (key === "status" && raisesLiveness(now.status, found)) {
      plan.keptStatus = { status: String(now.status), found: String(found) };
      continue;
    }
    (plan.body as Record<string, unknown>)[key] = found;
    plan.fields.push({ field: key, from: now[key] ?? null, to: found ?? null });
  }
  return plan;
}

/**
 * The delete of a product taken over: each field this stack changed is set back to its value when
 * taken over ({@link giveBackPlan}) — judged by the live record (one empty PATCH, the API's only
 * read), so a field changed since by someone else is left as it is, and said so. Nothing is read
 * when this stack changed nothing.
 */
export async function giveBack(ctx: ProviderContext, who: string, name: string | undefined, id: string, record: TakenOver): Promise<void> {
  // For a tool's report (the catalog's): what was sent and what was left, which only the read below decides.
  const done = (sent: string[], since: string[], gone?: boolean) => {
    const unrecorded = recordGiveBack({ name: name ?? id, id, sent, since, ...(gone === true && { gone }) });
    if (unrecorded !== undefined) ctx.once("warning", unrecorded);
  };
  if (giveBackPlan(record, record.set).changed.length === 0) {
    ctx.info(`${who}: nothing sent; this stack took it over and changed none of its fields, so it stays as it was found. ${NOT_ARCHIVED}`);
    done([], []);
    return;
  }
  let live: Product;
  try {
    live = await ctx.client().updateProduct(id, {});
  } catch (error) {
    if (!isNotFound(error)) throw error;
    ctx.info(`${who}: no longer exists on the service (404); removed from the stack.`);
    done([], [], true);
    return;
  }
  const { body, since, keptStatus } = giveBackPlan(record, live);
  if (since.length > 0) {
    ctx.warn(
      `${who}: ${since.join(", ")} ${since.length === 1 ? "is" : "are"} left as the service shows ${since.length === 1 ? "it" : "them"}: ` +
        "changed since this stack last set them — by a person, or by another stack that manages the same product — so giving back " +
        "what this stack found would undo that change.",
    );
  }
  // Said instead of "it is not archived", which a product left archived would contradict.
  const kept =
    keptStatus === undefined
      ? ` ${NOT_ARCHIVED}`
      : ` Its status stays ${keptStatus.status}, as this stack set it (it was ${keptStatus.found} when taken over): removing a resource never makes a product more live.`;
  const keys = Object.keys(body);
  if (keys.length === 0) {
    ctx.info(`${who}: nothing sent; the fields this stack changed are already as it found them.${kept}`);
    done([], since);
    return;
  }
  try {
    await ctx.client().updateProduct(id, body as UpdateProductBody);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    ctx.info(`${who}: no longer exists on the service (404); removed from the stack.`);
    done([], since, true);
    return;
  }
  done(keys, since);
  ctx.info(`${who}: given back as found: sent PATCH {${keys.join(", ")}} with the values it had when this stack took it over.${kept}`);
}

function same(a: unknown, b: unknown): boolean {
  return (a ?? null) === (b ?? null);
}
