/**
 * The Pulumi program of every catalog stack (run by the Node.js language host, one process per
 * stack): the products of one stack, as the tool read and checked them from the catalog folder
 * for this run, each project already resolved to its id (`program-input.ts`), so a clean CI runner
 * needs nothing but the catalog, and a stack's program sends no request of its own.
 *
 * The resources are this package's `Product`s, `Site`s and `Task`s (`LightResource`: the same
 * resources, declared without loading the provider or Pulumi's closure serializer), so every check,
 * message, secret rule and recovery of the resource holds here too. A record's logical name is its
 * catalog key.
 *
 * The module exports the program as a function, which Pulumi's language host calls once it has
 * loaded the module: the engine records the stack trace of every resource's declaration in the
 * state, and one taken here, outside the module loading of Node.js (and of ts-node, which a language
 * host older than the CLI starts whatever Pulumi.yaml says), has 4 frames instead of 20 to 22.
 */
import { RunError } from "@pulumi/pulumi/errors";
import { LightResource } from "../program/light-resource";
import { KIND } from "./kinds";
import { PRODUCTS_ENV, readProgramInput } from "./program-input";

export = function catalogStack(): void {
  const input = readProgramInput();
  if (input === undefined) {
    throw new RunError(
      `this program is run by serviceapi-catalog, which sets ${PRODUCTS_ENV}: run \`serviceapi-catalog preview\`, not \`pulumi\` here`,
    );
  }
  for (const { key, kind, entry, aliases } of input.items)
    new LightResource(KIND[kind], key, entry, aliases === undefined ? undefined : { aliases: aliases.map((name) => ({ name })) });
};
