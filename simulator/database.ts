/**
 * The simulator's database: its records in SQLite (`node:sqlite`): in memory by default, or in a file with
 * `--data`. Every write is its own committed transaction before the response is sent, and the
 * file uses WAL with synchronous=FULL, so an acknowledged write survives a crash and a crash never
 * leaves a corrupt file.
 */
import { randomUUID } from "node:crypto";
import { DatabaseSync, type SQLInputValue } from "node:sqlite";
import { z } from "zod";
import { fieldNames, type FieldSpec, type FieldSpecs } from "../provider/contract/fields";
import {
  PRODUCT_FIELD_SPECS,
  SITE_FIELD_SPECS,
  TASK_FIELD_SPECS,
  type CreateProductBody,
  type CreateTaskBody,
  type Product,
  type Project,
  type Site,
  type Task,
  type UpdateProductBody,
  type UpdateSiteBody,
} from "../provider/contract/schemas";

/** A site or task as the simulator sends it: with its id and kind, though the spec lets a response omit any field. */
export type SiteRecord = Site & { object: "site"; id: string };
export type TaskRecord = Task & { object: "task"; id: string };
/** A product as the simulator stores it: the API record plus the project it belongs to. */
export type StoredProduct = Product & { projectId: string };
/** A task as the simulator stores it: the API record plus what only the create request carried. */
export type StoredTask = TaskRecord & Omit<CreateTaskBody, keyof TaskRecord>;
import type { Seed } from "./seed";

/**
 * Each record type's table: one column per field of the contract's table (`provider/contract/schemas.ts`),
 * named and typed from it, after what the simulator keeps of its own (the project, and for
 * products the type and times the spec does not show).
 */
const TABLES_OF = {
  sites: { specs: SITE_FIELD_SPECS, object: "site", own: "" },
  products: {
    specs: PRODUCT_FIELD_SPECS,
    object: "product",
    own: "type TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL",
  },
  tasks: { specs: TASK_FIELD_SPECS, object: "task", own: "" },
} as const satisfies Record<string, { specs: FieldSpecs; object: string; own: string }>;
type Table = keyof typeof TABLES_OF;

