/**
 * The catalog as data: a folder of YAML or JSON files, each a map from a record's stable key to its
 * fields — a product (the default), a site a team names (`kind: site`) or a scheduled task
 * (`kind: task`). Read from the working tree, or from a git ref (`--base`), and checked in full
 * before any stack runs — with the same checks as the resource each kind is (`Product`, `Site`,
 * `Task`), so a bad entry stops the tool with every problem listed (file, key, field), before any
 * request to the service or the backend.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { parse } from "yaml";
import { Failures, checkInputs } from "../resources/checks";
import { closeNames } from "../resources/close-names";
import type { ProductInputs } from "../resources/product";
import type { SiteInputs } from "../resources/site";
import type { TaskInputs } from "../resources/task";
import { CatalogError } from "./errors";
import { KIND, KINDS, type Kind } from "./kinds";
import { groupOf, groupProblems } from "./layout";

/** What every entry may say besides its resource's fields. */
interface EntryCommon {
  /** What it is (default `product`). */
  kind?: Kind;
  /** The project by name (resolved by the tool once per run) … */
  project?: string;
  /** … or by id. Exactly one of the two. */
  projectId?: string;
  /**
   * The key this entry had before a rename (Terraform's `moved` block, for one entry): the stacks
   * take the state under that key over — the same record, nothing archived or created. Harmless
   * once the rename is deployed; remove it in a later change.
   */
  renamedFrom?: string;
}

/** A product: the Product's inputs (its field table is the one declaration). */
export type ProductEntry = Omit<ProductInputs, "projectId"> & EntryCommon;

/**
 * A site a team names: which site of the project — by its `subdomain`, or the project's `default`
 * site (the tool finds its id in the project's listing, once per run) — and the Site's inputs. A
 * site is never created: the stack takes it over and renames it, and gives its name back when the
 * entry goes (`restoreNameOnDelete`, default true).
 */
export type SiteEntry = Omit<SiteInputs, "projectId" | "siteId"> & EntryCommon & { subdomain?: string; default?: true };

/** A scheduled task: the Task's inputs. The API cannot change or stop a task: a changed entry is a new task, and the old keeps running. */
export type TaskEntry = Omit<TaskInputs, "projectId"> & EntryCommon;

/** An entry of any kind, as the files hold it. */
export type CatalogEntry = ProductEntry | SiteEntry | TaskEntry;

interface ItemBase {
  key: string;
  /** The file it came from, relative to the catalog folder (for messages). */
  file: string;
}

/** A record the catalog declares, with its kind. */
export type CatalogItem =
  | (ItemBase & { kind: "product"; entry: ProductEntry })
  | (ItemBase & { kind: "site"; entry: SiteEntry })
  | (ItemBase & { kind: "task"; entry: TaskEntry });

export type Catalog = Map<string, CatalogItem>;

/**
 * A key is the product's logical name in its stack (part of its URN), so it must be URN-safe:
 * letters of any script (with their combining marks) and digits, `.`, `_`, `-`, starting with a
 * letter or digit, at most 200 characters — and in Unicode's composed form (NFC), so a key typed
 * on another system is the same key.
 */
export const KEY = /^[\p{L}\p{N}][\p{L}\p{M}\p{N}._-]{0,199}$/u;

/** Whether `key` can be a catalog key. */
export function isKey(key: string): boolean {
  return KEY.test(key) && key === key.normalize("NFC");
}

/** The rule, in the words every refusal of a key uses. */
export const KEY_RULE = "keys must be 1 to 200 letters (of any script), digits, '.', '_' or '-', starting with a letter or digit";

/** The fields an entry of each kind may have: `kind`, the project, its resource's inputs (a site's by subdomain, not id), the rename link. */
export const ENTRY_FIELDS: Readonly<Record<Kind, readonly string[]>> = {
  product: ["kind", "project", ...Object.keys(KIND.product.fields.inputs), "renamedFrom"],
  site: [
    "kind",
    "project",
    "projectId",
    "subdomain",
    "default",
    ...Object.keys(KIND.site.fields.inputs).filter((k) => k !== "projectId" && k !== "siteId"),
    "renamedFrom",
  ],
  task: ["kind", "project", ...Object.keys(KIND.task.fields.inputs), "renamedFrom"],
};
const EXTENSIONS = /\.(ya?ml|json)$/i;
/** A placeholder id for the checks where the tool finds the id at run time (a project by name, a site by subdomain). */
const SOME_ID = "00000000-0000-0000-0000-000000000000";

