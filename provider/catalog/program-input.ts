/**
 * What the tool hands a stack's program: the products of its shard, already read and checked, in a
 * file in the stack's project folder named by `SERVICEAPI_CATALOG_PRODUCTS`. The program (one per
 * stack, each a process of its own) then neither parses the whole catalog again nor checks it
 * again — at 10,000 products, in 40+ stacks, that was most of a no-change preview's cost beyond
 * Pulumi's own. Kept apart from `workspace.ts` so the program does not load the Automation API.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Kind } from "./kinds";

export const PRODUCTS_ENV = "SERVICEAPI_CATALOG_PRODUCTS";
const FILE = "products.json";

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

export interface ProgramInput {
  stack: string;
  items: ProgramItem[];
}

/** Writes the input into a stack's project folder; returns the file's path (for the environment). */
export function writeProgramInput(dir: string, input: ProgramInput): string {
  const file = join(dir, FILE);
  writeFileSync(file, JSON.stringify(input));
  return file;
}

/** The input, or `undefined` when the program was not started by the tool. */
export function readProgramInput(env: NodeJS.ProcessEnv = process.env): ProgramInput | undefined {
  const file = env[PRODUCTS_ENV];
  return file === undefined ? undefined : (JSON.parse(readFileSync(file, "utf8")) as ProgramInput);
}
