/**
 * The Pulumi program of every catalog stack (run by the Node.js language host, one process per
 * stack): the products of one stack, as the tool read and checked them from the catalog folder
 * for this run, each project already resolved to its id (`program-input.ts`), so a clean CI runner
 * needs nothing but the catalog, and a stack's program sends no request of its own.
 *
 * The resources are this package's `Product`s, so every check, message, secret rule and recovery of
 * the resource holds here too. A product's logical name is its catalog key.
 */
import * as pulumi from "@pulumi/pulumi";
import { Product, type ProductArgs } from "../index";
import { PRODUCTS_ENV, readProgramInput } from "./program-input";

const input = readProgramInput();
if (input === undefined) {
  throw new pulumi.RunError(
    `this program is run by serviceapi-catalog, which sets ${PRODUCTS_ENV}: run \`serviceapi-catalog preview\`, not \`pulumi\` here`,
  );
}

for (const { key, entry } of input.products) new Product(key, entry as ProductArgs);

/** The stack's one output: how many products it holds. */
export const products = input.products.length;
