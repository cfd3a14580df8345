/**
 * The Product's types and its field table: what a program declares, what the stack stores (and how
 * it is built from a record), and each field's schema, limits and description — what `check`
 * refuses, what the plugin schema says, what docs/resources.md lists.
 */
import { z } from "zod";
import type { Product, ProductStatus } from "../../client";
import { PRODUCT_FIELD_SPECS, uuid, type ProductField, type ProductSpecs } from "../../contract/schemas";
import { apiFields, type DeclaredFields, type KeptFields as KeptFieldsOf } from "../api-fields";
import { Failures, checkInputs } from "../checks";
import type { Secret } from "../secret-output";
import type { InputField, ResourceFields } from "../field-table";
import type { CheckFailure, Values } from "../lifecycle";
import { DECLARED, declaredKeys, type Stored } from "../stored-state";
import { UNCONFIRMED } from "../unconfirmed";

const ON_DELETE = ["archive", "retain"] as const;
export type ProductOnDelete = (typeof ON_DELETE)[number];

/** The contract's product table (`PRODUCT_FIELD_SPECS`) as the resource reads it (`api-fields.ts`). */
export const PRODUCT = apiFields(PRODUCT_FIELD_SPECS);

/**
 * What a program declares for each of the API's fields (the contract's table, `PRODUCT_FIELD_SPECS`):
 * a field a create requires is required; any other may be left out, or `null` where null is a value.
 * Each field's description is the table's, which the plugin schema, the SDKs and docs/resources.md show.
 */
export type ProductFieldInputs = DeclaredFields<ProductSpecs>;

/** What a program declares for a product (`ProductArgs` is this with `Input<…>` values). */
export type ProductInputs = ProductFieldInputs & {
  /** The project the product belongs to. Changing it replaces the product. */
  projectId: string;
  /**
   * What `pulumi destroy` (or removing the resource) does: `archive` sets status archived (the
   * default for a product this stack created); `retain` only forgets it. Left out for a product
   * taken over (`adoptId`, or an import through the plugin), the fields this stack changed are
   * given back as it found them, and it is not archived.
   */
  onDelete?: ProductOnDelete;
  /**
   * The id of an existing product to take over instead of creating one (`pulumi import` does not
   * work for dynamic providers). Create reads it and PATCHes only the fields that differ; no POST.
   * `pulumi destroy` gives it back as found, unless `onDelete` says otherwise.
   */
  adoptId?: string;
};

/** The inputs as a lifecycle request carries them: decoded by `PRODUCT_FIELDS`, a `null` left out (`Stored`). */
export type StoredProductInputs = Stored<ProductInputs>;

/**
 * Hidden output set by refresh when a product whose program declares no `status` was archived
 * behind Pulumi's back: the status the stack last saw, which `up` sets back. Archiving is what
 * `destroy` does, so an archived product is gone from the catalog the program declares — drift the
 * gate must see, like a deleted resource. Declaring `status: "archived"` accepts it instead.
 */
export const RESTORE_STATUS = "__statusBeforeArchive";

/** A product's fields as the service reports them (or as the state last recorded them): every field of the table. */
export type KeptFields = KeptFieldsOf<ProductSpecs>;
export type LiveFields = KeptFields & { [RESTORE_STATUS]?: ProductStatus };

/** The hidden output (the CLI hides `__` keys) of a product taken over: what it was then, and what this stack last set (`taken-over.ts`). */
export const TAKEN_OVER = "__takenOver";
/**
 * The hidden output that marks a product adopted with `adoptId` although this stack made it: the
 * answer to its create was lost (`unconfirmed.ts`), or a replacement took the stack's own product
 * again. It is archived like any other product this stack created.
 */
export const CREATED_HERE = "__createdByThisStack";
/**
 * The mark of a product adopted (`adoptId`) by a version that did not record what it found: what
 * it was is unknown, so deleting it leaves it as it is. Set by the state's migration
 * (`state-migrations.ts`), which recognises that state by what it lacks.
 */
export const ADOPTED_WITHOUT_RECORD = "__adoptedWithoutRecord";

export interface TakenOver {
  /** The product when this stack took it over. */
  found: KeptFields;
  /** The product as this stack last left it (after its last write). */
  set: KeptFields;
}

/** What the stack knew of a product it takes again in this command (`ledger.takenAgain`). */
export type TakenAgain = TakenOver | "created";

/** The hidden outputs that say how the product came into the stack, as a state stores them. */
export interface Ownership {
  [TAKEN_OVER]?: Secret<TakenOver>;
  [CREATED_HERE]?: true;
  [ADOPTED_WITHOUT_RECORD]?: true;
}