function createTable(table: Table): string {
  const { specs, own } = TABLES_OF[table];
  const fields = fieldNames(specs).map((field) => `${column(field)} ${sqlType(specs[field]!)}`);
  return `CREATE TABLE IF NOT EXISTS ${table} (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, project_id TEXT NOT NULL,
  ${[...fields, ...(own === "" ? [] : [own])].join(", ")});`;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS workspaces (id TEXT PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tokens (token TEXT NOT NULL, workspace_id TEXT NOT NULL, PRIMARY KEY (token, workspace_id));
CREATE TABLE IF NOT EXISTS projects (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, workspace_id TEXT NOT NULL, name TEXT);
${createTable("sites")}
CREATE INDEX IF NOT EXISTS sites_by_project ON sites (project_id, seq);
${createTable("products")}
${createTable("tasks")}
`;

const TABLES = ["tasks", "products", "sites", "projects", "tokens", "workspaces"];

/** A field's column: its name in snake case (`projectId` → `project_id`). */
function column(field: string): string {
  return field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** A field's JSON type in the contract: its value's, or its record's for a field only the service sets. */
function jsonTypeOf(spec: FieldSpec): string | undefined {
  const json = z.toJSONSchema(spec.value ?? spec.record ?? z.string(), { unrepresentable: "any" }) as {
    type?: string;
    anyOf?: { type?: string }[];
  };
  return json.type ?? json.anyOf?.find((t) => t.type !== "null")?.type;
}

/** A field's column type; NOT NULL where every record has it (a create requires it, or a response always carries it). */
function sqlType(spec: FieldSpec): string {
  const json = jsonTypeOf(spec);
  const type = json === "integer" || json === "boolean" ? "INTEGER" : json === "number" ? "REAL" : "TEXT";
  const always = spec.create === "required" || (spec.record !== undefined && !spec.record.safeParse(undefined).success && !spec.nullable);
  return always ? `${type} NOT NULL` : type;
}

/** A value as its column holds it (SQLite has no booleans). */
function stored(value: unknown): SQLInputValue {
  return typeof value === "boolean" ? (value ? 1 : 0) : ((value ?? null) as SQLInputValue);
}

/**
 * A row as a record: its kind and id, then each field of the table a response carries (`all`: every
 * field, what only a request carried too), as the contract has it — a boolean as a boolean, and a
 * field the row has no value for left out, unless `null` is its value.
 */
function toRecord(table: Table, row: Row, all = false): Record<string, unknown> {
  const { specs, object } = TABLES_OF[table];
  const fields = fieldNames(specs).flatMap((field): [string, unknown][] => {
    const spec: FieldSpec = specs[field]!;
    const value = row[column(field)];
    if ((spec.record === undefined && !all) || (value === null && !spec.nullable)) return [];
    return [[field, jsonTypeOf(spec) === "boolean" && value !== null ? value === 1 : value]];
  });
  return { object, id: row.id as string, ...Object.fromEntries(fields) };
}

/** What a created product's fields that a create does not take start as (the spec leaves the initial status open): null otherwise. */
const INITIAL_PRODUCT_VALUES: Record<string, SQLInputValue> = { status: "draft" };
/** Type given to created products (the create body has no `type`; allowed values are not shown). */
const CREATED_PRODUCT_TYPE = "digital";

type Row = Record<string, SQLInputValue>;
interface ProjectRow {
  seq: number;
  id: string;
  workspace_id: string;
  name: string | null;
}
export interface Slice<T> {
  rows: T[];
  hasMore: boolean;
}

/** A task to create: every field of the contract's task table the create took or the simulator set (`nextRunAt`, the times), and its project. */
export interface NewTask {
  projectId: string;
  fields: Record<string, unknown>;
}
/** A product to create: the create body (the fields a create takes, and the project). */
export interface NewProduct {
  body: CreateProductBody;
  /** When it is created: its `createdAt` and `updatedAt`. */
  at: Date;
}
export type ProductChanges = UpdateProductBody;
export type SiteChanges = UpdateSiteBody;

export class Database {
  readonly #db: DatabaseSync;

  constructor(path: string, seed: Seed) {
    this.#db = new DatabaseSync(path);
    if (path !== ":memory:") {
      this.#db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;");
    }
    this.#db.exec(SCHEMA);
    // A data file from before a field was added to the contract gets its column (empty for the records it holds).
    for (const table of Object.keys(TABLES_OF) as Table[]) {
      const present = new Set((this.#db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name));
      const { specs } = TABLES_OF[table];
      for (const field of fieldNames(specs)) {
        if (!present.has(column(field)))
          this.#db.exec(`ALTER TABLE ${table} ADD COLUMN ${column(field)} ${sqlType(specs[field]!).replace(" NOT NULL", "")}`);
      }
    }
    const { n } = this.#db.prepare("SELECT COUNT(*) AS n FROM workspaces").get() as { n: number };
    if (n === 0) this.#transaction(() => this.#insertSeed(seed));
  }

  close(): void {
    if (this.#db.isOpen) this.#db.close();
  }

  /** Replaces every record with the seed's. */
  reset(seed: Seed): void {
    this.#transaction(() => {
      for (const table of TABLES) this.#db.exec(`DELETE FROM ${table}`);
      this.#db.exec("DELETE FROM sqlite_sequence");
      this.#insertSeed(seed);
    });
  }

  #insertSeed(seed: Seed): void {
    const ws = this.#db.prepare("INSERT INTO workspaces (id, name) VALUES (?, ?)");
    for (const w of seed.workspaces) ws.run(w.id, w.name);
    const tok = this.#db.prepare("INSERT OR IGNORE INTO tokens (token, workspace_id) VALUES (?, ?)");
    for (const t of seed.tokens) for (const w of t.workspaces) tok.run(t.token, w);
    const proj = this.#db.prepare("INSERT INTO projects (id, workspace_id, name) VALUES (?, ?, ?)");
    for (const p of seed.projects) proj.run(p.id, p.workspaceId, p.name);
    for (const s of seed.sites) this.addSite(s);
  }

  #transaction(work: () => void): void {
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      work();
      this.#db.exec("COMMIT");
    } catch (err) {
      this.#db.exec("ROLLBACK");
      throw err;
    }
  }

  // ---- access ----

  workspaceIds(): string[] {
    return (this.#db.prepare("SELECT id FROM workspaces ORDER BY id").all() as { id: string }[]).map((r) => r.id);
  }

  /** Workspaces a token may access, or undefined for an unknown token. */
  workspacesOf(token: string): Set<string> | undefined {
    const rows = this.#db.prepare("SELECT workspace_id FROM tokens WHERE token = ?").all(token) as { workspace_id: string }[];
    return rows.length === 0 ? undefined : new Set(rows.map((r) => r.workspace_id));
  }

  hasWorkspace(id: string): boolean {
    return this.#db.prepare("SELECT 1 FROM workspaces WHERE id = ?").get(id) !== undefined;
  }

  // ---- projects ----

  getProject(id: string): ProjectRow | undefined {
    return this.#db.prepare("SELECT * FROM projects WHERE id = ?").get(id) as ProjectRow | undefined;
  }

  /** Projects in the given workspaces after `afterSeq`, in creation order. */
  listProjects(workspaceIds: string[], afterSeq: number, limit: number): Slice<Project & { seq: number }> {
    const marks = workspaceIds.map(() => "?").join(",");
    const rows = this.#db
      .prepare(`SELECT * FROM projects WHERE workspace_id IN (${marks}) AND seq > ? ORDER BY seq LIMIT ?`)
      .all(...workspaceIds, afterSeq, limit + 1) as unknown as ProjectRow[];
    return slice(rows, limit, (r) => ({ seq: r.seq, object: "project", id: r.id, name: r.name, workspaceId: r.workspace_id }));
  }

  // ---- sites ----

  addSite(site: { id?: string; projectId: string } & Record<string, unknown>): SiteRecord {
    const id = site.id ?? randomUUID();
    this.#insert("sites", id, site.projectId, site);
    return this.getSite(id)!.site;
  }

  getSite(id: string): { site: SiteRecord; projectId: string } | undefined {
    const row = this.#db.prepare("SELECT * FROM sites WHERE id = ?").get(id);
    return row ? { site: toRecord("sites", row) as SiteRecord, projectId: row.project_id as string } : undefined;
  }

  listSites(projectId: string, afterSeq: number, limit: number): Slice<SiteRecord & { seq: number }> {
    const rows = this.#db
      .prepare("SELECT * FROM sites WHERE project_id = ? AND seq > ? ORDER BY seq LIMIT ?")
      .all(projectId, afterSeq, limit + 1) as Row[];
    return slice(rows, limit, (r) => ({ seq: r.seq as number, ...(toRecord("sites", r) as SiteRecord) }));
  }

  updateSite(id: string, changes: SiteChanges): SiteRecord {
    this.#update("sites", id, changes);
    return this.getSite(id)!.site;
  }

  /** One row of `table`: each field of the contract's table from `values` (null where it has none), then the table's own columns. */
  #insert(table: Table, id: string, projectId: string, values: object, own: Record<string, SQLInputValue> = {}): void {
    const fields = fieldNames(TABLES_OF[table].specs);
    const columns = ["id", "project_id", ...fields.map(column), ...Object.keys(own)];
    this.#db
      .prepare(`INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`)
      .run(id, projectId, ...fields.map((field) => stored((values as Record<string, unknown>)[field])), ...Object.values(own));
  }

  /** Sets the fields `changes` gives (and the table's own columns in `own`) on one row. */
  #update(table: Table, id: string, changes: object, own: Record<string, SQLInputValue> = {}): void {
    const keys = fieldNames(TABLES_OF[table].specs).filter((field) => (changes as Record<string, unknown>)[field] !== undefined);
    if (keys.length === 0) return;
    const sets = [...keys.map(column), ...Object.keys(own)].map((c) => `${c} = ?`).join(", ");
    this.#db
      .prepare(`UPDATE ${table} SET ${sets} WHERE id = ?`)
      .run(...keys.map((k) => stored((changes as Record<string, unknown>)[k])), ...Object.values(own), id);
  }

  /** How many rows `table` has: the control API's counts. */
  #count(table: Table): number {
    return (this.#db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
  }

  /** Every row of `table`, oldest first, as `record` makes it, with its project: the control API's listings. */
  #all<T extends object>(table: Table, record: (row: Row) => T): (T & { projectId: string })[] {
    return this.#db
      .prepare(`SELECT * FROM ${table} ORDER BY rowid`)
      .all()
      .map((row) => ({ ...record(row), projectId: row.project_id as string }));
  }

  // ---- products ----

  createProduct(input: NewProduct): Product {
    const id = randomUUID();
    const now = input.at.toISOString();
    // Each field from the body (a field a create does not take starts as the service's initial value).
    const values = { ...INITIAL_PRODUCT_VALUES, ...input.body };
    this.#insert("products", id, input.body.projectId, values, { type: CREATED_PRODUCT_TYPE, created_at: now, updated_at: now });
    return this.getProduct(id)!.product;
  }

  getProduct(id: string): { product: Product; projectId: string } | undefined {
    const row = this.#db.prepare("SELECT * FROM products WHERE id = ?").get(id);
    return row ? { product: toProduct(row), projectId: row.project_id as string } : undefined;
  }

  updateProduct(id: string, changes: ProductChanges, at: Date): Product {
    this.#update("products", id, changes, { updated_at: at.toISOString() });
    return this.getProduct(id)!.product;
  }

  countProducts(): number {
    return this.#count("products");
  }

  /** Every product, oldest first, with its project: what the API cannot list. */
  allProducts(): StoredProduct[] {
    return this.#all("products", toProduct);
  }

  // ---- tasks ----

  createTask(input: NewTask): TaskRecord {
    const id = randomUUID();
    this.#insert("tasks", id, input.projectId, input.fields);
    return this.getTask(id)!;
  }

  getTask(id: string): TaskRecord | undefined {
    const row = this.#db.prepare("SELECT * FROM tasks WHERE id = ?").get(id);
    return row ? (toRecord("tasks", row) as TaskRecord) : undefined;
  }

  countTasks(): number {
    return this.#count("tasks");
  }

  /** Every task, oldest first, with its project and what only its create carried (prompt, scheduledAt): what the API cannot list. */
  allTasks(): StoredTask[] {
    return this.#all("tasks", (row) => toRecord("tasks", row, true) as Omit<StoredTask, "projectId">);
  }
}

function slice<R, T>(rows: R[], limit: number, map: (row: R) => T): Slice<T> {
  return { rows: rows.slice(0, limit).map(map), hasMore: rows.length > limit };
}

/** A product: its fields (`toRecord`), and the type the service sets. */
function toProduct(r: Row): Product {
  return { ...toRecord("products", r), type: r.type as string } as Product;
}
