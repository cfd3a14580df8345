/**
 * The kinds of record a catalog holds — products, the sites a team names, scheduled tasks — each the
 * package's own resource (`Product`, `Site`, `Task`), through the dynamic face: its field table (what
 * an entry may say and how it is checked), its type token in a stack's state, and the module a
 * catalog stack's provider requires. One row per kind; everything else about a kind is said by
 * the resource itself.
 */
import type { ResourceFields } from "../resources/field-table";
// The field tables by module, not through the resources' indexes: the stacks' program reads this table, and declaring
// records loads no lifecycle (`stack-program.ts`; test/catalog/stack-program.test.ts).
import { PRODUCT_FIELDS } from "../resources/product/inputs-and-state";
import { isProductResource, type RecordedResource } from "../resources/product/recorded";
import { SITE_FIELDS } from "../resources/site";
import { TASK_FIELDS } from "../resources/task";

export const KINDS = ["product", "site", "task"] as const;
export type Kind = (typeof KINDS)[number];

export interface KindSpec {
  /** The resource's name (`Product`, …). */
  resource: "Product" | "Site" | "Task";
  /** Its inputs, limits and checks. */
  fields: ResourceFields<never>;
  /** Its type in a catalog stack's state (the dynamic face: `pulumi-nodejs:dynamic/serviceapi:<resource>`). */
  type: string;
  /** What the provider of a catalog stack requires for it (package.json `exports`). */
  module: string;
  /** How a report counts it: singular, plural. */
  noun: [string, string];
}

/** A kind's spec from its resource's name: the dynamic face names its type and module after it (`dynamic/product.ts`). */
function kind(resource: KindSpec["resource"], fields: ResourceFields<never>, noun: [string, string]): KindSpec {
  return {
    resource,
    fields,
    type: `pulumi-nodejs:dynamic/serviceapi:${resource}`,
    module: `pulumi-serviceapi/dynamic/${resource.toLowerCase()}`,
    noun,
  };
}

export const KIND: Readonly<Record<Kind, KindSpec>> = {
  product: kind("Product", PRODUCT_FIELDS as ResourceFields<never>, ["product", "products"]),
  site: kind("Site", SITE_FIELDS as ResourceFields<never>, ["site", "sites"]),
  task: kind("Task", TASK_FIELDS as ResourceFields<never>, ["task", "tasks"]),
};

/** The kind of a record in a catalog stack's state; undefined for anything else (the stack itself, its providers). */
export function kindOf(resource: RecordedResource): Kind | undefined {
  if (isProductResource(resource)) return "product";
  if (resource.type === KIND.site.type) return "site";
  if (resource.type === KIND.task.type) return "task";
  return undefined;
}

/** How many of some records are of each kind. */
export function countByKind(records: readonly { kind: Kind }[]): Partial<Record<Kind, number>> {
  const out: Partial<Record<Kind, number>> = {};
  for (const { kind } of records) out[kind] = (out[kind] ?? 0) + 1;
  return out;
}

/** `20 products`, `18 products, 2 sites, 1 task`: the counts of a stack's records, by kind, none for a kind it lacks. */
export function countsText(counts: Partial<Record<Kind, number>>): string {
  const parts = KINDS.filter((k) => (counts[k] ?? 0) > 0).map((k) => `${counts[k]} ${KIND[k].noun[counts[k] === 1 ? 0 : 1]}`);
  return parts.length > 0 ? parts.join(", ") : "0 products";
}
