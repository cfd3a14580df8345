/**
 * The Pulumi program of every catalog stack (run by the Node.js language host, one process per
 * stack): the products of one shard, as the tool read and checked them from the catalog folder
 * for this run (`program-input.ts`), so a clean CI runner needs nothing but the catalog.
 *
 * The resources are this package's `Product`s, so every check, message, secret rule and recovery of
 * the resource holds here too. A product's logical name is its catalog key.
 */
import * as pulumi from "@pulumi/pulumi";
import { Product, getProjectOutput, type ProductArgs } from "../index";
import { PRODUCTS_ENV, readProgramInput } from "./program-input";

const input = readProgramInput();
if (input === undefined) {
  throw new pulumi.RunError(
    `this program is run by serviceapi-catalog, which sets ${PRODUCTS_ENV}: run \`serviceapi-catalog preview\`, not \`pulumi\` here`,
  );
}

// One lookup per project name per stack, shared by its products.
const projects = new Map<string, pulumi.Output<string>>();
function projectIdOf(name: string): pulumi.Output<string> {
  let id = projects.get(name);
  if (id === undefined) {
    id = getProjectOutput({ name }).id;
    projects.set(name, id);
  }
  return id;
}

for (const { key, entry } of input.products) {
  const { project, projectId, ...fields } = entry;
  const args = { ...fields, projectId: project !== undefined ? projectIdOf(project) : projectId! } as ProductArgs;
  new Product(key, args);
}

/** The stack's one output: how many products it holds. */
export const products = input.products.length;
