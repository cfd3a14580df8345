/**
 * The Pulumi program of every catalog stack: the records of one stack, as the tool read and checked
 * them from the catalog folder for this run, each project already resolved to its id, so a clean CI
 * runner needs nothing but the catalog, and a stack's program sends no request of its own.
 *
 * The tool runs it in its own process (an Automation API "inline" program: the CLI calls back into
 * the tool over gRPC), not as a Node.js process under Pulumi's language host: that process cost
 * about 1.4 s of CPU per stack and command, most of it loading the Pulumi SDK again, and it was a
 * third of the CPU of a catalog `up` (`npm run bench`, section 5: 17.3 → 12.3 s for 24 products in 3
 * stacks). Runs of several stacks at once are apart: the SDK keeps each run's state in its own async
 * context.
 *
 * The resources are this package's `Product`s, `Site`s and `Task`s (`LightResource`: the same
 * resources, declared without Pulumi's closure serializer), so every check, message, secret rule and
 * recovery of the resource holds here too. A record's logical name is its catalog key.
 */
import { RunError } from "@pulumi/pulumi/errors";
import { LightResource } from "../program/light-resource";
import { KIND, type Kind } from "./kinds";

/**
 * A record as its stack's program declares it: its resource's inputs, with the ids the tool found
 * (a project by name, a site by subdomain: one listing per run).
 */
export interface ProgramItem {
  key: string;
  kind: Kind;
  entry: Record<string, unknown> & { projectId: string };
  /** The keys its state was held under before a rename: declared as aliases, so the engine moves the state (no request). */
  aliases?: string[];
}

/** The program of a stack whose records are `items`. */
export function declareItems(items: readonly ProgramItem[]): void {
  for (const { key, kind, entry, aliases } of items)
    new LightResource(KIND[kind], key, entry, aliases === undefined ? undefined : { aliases: aliases.map((name) => ({ name })) });
}

/**
 * What the stack's project folder hands Pulumi as its program (`index.js`), for someone who runs
 * `pulumi up` there by hand: the records are the tool's to declare, so it says which command to run.
 */
export function outsideTheTool(): never {
  throw new RunError("this stack's program is run by serviceapi-catalog: run `serviceapi-catalog preview`, not `pulumi` here");
}