/** The catalog in the working tree. */
export function readCatalog(dir: string): Catalog {
  let files: string[];
  try {
    if (!statSync(dir).isDirectory()) throw new Error("not a folder");
    files = listFiles(dir, dir);
  } catch {
    throw new CatalogError(`--catalog ${dir}: no such folder. Give the folder of catalog files (YAML or JSON), or create catalog/`);
  }
  return parseCatalog(files.map((file) => ({ file, text: readFileSync(join(dir, file), "utf8") })));
}

/**
 * The catalog as it was at a git ref (`--base origin/main`): the files under the same folder, read
 * with `git show`, so a pull request's change is found without a second checkout. Problems in the
 * base's files are not this change's: they are reported as one line, and the base taken as empty.
 */
export function readCatalogAt(ref: string, dir: string, note?: (line: string) => void): Catalog {
  // Outside a git repository there is no ref to compare with: say that, not "fetch it".
  try {
    execFileSync("git", ["rev-parse", "--is-inside-work-tree"], { cwd: dir, stdio: "ignore" });
  } catch {
    throw new CatalogError(
      `--base ${ref}: the catalog folder is not in a git repository, so there is no commit to compare with; leave --base out`,
    );
  }
  let names: string[];
  try {
    // Paths relative to `dir` (git prints them relative to its working directory); `-z`: as they are, not quoted (`"caf\303\251.yaml"`).
    names = execFileSync("git", ["ls-tree", "-r", "-z", "--name-only", ref, "--", "."], {
      cwd: dir,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    })
      .split("\0")
      // Dotfiles and dot-folders skipped, as `listFiles` skips them in the working tree (else they would read as removed).
      .filter((name) => EXTENSIONS.test(name) && !name.split("/").some((part) => part.startsWith(".")));
  } catch (error) {
    const reason = String((error as { stderr?: unknown }).stderr ?? error)
      .trim()
      .split("\n")[0];
    throw new CatalogError(`--base ${ref}: git cannot read that ref (${reason}). Fetch it first (actions/checkout with fetch-depth: 0)`);
  }
  const files = names.map((file) => ({
    file,
    text: execFileSync("git", ["show", `${ref}:./${file}`], { cwd: dir, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 }),
  }));
  const { catalog, problems } = collect(files);
  if (problems.length > 0) {
    note?.(`--base ${ref}: the catalog there has ${problems.length} problem(s), not this change's; every product is taken as changed`);
    return new Map();
  }
  return catalog;
}

function listFiles(root: string, dir: string): string[] {
  const out: string[] = [];
  for (const dirent of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (dirent.name.startsWith(".")) continue;
    const path = join(dir, dirent.name);
    if (dirent.isDirectory()) out.push(...listFiles(root, path));
    else if (EXTENSIONS.test(dirent.name)) out.push(relative(root, path));
  }
  return out;
}

/** Every file parsed and every entry checked; all problems in one error. */
export function parseCatalog(files: { file: string; text: string }[]): Catalog {
  const { catalog, problems } = collect(files);
  refuseProblems(problems);
  return catalog;
}

/** The catalog's problems (`file: key: what`), the first 50 shown, as the one refusal before anything runs; none, nothing. */
export function refuseProblems(problems: string[]): void {
  if (problems.length === 0) return;
  const shown = problems.slice(0, 50);
  const more = problems.length > shown.length ? `\n  … and ${problems.length - shown.length} more` : "";
  throw new CatalogError(`the catalog has ${problems.length} problem(s); nothing was run:\n  ${shown.join("\n  ")}${more}`);
}

