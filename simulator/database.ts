/**
 * The simulator's database: its records in SQLite (`node:sqlite`): in memory by default, or in a file with
 * `--data`. Every write is its own committed transaction before the response is sent, and the
 * file uses WAL with synchronous=FULL, so an acknowledged write survives a crash and a crash never
 * leaves a corrupt file.
 */
import { randomUUID } from "node:crypto";
import { DatabaseSync, type SQLInputValue } from "node:sqlite";
import { z } from "zod";
import {
  PRODUCT_FIELD_NAMES,
  PRODUCT_FIELD_SPECS,
  type CreateProductBody,
  type Product,
  type ProductField,
  type Project,
  type Site,
  type Task,
  type UpdateProductBody,
} from "../provider/contract/schemas";

/** The simulator's own records always carry every field, though the spec lets a Site or Task omit any. */
export type SiteRecord = Required<Site>;
export type TaskRecord = Required<Task>;
/** A product as the simulator stores it: the API record plus the project it belongs to. */
export type StoredProduct = Product & { projectId: string };
/** A task as the simulator stores it: the API record plus what only the create request carried. */
export type StoredTask = TaskRecord & { projectId: string; prompt: string; scheduledAt: string };
import type { Seed } from "./seed";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS workspaces (id TEXT PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tokens (token TEXT NOT NULL, workspace_id TEXT NOT NULL, PRIMARY KEY (token, workspace_id));
CREATE TABLE IF NOT EXISTS projects (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, workspace_id TEXT NOT NULL, name TEXT);
CREATE TABLE IF NOT EXISTS sites (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, project_id TEXT NOT NULL,
  name TEXT NOT NULL, subdomain TEXT NOT NULL, is_default INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS sites_by_project ON sites (project_id, seq);
CREATE TABLE IF NOT EXISTS products (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, project_id TEXT NOT NULL,
  ${PRODUCT_FIELD_NAMES.map((field) => `${column(field)} ${sqlType(field)}`).join(", ")},
  type TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tasks (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, project_id TEXT NOT NULL,
  title TEXT NOT NULL, prompt TEXT NOT NULL, emoji TEXT NOT NULL, rrule TEXT NOT NULL, scheduled_at TEXT NOT NULL,
  next_run_at TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
`;

const TABLES = ["tasks", "products", "sites", "projects", "tokens", "workspaces"];

/** A product field's column: its name in snake case (`externalCheckoutUrl` → `external_checkout_url`). */
function column(field: ProductField): string {
  return field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** A product field's column type, from its value's JSON type in the contract; NOT NULL unless null is a value. */
function sqlType(field: ProductField): string {
  const spec = PRODUCT_FIELD_SPECS[field];
  const json = z.toJSONSchema(spec.value, { unrepresentable: "any" }) as { type?: string };
  const type = json.type === "integer" || json.type === "boolean" ? "INTEGER" : json.type === "number" ? "REAL" : "TEXT";
  return spec.nullable ? type : `${type} NOT NULL`;
}

/** What a created product's fields that a create does not take start as (the spec leaves the initial status open): null otherwise. */
const INITIAL_PRODUCT_VALUES: Partial<Record<ProductField, SQLInputValue>> = { status: "draft" };
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

export interface NewTask {
  projectId: string;
  title: string;
  prompt: string;
  emoji: string;
  rrule: string;
  scheduledAt: string;
  nextRunAt: string;
  /** When it is created: its `createdAt` and `updatedAt`. */
  at: Date;
}
/** A product to create: the create body (the fields a create takes, and the project). */
export interface NewProduct {
  body: CreateProductBody;
  /** When it is created: its `createdAt` and `updatedAt`. */
  at: Date;
}
export type ProductChanges = UpdateProductBody;

export class Database {
  readonly #db: DatabaseSync;

  constructor(path: string, seed: Seed) {
    this.#db = new DatabaseSync(path);
    if (path !== ":memory:") {
      this.#db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;");
    }
    this.#db.exec(SCHEMA);
    // A data file from before a product field was added to the contract gets its column (empty for the products it holds).
    const present = new Set((this.#db.prepare("PRAGMA table_info(products)").all() as { name: string }[]).map((c) => c.name));
    for (const field of PRODUCT_FIELD_NAMES) {
      if (!present.has(column(field)))
        this.#db.exec(`ALTER TABLE products ADD COLUMN ${column(field)} ${sqlType(field).replace(" NOT NULL", "")}`);
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

  addSite(site: { id?: string; projectId: string; name: string; subdomain: string; is_default: boolean }): SiteRecord {
    const id = site.id ?? randomUUID();
    this.#db
      .prepare("INSERT INTO sites (id, project_id, name, subdomain, is_default) VALUES (?, ?, ?, ?, ?)")
      .run(id, site.projectId, site.name, site.subdomain, site.is_default ? 1 : 0);
    return this.getSite(id)!.site;
  }

  getSite(id: string): { site: SiteRecord; projectId: string } | undefined {
    const row = this.#db.prepare("SELECT * FROM sites WHERE id = ?").get(id);
    return row ? { site: toSite(row), projectId: row.project_id as string } : undefined;
  }

  listSites(projectId: string, afterSeq: number, limit: number): Slice<SiteRecord & { seq: number }> {
    const rows = this.#db
      .prepare("SELECT * FROM sites WHERE project_id = ? AND seq > ? ORDER BY seq LIMIT ?")
      .all(projectId, afterSeq, limit + 1) as Row[];
    return slice(rows, limit, (r) => ({ seq: r.seq as number, ...toSite(r) }));
  }

  renameSite(id: string, name: string): SiteRecord {
    this.#db.prepare("UPDATE sites SET name = ? WHERE id = ?").run(name, id);
    return this.getSite(id)!.site;
  }

  // ---- products ----

  createProduct(input: NewProduct): Product {
    const id = randomUUID();
    const now = input.at.toISOString();
    // Each field from the body (a field a create does not take starts as the service's initial value).
    const values = PRODUCT_FIELD_NAMES.map(
      (field) => ((input.body as Record<string, unknown>)[field] ?? INITIAL_PRODUCT_VALUES[field] ?? null) as SQLInputValue,
    );
    this.#db
      .prepare(
        `INSERT INTO products (id, project_id, ${PRODUCT_FIELD_NAMES.map(column).join(", ")}, type, created_at, updated_at)
         VALUES (?, ?, ${PRODUCT_FIELD_NAMES.map(() => "?").join(", ")}, ?, ?, ?)`,
      )
      .run(id, input.body.projectId, ...values, CREATED_PRODUCT_TYPE, now, now);
    return this.getProduct(id)!.product;
  }

  getProduct(id: string): { product: Product; projectId: string } | undefined {
    const row = this.#db.prepare("SELECT * FROM products WHERE id = ?").get(id);
    return row ? { product: toProduct(row), projectId: row.project_id as string } : undefined;
  }

  updateProduct(id: string, changes: ProductChanges, at: Date): Product {
    const keys = PRODUCT_FIELD_NAMES.filter((k) => changes[k] !== undefined);
    if (keys.length > 0) {
      const sets = keys.map((k) => `${column(k)} = ?`).join(", ");
      this.#db
        .prepare(`UPDATE products SET ${sets}, updated_at = ? WHERE id = ?`)
        .run(...keys.map((k) => changes[k] as SQLInputValue), at.toISOString(), id);
    }
    return this.getProduct(id)!.product;
  }

  countProducts(): number {
    return (this.#db.prepare("SELECT COUNT(*) AS n FROM products").get() as { n: number }).n;
  }

  /** Every product, oldest first, with its project: what the API cannot list. */
  allProducts(): StoredProduct[] {
    return this.#db
      .prepare("SELECT * FROM products ORDER BY rowid")
      .all()
      .map((row) => ({ ...toProduct(row), projectId: row.project_id as string }));
  }

  // ---- tasks ----

  createTask(input: NewTask): TaskRecord {
    const id = randomUUID();
    const now = input.at.toISOString();
    this.#db
      .prepare(
        `INSERT INTO tasks (id, project_id, title, prompt, emoji, rrule, scheduled_at, next_run_at,
      created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(id, input.projectId, input.title, input.prompt, input.emoji, input.rrule, input.scheduledAt, input.nextRunAt, now, now);
    return this.getTask(id)!;
  }

  getTask(id: string): TaskRecord | undefined {
    const row = this.#db.prepare("SELECT * FROM tasks WHERE id = ?").get(id);
    return row ? toTask(row) : undefined;
  }

  countTasks(): number {
    return (this.#db.prepare("SELECT COUNT(*) AS n FROM tasks").get() as { n: number }).n;
  }

  /** Every task, oldest first, with its project and prompt: what the API cannot list. */
  allTasks(): StoredTask[] {
    return this.#db
      .prepare("SELECT * FROM tasks ORDER BY rowid")
      .all()
      .map((row) => ({
        ...toTask(row),
        projectId: row.project_id as string,
        prompt: row.prompt as string,
        scheduledAt: row.scheduled_at as string,
      }));
  }
}

function slice<R, T>(rows: R[], limit: number, map: (row: R) => T): Slice<T> {
  return { rows: rows.slice(0, limit).map(map), hasMore: rows.length > limit };
}

function toSite(r: Row): SiteRecord {
  return { object: "site", id: r.id as string, name: r.name as string, subdomain: r.subdomain as string, is_default: r.is_default === 1 };
}

function toProduct(r: Row): Product {
  return {
    object: "product",
    id: r.id as string,
    ...Object.fromEntries(PRODUCT_FIELD_NAMES.map((field) => [field, r[column(field)] ?? null])),
    type: r.type as string,
  } as Product;
}

function toTask(r: Row): TaskRecord {
  return {
    object: "task",
    id: r.id as string,
    title: r.title as string,
    emoji: r.emoji as string,
    rrule: r.rrule as string,
    nextRunAt: r.next_run_at as string,
    createdAt: r.created_at as string,
    updatedAt: r.updated_at as string,
  };
}