/** The fields a create cannot carry (the table's `create: false`): one PATCH after the POST sets them. */
type UpdateOnlyField = { [K in ProductField]: ProductSpecs[K]["create"] extends false ? K : never }[ProductField];

/**
 * A product's state: every field of the table as the service reports it (a status newer than this
 * package is kept as it is), the `type` the service sets, and what only the stack knows.
 */
export interface ProductOutputs extends Ownership, KeptFields {
  projectId: string;
  /** Set by the service. */
  type: string;
  onDelete: ProductOnDelete;
  adoptId?: string;
  [DECLARED]: string[];
  /** Only on the placeholder of a create whose outcome is unknown (`unconfirmed.ts`). */
  [UNCONFIRMED]?: unknown;
  /** Only after a refresh found the product archived behind Pulumi's back (`RESTORE_STATUS`). */
  [RESTORE_STATUS]?: ProductStatus;
}

/** The product's fields: what `check` refuses, what the plugin schema says, what docs/resources.md lists. */
export const PRODUCT_FIELDS: ResourceFields<ProductInputs> = {
  resource: "Product",
  description:
    "A product of a project, created with POST and kept in line with one PATCH of exactly the fields that changed. " +
    "The API cannot delete products: deleting the resource archives a product this stack created (or, with `onDelete: retain`, " +
    "only forgets it), and gives a product it took over (`adoptId`, an import) back as it found it.",
  inputs: {
    projectId: { schema: uuid, required: true, replaces: true, description: "The project the product belongs to (a UUID)." },
    ...(PRODUCT.inputFields() as Record<ProductField, InputField>),
    onDelete: {
      schema: z.enum(ON_DELETE),
      oneOf: ON_DELETE,
      description:
        "What deleting the resource does: `archive` sets status archived (the default for a product this stack created); `retain` only " +
        "forgets the product. Left out for a product taken over (`adoptId`, an import), deleting gives back the fields this stack changed, as found.",
    },
    adoptId: {
      schema: uuid,
      hint: " (the id of an existing product to take over)",
      description:
        "The id of an existing product to take over instead of creating one: create reads it and PATCHes only the fields that differ; no POST. " +
        "Deleting the resource gives it back as found, not archived, unless onDelete says otherwise. Another id replaces the resource.",
    },
  },
  outputs: {
    type: { type: "string", description: "The product type, set by the service." },
  },
};

/** Fields where leaving the input out means "no value": removing one from the program sends `null` (the table's `nullable`). */
export const NULLABLE = PRODUCT.nullable as readonly ProductField[];
/** Fields a create cannot carry (the table's `create: false`): set by one PATCH after the POST. */
export const UPDATE_ONLY = PRODUCT.updateOnly as readonly UpdateOnlyField[];

/**
 * Every problem with a product's inputs, each naming the field, the problem and the limit, never
 * the value. Unknown values (preview) are skipped. Exported for programs that validate their own
 * sources (see examples/catalog-from-yaml) before declaring resources.
 */
export function productInputFailures(news: Values): CheckFailure[] {
  const failures = new Failures();
  checkInputs(failures, PRODUCT_FIELDS, news);
  return failures.list;
}

/** Every field of the table as `record` holds it, `null` for a field it lacks (a response may omit one the spec does not require). */
export function keptFields(record: Partial<KeptFields>): KeptFields {
  return PRODUCT.kept(record) as KeptFields;
}

/** The state of a product: the record's fields, and what only the stack knows (projectId, onDelete, adoptId, the declared names). */
export function outputs(record: LiveFields & Pick<Product, "type">, desired: StoredProductInputs): ProductOutputs {
  return {
    projectId: desired.projectId,
    ...keptFields(record),
    type: record.type,
    onDelete: desired.onDelete ?? "archive",
    ...(desired.adoptId !== undefined && { adoptId: desired.adoptId }),
    [DECLARED]: declaredKeys(desired),
  };
}

/** The placeholder's state: what the program declared for the fields a create carries, as nothing came back from the service. */
export function unconfirmedOutputs(desired: StoredProductInputs): Omit<ProductOutputs, "type" | UpdateOnlyField> {
  return {
    projectId: desired.projectId,
    ...(Object.fromEntries(PRODUCT.created.map((field) => [field, desired[field as ProductField] ?? null])) as Omit<
      KeptFields,
      UpdateOnlyField
    >),
    onDelete: desired.onDelete ?? "archive",
    [DECLARED]: declaredKeys(desired),
  };
}
