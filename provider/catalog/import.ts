/**
 * `import IDS_FILE`: products that already exist on the service, brought into the catalog as data.
 * Each id is read once (an empty PATCH, the same read the provider makes), under the client's rate
 * limit pacing, and its live values are written into catalog files — one file per project, each
 * with `adoptId`; a file that exists keeps its entries where they are and gets the new ones after
 * them, so the pull request's diff is the new lines — and the next `preview` shows adoptions and no
 * change, and `up` takes them over with no write.
 *
 * Resumable: each record is appended to a journal in the work folder as it arrives, and a re-run
 * reads only the ids the journal lacks; the journal is removed once the files are written. Ids the
 * catalog already holds (an entry's `adoptId`, or a product one of its stacks records) and products
 * another stack of the backend manages are named and left out.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { readJsonLines } from "../resources/json-lines";
import { join } from "node:path";
import { Document, isMap, parseDocument } from "yaml";
import { ApiError, ServiceApiClient, TokenGate, type ClientOptions, type Product, type Project } from "../client";
import { PRODUCT_FIELD_NAMES } from "../contract/schemas";
import { adoptIdOf, isKey, KEY_RULE } from "./catalog";
import type { Discovery } from "./discover";
import { CatalogError } from "./errors";
import type { IdRow } from "./ids-file";
import { Progress } from "./progress";
import { documentText, keyNode, valueNode } from "./yaml-text";

export type KeyFrom = "slug" | "title" | "column";

export interface ImportOptions {
  catalogDir: string;
  workDir: string;
  keyFrom: KeyFrom;
  /** Reads at a time. */
  parallel: number;
  settings: ClientOptions;
}

export interface ImportResult {
  /** Entries written, by file (relative to the catalog folder). */
  written: Map<string, string[]>;
  /** Ids left out, each with why. */
  leftOut: string[];
  /** Ids that could not be read (not found, refused), each with why. */
  unread: string[];
  /** Requests sent (the project listing included). */
  requests: number;
}

/** Where `import` speaks while it reads: the tool's stderr (and that stream, when it is a terminal, for the live line). */
export interface ImportDisplay {
  err: (line: string) => void;
  terminal?: NodeJS.WriteStream;
}

/** A record as the journal keeps it. */
interface Read {
  id: string;
  record: Product;
}

export function importJournal(workDir: string): string {
  return join(workDir, "import.jsonl");
}