function collect(files: { file: string; text: string }[]): { catalog: Catalog; problems: string[] } {
  const catalog: Catalog = new Map();
  // Each file or folder directly in the catalog folder names its stacks (`layout.ts`).
  const problems: string[] = groupProblems(files.map((f) => f.file));
  /** Which key adopts which product: one product, one entry. */
  const adopted = new Map<string, string>();
  for (const { file, text } of files) {
    let doc: unknown;
    try {
      doc = parse(text);
    } catch (error) {
      // The parser's message names a line and column, never quotes more than the offending token's position.
      problems.push(`${file}: not valid YAML or JSON (${String((error as Error).message).split("\n")[0]})`);
      continue;
    }
    if (doc === null || doc === undefined) continue; // An empty file is an empty map.
    if (typeof doc !== "object" || Array.isArray(doc)) {
      problems.push(`${file}: must be a map from each product's key to its fields`);
      continue;
    }
    for (const [key, raw] of Object.entries(doc as Record<string, unknown>)) {
      // A key that cannot be one is quoted (JSON, shortened): it is a name, not a value, and the user must find it.
      const where = `${file}: ${isKey(key) ? key : `the key ${JSON.stringify(key.length > 40 ? `${key.slice(0, 39)}…` : key)}`}`;
      if (!isKey(key)) {
        problems.push(`${where}: ${KEY_RULE}${KEY.test(key) ? " (and written in Unicode's composed form, NFC)" : ""}`);
        continue;
      }
      const other = catalog.get(key);
      if (other !== undefined) {
        problems.push(`${where}: the key is also used in ${other.file}; keys must be unique across the catalog`);
        continue;
      }
      const { kind, problems: entryProblems } = checkEntry(raw);
      const entry = raw as CatalogEntry | null;
      // One record, one entry: a product or task adopted twice, a site named twice.
      const identity =
        kind === "site"
          ? siteIdentity(entry as SiteEntry)
          : typeof adoptIdOf(entry) === "string"
            ? `${kind}:${adoptIdOf(entry)!.toLowerCase()}`
            : undefined;
      if (entryProblems.length === 0 && identity !== undefined) {
        const other = adopted.get(identity);
        if (other !== undefined)
          entryProblems.push(
            kind === "site"
              ? `names the same site as ${other}: one site, one entry (remove one of the two)`
              : `adoptId names the same ${KIND[kind].noun[0]} as ${other}'s adoptId: one ${KIND[kind].noun[0]}, one entry (remove one of the two)`,
          );
        else adopted.set(identity, key);
      }
      if (entry?.renamedFrom === key) entryProblems.push("renamedFrom names the entry's own key: give the key it had before the rename");
      problems.push(...entryProblems.map((problem) => `${where}: ${problem}`));
      if (entryProblems.length === 0) catalog.set(key, { key, file, kind, entry } as CatalogItem);
    }
  }
  // A rename link to a key the catalog still has would give one state to two entries.
  const linked = new Map<string, string>();
  for (const product of catalog.values()) {
    const from = product.entry.renamedFrom;
    if (from === undefined) continue;
    const where = `${product.file}: ${product.key}`;
    const still = catalog.get(from);
    if (still !== undefined)
      problems.push(
        `${where}: renamedFrom names ${from}, which the catalog still has (in ${still.file}): remove ${from}'s entry, or the link`,
      );
    else if (linked.has(from))
      problems.push(`${where}: renamedFrom names ${from}, as ${linked.get(from)}'s does: one old key, one new key`);
    linked.set(from, product.key);
  }
  return { catalog, problems };
}

/** The record an entry takes over instead of creating one: a product's or a task's `adoptId` (a site is always taken over, by the id the tool finds). */
export function adoptIdOf(entry: CatalogEntry | null | undefined): string | undefined {
  const adoptId = (entry as { adoptId?: unknown } | null | undefined)?.adoptId;
  return typeof adoptId === "string" ? adoptId : undefined;
}

/** A site entry's site: its project and subdomain, or its project's default site. */
function siteIdentity(entry: SiteEntry): string {
  return `site:${entry.project ?? entry.projectId}:${entry.default === true ? "(default)" : entry.subdomain}`;
}

