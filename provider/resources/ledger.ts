/**
 * What one operation of a `pulumi` command leaves for a later one of the same command: the only
 * state the lifecycles share, in one place, each entry with who writes it and who reads it. The
 * context holds one ledger per provider process, which is one per command, and both faces reach
 * it the same way (through `withDefaults` and the lifecycles), so what it records does not depend
 * on the face.
 *
 * | Entry | Written by | Read by | Why a later operation needs it |
 * |---|---|---|---|
 * | checked | every `check` (`withDefaults`) | `withDefaults`'s `diff`, as `planning` | the engine calls `diff` while refreshing (against the last `up`'s inputs) and while planning (after `check`), and does not say which |
 * | secrets | every `check` (`withDefaults`): the inputs the face saw marked secret | `withDefaults`'s `diff`, when the face cannot see them there | the dynamic face is told which inputs are secret only with the program's values at `check`; a `diff` that previews an adoption must not show them |
 * | claims | Product `check` (the product `adoptId` names), Product `diff` (the product the state names: only `diff` has the id) | Product `check` and `diff` (a second claimant is refused), Product `remove` | one product, one resource: whichever of two resources claiming one product is asked second refuses, so the refusal does not depend on the order the engine asks in; a delete never archives a product another resource of the stack holds |
 * | imported | Product adoption and import, Site import | `remove` of Product and Site | an import followed by a delete of the "original" in the same run names one record twice (see `noteImported`) |
 * | adoption reads | Product `check` and `diff` (the preview of an adoption) | Product `create` of the same resource | `up` reads an adopted product once, not twice |
 * | taken again | Product `diff` (a replacement that adopts the resource's own product; a lost create taken over with `adoptId`) | Product `check`/`diff` (the adoption's preview) and `create` (adoption) | the new resource keeps what the old one knew — what the product was when first taken over, or that this stack created it — so `destroy` gives back or archives the right thing |
 */
import type { Product } from "../client";
import type { ProductField } from "../contract/schemas";

/** A product's fields as a give-back keeps them (`product/taken-over.ts`): every field of the contract's table. */
type TakenFields = Pick<Product, ProductField>;

export class CommandLedger {
  readonly #checked = new Set<string>();
  readonly #secrets = new Map<string, ReadonlySet<string> | undefined>();
  readonly #imported = new Set<string>();
  /** Product id (lower case) → the logical name of the resource that manages or adopts it. */
  readonly #claims = new Map<string, string>();
  /** Product id → the record a preview of its adoption read, for the create of the same command. */
  readonly adoptionReads = new Map<string, Product>();
  /** Product id (lower case) → what the stack knew of a product it adopts again in this command: as first found and last set, or "created". */
  readonly takenAgain = new Map<string, "created" | { found: TakenFields; set: TakenFields }>();

  /** `check` saw this resource in this command: a later `diff` of it is planning. */
  noteChecked(type: string, name: string | undefined): void {
    this.#checked.add(`${type} ${name}`);
  }

  wasChecked(type: string, name: string | undefined): boolean {
    return this.#checked.has(`${type} ${name}`);
  }

  /** The inputs the program marked secret, as the face told `check` (`undefined`: it could not tell). */
  noteSecrets(type: string, name: string | undefined, secrets: ReadonlySet<string> | undefined): void {
    this.#secrets.set(`${type} ${name}`, secrets);
  }

  /** What `check` was told of the resource's secret inputs; `undefined` when it could not tell, or did not run in this command. */
  secretsOf(type: string, name: string | undefined): ReadonlySet<string> | undefined {
    return this.#secrets.get(`${type} ${name}`);
  }

  /**
   * A record an import took into the stack during this command. Pulumi 3.248 forgets an `import:`
   * id in the state when the import is followed by an update in the same run; if that id differs
   * from the resource's id (`<projectId>/<recordId>`), the next `up` imports the record again as an
   * "import replacement" and then deletes the "original" — the same record. So a delete of a record
   * imported (or adopted) in the same command is never sent.
   */
  noteImported(type: string, id: string): void {
    this.#imported.add(`${type}:${id}`);
  }

  importedThisRun(type: string, id: string): boolean {
    return this.#imported.has(`${type}:${id}`);
  }

  /**
   * Records that the resource `name` manages (or will adopt) product `productId`, and returns the
   * other resource's name if one claimed it first: then the caller refuses. A resource without a
   * name (state from before names were kept) claims nothing.
   */
  claim(productId: string, name: string | undefined): string | undefined {
    if (name === undefined) return undefined;
    const key = productId.toLowerCase();
    const other = this.#claims.get(key);
    if (other !== undefined && other !== name) return other;
    this.#claims.set(key, name);
    return undefined;
  }

  /** The resource (by logical name) other than `name` that claimed `productId` in this command, if any. */
  claimant(productId: string, name: string | undefined): string | undefined {
    const other = this.#claims.get(productId.toLowerCase());
    return other !== undefined && other !== name ? other : undefined;
  }
}