export async function importProducts(
  rows: IdRow[],
  discovery: Discovery,
  options: ImportOptions,
  display: ImportDisplay,
): Promise<ImportResult> {
  const result: ImportResult = { written: new Map(), leftOut: [], unread: [], requests: 0 };
  // What the catalog holds already: adoptIds of its entries, and what its stacks record.
  const held = new Map<string, string>();
  for (const item of discovery.catalog.values()) {
    const adoptId = item.kind === "product" ? adoptIdOf(item.entry) : undefined;
    if (adoptId !== undefined) held.set(adoptId.toLowerCase(), `${item.file}: ${item.key}`);
  }
  for (const stack of discovery.stacks.values())
    for (const [key, record] of stack.records)
      if (record.kind === "product") held.set(record.id.toLowerCase(), `${key} (in ${stack.name})`);
  const wanted: IdRow[] = [];
  for (const row of rows) {
    const where = held.get(row.id);
    const elsewhere = discovery.elsewhere.get(row.id);
    if (where !== undefined) result.leftOut.push(`${row.id} (${row.at}): already in the catalog as ${where}`);
    else if (elsewhere !== undefined)
      result.leftOut.push(
        `${row.id} (${row.at}): managed by ${elsewhere.map((e) => `stack ${e.stack} (as ${e.name})`).join(", ")}: ` +
          "adopted here too, two stacks would manage one product; let that stack give it up first",
      );
    else wanted.push(row);
  }

  const gate = new TokenGate();
  // Answers and 429s, for the progress line's rate and refusals.
  const answers = { answered: 0, refused: 0 };
  const client = new ServiceApiClient({
    ...options.settings,
    tokenGate: gate,
    logger: (event) => {
      if (event.type === "request") result.requests += 1;
      if (event.type === "response") {
        answers.answered += 1;
        if (event.status === 429) answers.refused += 1;
      }
    },
  });
  try {
    const projects = await listProjects(client, wanted);
    const journal = importJournal(options.workDir);
    const done = readJournal(journal);
    const toRead = wanted.filter((row) => projects.byRow.has(row) && !done.has(row.id));
    for (const row of wanted) if (!projects.byRow.has(row)) result.unread.push(`${row.id} (${row.at}): ${projects.problems.get(row)}`);
    if (done.size > 0)
      display.err(
        `import: ${[...done.keys()].filter((id) => wanted.some((r) => r.id === id)).length} read by an earlier run (${journal}); reading the other ${toRead.length}`,
      );
    // One read per product, at the service's rate limit: 10,000 take minutes, so the run says where it is.
    // Its rate counts the reads' answers, from now (the project listing before it is not one of them).
    Object.assign(answers, { answered: 0, refused: 0 });
    // Nothing to read (all read before, or left out): no line that would only say 0/0.
    const progress =
      toRead.length === 0
        ? undefined
        : new Progress({
            command: "import",
            stacks: [{ name: "import", records: toRead.length }],
            countStacks: false,
            requests: () => answers,
            err: display.err,
            ...(display.terminal !== undefined && { terminal: display.terminal }),
          });
    mkdirSync(options.workDir, { recursive: true });
    let next = 0;
    let refused: Error | undefined;
    const worker = async () => {
      while (next < toRead.length && refused === undefined) {
        const row = toRead[next++]!;
        try {
          const record = await client.updateProduct(row.id, {});
          // Appended the moment it arrives: a run killed after this line does not read it again.
          appendFileSync(journal, `${JSON.stringify({ id: row.id, record } satisfies Read)}\n`);
          done.set(row.id, record);
          progress?.record("import", row.id);
        } catch (error) {
          progress?.record("import", row.id);
          if (error instanceof ApiError && (error.status === 401 || error.status === 403)) refused = error;
          else if (error instanceof ApiError && error.status === 404)
            result.unread.push(`${row.id} (${row.at}): not found (no such product, or the token cannot see it)`);
          else if (error instanceof ApiError) result.unread.push(`${row.id} (${row.at}): ${error.message}`);
          else throw error;
        }
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(options.parallel, Math.max(toRead.length, 1)) }, worker));
    } finally {
      progress?.stop();
    }
    if (refused !== undefined)
      throw new CatalogError(
        `import stopped: ${refused.message}. The ids read so far are kept (${journal}); run import again after fixing the token`,
      );

    // Keys: from the slug (or title, or the file's key column), made unique against the catalog and each other.
    const records = wanted.filter((row) => done.has(row.id)).map((row) => ({ row, record: done.get(row.id)! }));
    const keys = chooseKeys(records, options.keyFrom, new Set(discovery.catalog.keys()), result.leftOut);
    const byFile = new Map<string, { key: string; entry: Record<string, unknown> }[]>();
    for (const { row, record } of records) {
      const key = keys.get(row.id);
      if (key === undefined) continue;
      const project = projects.byRow.get(row)!;
      const file = projects.fileOf(project);
      const entry: Record<string, unknown> = projects.uniqueName(project) ? { project: project.name } : { projectId: project.id };
      for (const field of PRODUCT_FIELD_NAMES) if (record[field] !== null && record[field] !== undefined) entry[field] = record[field];
      entry.adoptId = row.id;
      byFile.set(file, [...(byFile.get(file) ?? []), { key, entry }]);
    }
    mkdirSync(options.catalogDir, { recursive: true });
    for (const [file, entries] of [...byFile].sort(([a], [b]) => (a < b ? -1 : 1))) {
      writeEntries(join(options.catalogDir, file), entries);
      result.written.set(file, entries.map((e) => e.key).sort());
    }
    rmSync(journal, { force: true });
    return result;
  } finally {
    await client.close();
  }
}

/** The projects the rows name, listed once (which also checks the token: a refused one is one request). */
async function listProjects(client: ServiceApiClient, rows: IdRow[]) {
  const all: Project[] = [];
  try {
    all.push(...(await client.listProjects({ limit: 100 }).toArray()));
  } catch (error) {
    throw new CatalogError(`import: nothing was read: ${(error as Error).message}`);
  }
  const byId = new Map(all.map((p) => [p.id.toLowerCase(), p]));
  const byName = new Map<string, Project[]>();
  for (const p of all) if (p.name !== null) byName.set(p.name, [...(byName.get(p.name) ?? []), p]);
  const byRow = new Map<IdRow, Project>();
  const problems = new Map<IdRow, string>();
  for (const row of rows) {
    const found = byId.get(row.project.toLowerCase()) ?? (byName.get(row.project)?.length === 1 ? byName.get(row.project)![0] : undefined);
    if (found !== undefined) byRow.set(row, found);
    else if ((byName.get(row.project)?.length ?? 0) > 1)
      problems.set(row, "its project name is given to several projects: give the project's id");
    else problems.set(row, "its project is not one the token can see (neither a project's name nor its id)");
  }
  return { byRow, problems, ...projectFiles(all) };
}