/** Every problem of one entry, each naming the field and the limit (never the value), and its kind. */
function checkEntry(raw: unknown): { kind: Kind; problems: string[] } {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw))
    return { kind: "product", problems: ["must be a map of the record's fields (title, project, …)"] };
  const entry = raw as Record<string, unknown>;
  const kind = (entry.kind ?? "product") as Kind;
  if (!KINDS.includes(kind)) {
    const close = typeof entry.kind === "string" ? closeNames(entry.kind, [...KINDS], 1) : [];
    return {
      kind: "product",
      problems: [`kind must be one of ${KINDS.join(", ")} (product when left out)${close.length > 0 ? `; did you mean ${close[0]}?` : ""}`],
    };
  }
  const allowed = new Set(ENTRY_FIELDS[kind]);
  const problems: string[] = [];
  // Fields a misspelled one was taken for: their own rules are not said again (one line per mistake).
  const meant = new Set<string>();
  for (const field of Object.keys(entry)) {
    if (!allowed.has(field)) {
      const close = closeNames(field, [...allowed], 1);
      if (close.length > 0) meant.add(close[0]!);
      problems.push(
        `${field} is not a field of a ${kind} entry${close.length > 0 ? `; did you mean ${close[0]}?` : ""} (one of ${[...allowed].join(", ")})`,
      );
    }
  }
  const hasName = entry.project !== undefined;
  const hasId = entry.projectId !== undefined;
  if (hasName === hasId) problems.push("give the project by name (project) or by id (projectId), exactly one of the two");
  if (hasName && (typeof entry.project !== "string" || entry.project === "")) problems.push("project must be a project's name");
  if (entry.renamedFrom !== undefined && (typeof entry.renamedFrom !== "string" || !isKey(entry.renamedFrom)))
    problems.push(`renamedFrom must be the key the entry had before (${KEY_RULE})`);
  const { project: _project, renamedFrom: _renamedFrom, kind: _kind, subdomain, default: isDefault, ...inputs } = entry;
  if (kind === "site") {
    if ((subdomain === undefined) === (isDefault === undefined) && !meant.has("subdomain") && !meant.has("default"))
      problems.push("give the site by its subdomain (subdomain) or as the project's default site (default: true), exactly one of the two");
    if (subdomain !== undefined && (typeof subdomain !== "string" || subdomain === ""))
      problems.push("subdomain must be a site's subdomain");
    if (isDefault !== undefined && isDefault !== true) problems.push("default must be true (or left out, with a subdomain)");
  }
  // The resource's own checks (each names the field and the limit, never the value); the ids the tool finds are placeholders here.
  const failures = new Failures();
  const ids = { projectId: hasId ? entry.projectId : SOME_ID, ...(kind === "site" && { siteId: SOME_ID }) };
  checkInputs(failures, KIND[kind].fields, { ...inputs, ...ids });
  for (const failure of failures.list) {
    if (failure.field !== undefined && !allowed.has(failure.field) && failure.field !== "projectId") continue; // already reported above, in catalog words
    problems.push(failure.reason);
  }
  return { kind, problems };
}

/** What a change does to the catalog, by key. */
export interface CatalogChange {
  added: string[];
  changed: string[];
  /** Entries moved to a file of another group (their stack changes: a state move, no request). */
  moved: string[];
  removed: string[];
}

export function compareCatalogs(base: Catalog, head: Catalog): CatalogChange {
  const change: CatalogChange = { added: [], changed: [], moved: [], removed: [] };
  for (const [key, product] of head) {
    const before = base.get(key);
    if (before === undefined) change.added.push(key);
    else if (fingerprint([before]) !== fingerprint([product])) change.changed.push(key);
    if (before !== undefined && groupOf(before.file) !== groupOf(product.file)) change.moved.push(key);
  }
  for (const key of base.keys()) if (!head.has(key)) change.removed.push(key);
  for (const list of Object.values(change)) list.sort();
  return change;
}

/** A digest of products' keys and inputs (not their files: moving an entry between files changes nothing). */
export function fingerprint(products: Iterable<CatalogItem>): string {
  const hash = createHash("sha256");
  for (const product of [...products].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))) {
    hash.update(JSON.stringify([product.key, Object.entries(product.entry).sort(([a], [b]) => (a < b ? -1 : 1))]));
    hash.update("\n");
  }
  return hash.digest("hex");
}
