/**
 * The Node.js the package needs (package.json's `engines`) and the comparison with it — and nothing
 * else, no check run on load: the catalog tool's bin (`catalog/bin.ts`) compares first and prints
 * its own line, while `dynamic/node-version.ts` throws Pulumi's kind of error. Both load this module
 * before any dependency, so it imports nothing but package.json and must parse on any Node.js.
 */
import { engines } from "../package.json";

/** The oldest Node.js the package runs on, as `22.19`. */
export const MIN_NODE = engines.node.replace(/^>=\s*/, "").replace(/\.0$/, "");

/** Whether `version` (`v22.19.0`, `22.19.0`) is at least `minimum` (`22.19`). */
export function nodeAtLeast(version: string, minimum: string): boolean {
  const have = version.replace(/^v/, "").split(".").map(Number);
  const need = minimum.split(".").map(Number);
  for (let i = 0; i < need.length; i++) {
    if ((have[i] ?? 0) !== need[i]) return (have[i] ?? 0) > need[i]!;
  }
  return true;
}
