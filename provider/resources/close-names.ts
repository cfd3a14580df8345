/**
 * Which of some names are close to one that matched none: what a "did you mean" offers. Shared by
 * the input checks (an unknown input's name), the lookups (a project or site name that matched
 * nothing) and the catalog tool (a product's `project`).
 */
import { distance } from "fastest-levenshtein";

/**
 * Up to `max` of `names` within typo distance of `wanted`, closest first (ties in code-unit
 * order, so a message reads the same on every run), each once. Case does not count towards the
 * distance: a name that differs only in case is the closest of all. Close means at most a third
 * of the name's length in edits, and at least two for short names (a swap of two letters is two).
 */
export function closeNames(wanted: string, names: readonly string[], max = 3): string[] {
  const key = wanted.toLowerCase();
  const scored: { name: string; edits: number }[] = [];
  for (const name of new Set(names)) {
    const edits = distance(key, name.toLowerCase());
    if (edits <= Math.max(2, Math.floor(name.length / 3))) scored.push({ name, edits });
  }
  scored.sort((a, b) => a.edits - b.edits || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return scored.slice(0, Math.max(0, max)).map((s) => s.name);
}
