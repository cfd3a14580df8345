/**
 * Products from a YAML file a product manager can edit. Every entry is checked before any resource
 * is declared, so a bad entry fails `pulumi preview` with the file, the entry and the field —
 * the same checks the Product resource runs, with no API call.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { parse } from "yaml";
import { Product, getProjectOutput, productInputFailures, type ProductArgs } from "pulumi-serviceapi";

const file = new pulumi.Config().get("catalogFile") ?? "products.yaml";
const catalog = readCatalog(join(__dirname, file));
const project = getProjectOutput({ name: catalog.project });

export const products = Object.fromEntries(
  catalog.products.map((entry) => {
    const { key, ...fields } = entry;
    const product = new Product(key, { ...fields, projectId: project.id });
    return [key, { id: product.id, status: product.status }];
  }),
);

interface Catalog {
  project: string;
  products: ({ key: string } & Omit<ProductArgs, "projectId">)[];
}

function readCatalog(path: string): Catalog {
  const name = file;
  const doc = parse(readFileSync(path, "utf8")) as { project?: unknown; products?: unknown } | null;
  const problems: string[] = [];
  if (typeof doc?.project !== "string" || doc.project === "") problems.push("`project` must be the name of a project");
  if (!Array.isArray(doc?.products)) problems.push("`products` must be a list");
  const keys = new Set<string>();
  for (const [i, raw] of (Array.isArray(doc?.products) ? doc.products : []).entries()) {
    const entry = (raw ?? {}) as Record<string, unknown>;
    const label = `products[${i}]${typeof entry.key === "string" ? ` (${entry.key})` : ""}`;
    if (typeof entry.key !== "string" || !/^[a-z0-9][a-z0-9-]*$/.test(entry.key)) {
      problems.push(`${label}: key must be lowercase letters, digits and dashes`);
    } else if (keys.has(entry.key)) {
      problems.push(`${label}: key ${entry.key} is used twice`);
    } else {
      keys.add(entry.key);
    }
    // The same checks as the Product resource, unknown fields included; projectId comes from the lookup, not the file.
    const { key: _key, ...fields } = entry;
    for (const failure of productInputFailures({ ...fields, projectId: "00000000-0000-0000-0000-000000000000" })) {
      problems.push(`${label}: ${failure.reason}`);
    }
  }
  // RunError: Pulumi shows the message without a stack trace.
  if (problems.length > 0) throw new pulumi.RunError(`${name} has ${problems.length} problem(s):\n  ${problems.join("\n  ")}`);
  return doc as Catalog;
}