/**
 * The catalog file a project's imported entries go to, among `all` the projects listed: its name
 * made a file name, or its id when the name cannot tell it apart (`suffix` before `.yaml`:
 * `import --sites` writes `<project>-sites.yaml`). Whether an entry can name it by name (`uniqueName`).
 */
export function projectFiles(all: readonly Project[], suffix = "") {
  const byName = new Map<string, number>();
  for (const p of all) if (p.name !== null) byName.set(p.name, (byName.get(p.name) ?? 0) + 1);
  const uniqueName = (p: Project) => p.name !== null && byName.get(p.name) === 1;
  const files = new Map<string, string>();
  return {
    uniqueName,
    fileOf(p: Project): string {
      let file = files.get(p.id);
      if (file === undefined) {
        const base = uniqueName(p) ? fileSlug(p.name!) || undefined : undefined;
        file = `${base ?? `project-${p.id.slice(0, 8)}`}${suffix}.yaml`;
        if ([...files.values()].includes(file)) file = `${base}-${p.id.slice(0, 8)}${suffix}.yaml`;
        files.set(p.id, file);
      }
      return file;
    },
  };
}

/** The journal's records by id; a line a kill cut short is not a record. */
function readJournal(path: string): Map<string, Product> {
  if (!existsSync(path)) return new Map();
  const reads = readJsonLines<Read>(readFileSync(path, "utf8"), (read) => typeof read.id === "string" && typeof read.record === "object");
  return new Map(reads.map((read) => [read.id, read.record]));
}

/**
 * A key per record: its slug (or title, or the file's key column) made URN-safe; a key that another
 * record or a catalog entry also gets becomes `<key>-<first 8 of the id>`, for all of them — so a
 * product's key depends on its id, never on the order of the file or of the reads.
 */
function chooseKeys(
  records: { row: IdRow; record: Product }[],
  keyFrom: KeyFrom,
  taken: Set<string>,
  leftOut: string[],
): Map<string, string> {
  const base = new Map<string, string>();
  for (const { row, record } of records) {
    const source = keyFrom === "column" ? row.key : keyFrom === "title" ? record.title : (record.slug ?? record.title);
    const key = keyFrom === "column" ? (source !== undefined && isKey(source) ? source : undefined) : keySlug(source ?? "");
    if (key === undefined) {
      leftOut.push(`${row.id} (${row.at}): ${source === undefined ? "no key in the key column" : `its key cannot be one (${KEY_RULE})`}`);
      continue;
    }
    base.set(row.id, key === "" ? `product-${row.id.slice(0, 8)}` : key);
  }
  const count = new Map<string, number>();
  for (const key of base.values()) count.set(key, (count.get(key) ?? 0) + 1);
  const keys = new Map<string, string>();
  for (const [id, key] of base) {
    if (keyFrom === "column" && (taken.has(key) || count.get(key)! > 1)) {
      leftOut.push(`${id}: its key ${key} is ${taken.has(key) ? "a key of the catalog already" : "given to several ids"}`);
      continue;
    }
    keys.set(id, taken.has(key) || count.get(key)! > 1 ? `${key.slice(0, 190)}-${id.slice(0, 8)}` : key);
  }
  return keys;
}

/** A key from a slug or title: letters of any script and digits, lower case, other runs made `-`: `Δelta Straße (EU)` → `δelta-straße-eu`. */
export function keySlug(text: string): string {
  return [
    ...text
      .normalize("NFC")
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}._]+/gu, "-")
      .replace(/^[^\p{L}\p{N}]+|[-.]+$/gu, ""),
  ]
    .slice(0, 180)
    .join("");
}

/** A file name from a project's name: a group name is ASCII letters and digits (`layout.ts`), accents dropped: `Café Web` → `cafe-web`. */
export function fileSlug(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9._]+/g, "-")
    .replace(/^[^a-z0-9]+|[-.]+$/g, "")
    .slice(0, 36);
}

/**
 * Adds the entries to a YAML catalog file: a new file with its entries sorted by key; an existing
 * one keeps its entries, comments and order as they are and gets the new ones after them (sorted
 * among themselves), so a review sees only the lines added. Values as strings exactly as read.
 */
export function writeEntries(path: string, entries: { key: string; entry: Record<string, unknown> }[]): void {
  const doc = existsSync(path) ? parseDocument(readFileSync(path, "utf8")) : new Document({});
  if (doc.contents === null) doc.contents = doc.createNode({}) as never;
  if (!isMap(doc.contents)) throw new CatalogError(`import: ${path} is not a map of keys to entries; nothing written to it`);
  for (const { key, entry } of [...entries].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)))
    doc.contents.set(keyNode(doc, key), valueNode(doc, entry));
  writeFileSync(path, documentText(doc));
}
