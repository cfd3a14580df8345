/**
 * The ids file of `import`: which existing products to bring into the catalog. The API cannot list
 * products, so the ids come from the team — an export of the service's UI, a spreadsheet, a billing
 * system — as CSV (a header row naming the columns) or JSON (an array of objects): `id` and `project`
 * (the project's name or id), and optionally `key` (the catalog key to give it). Read and checked in
 * full before any request: a row that cannot be used is named by its line and left out.
 */
import { isUuid } from "../contract/schemas";
import { readFileSync } from "node:fs";
import { parse } from "csv-parse/sync";
import { CatalogError } from "./errors";

export interface IdRow {
  /** Where it is in the file: `line 7` (CSV, counting the header) or `item 7` (JSON, from 1). */
  at: string;
  /** The product's id, lower case. */
  id: string;
  /** The project, as the file names it: a name or an id. */
  project: string;
  /** The `key` column, when the file has one. */
  key?: string;
}

export interface IdsFile {
  rows: IdRow[];
  /** Rows left out, each with why: `line 9: id "x" is not a UUID`. */
  problems: string[];
  /** Whether the file has a `key` column (needed by `--key-from column`). */
  hasKeys: boolean;
}

export function readIdsFile(path: string): IdsFile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    throw new CatalogError(`import: cannot read the ids file ${path}: give a CSV or JSON file of id and project`);
  }
  const json = /\.json$/i.test(path);
  let items: Record<string, unknown>[];
  try {
    items = json
      ? jsonItems(text)
      : (parse(text, { columns: true, skip_empty_lines: true, trim: true, bom: true }) as Record<string, unknown>[]);
  } catch (error) {
    throw new CatalogError(
      `import: ${path} is not ${json ? "a JSON array of objects" : "CSV with a header row"}: ${(error as Error).message}`,
    );
  }
  const columns = new Set(items.flatMap((item) => Object.keys(item)));
  for (const needed of ["id", "project"]) {
    if (!columns.has(needed)) throw new CatalogError(`import: ${path} has no ${needed} column: it needs id and project (and may have key)`);
  }
  const rows: IdRow[] = [];
  const problems: string[] = [];
  const seen = new Map<string, string>();
  items.forEach((item, i) => {
    const at = json ? `item ${i + 1}` : `line ${i + 2}`;
    const id = text_(item.id);
    const project = text_(item.project);
    const key = text_(item.key);
    if (id === "") problems.push(`${at}: no id`);
    else if (!isUuid(id)) problems.push(`${at}: the id is not a UUID`);
    else if (project === "") problems.push(`${at}: no project`);
    else if (seen.has(id.toLowerCase())) problems.push(`${at}: the same id as ${seen.get(id.toLowerCase())}; read once`);
    else {
      seen.set(id.toLowerCase(), at);
      rows.push({ at, id: id.toLowerCase(), project, ...(key !== "" && { key }) });
    }
  });
  return { rows, problems, hasKeys: columns.has("key") };
}

function jsonItems(text: string): Record<string, unknown>[] {
  const value: unknown = JSON.parse(text);
  if (!Array.isArray(value) || value.some((item) => typeof item !== "object" || item === null || Array.isArray(item))) {
    throw new Error('expected [{"id": …, "project": …}, …]');
  }
  return value as Record<string, unknown>[];
}

function text_(value: unknown): string {
  return typeof value === "string" ? value.trim() : typeof value === "number" ? String(value) : "";
}
