/**
 * The catalog as data (`provider/catalog/catalog.ts`): what the tool reads from a folder or a git
 * ref, and what it refuses before any stack runs — every problem in one error, each naming the file,
 * the key and the field, never a value. Pure: a scratch folder and a scratch git repository, no
 * Pulumi CLI, no service.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import {
  compareCatalogs,
  ENTRY_FIELDS,
  fingerprint,
  parseCatalog,
  readCatalog,
  readCatalogAt,
  type Catalog,
  type CatalogItem,
  type ProductEntry,
} from "../../provider/catalog/catalog";
import { CatalogError } from "../../provider/catalog/errors";
import { PRODUCT_FIELD_NAMES } from "../../provider/contract/schemas";

const PROJECT_ID = "11111111-2222-4333-8444-555555555555";
/** `project`, then every input of the Product resource (whose fields are the contract's table), in the table's order. */
const FIELD_LIST = `one of ${["kind", "project", "projectId", ...PRODUCT_FIELD_NAMES, "onDelete", "adoptId", "renamedFrom"].join(", ")}`;

/** The error `run` throws (failing the test when it throws none, or not a CatalogError). */
function refusal(run: () => unknown): CatalogError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(CatalogError);
    return error as CatalogError;
  }
  throw new Error("expected a CatalogError, but nothing was thrown");
}

/** The problems of a refused catalog, one per line, as the CLI prints them. */
function problems(files: { file: string; text: string }[]): string {
  return refusal(() => parseCatalog(files)).message;
}

const one = (file: string, text: string) => problems([{ file, text }]);
const header = (n: number) => `the catalog has ${n} problem(s); nothing was run:`;

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), "catalog-test-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function write(root: string, files: Record<string, string>): void {
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), text);
  }
}

/** The entries of a catalog, by key, as plain data (the file each came from included). */
const entries = (catalog: Catalog) => Object.fromEntries([...catalog].map(([key, p]) => [key, { file: p.file, entry: p.entry }]));

describe("parseCatalog: what a catalog may say", () => {
  it("reads YAML and JSON files alike, keeping each product's file and fields", () => {
    const catalog = parseCatalog([
      { file: "web.yaml", text: `widget:\n  project: Acme Web\n  title: Widget\n  slug: widget\n  status: active\n` },
      {
        file: "api.json",
        text: JSON.stringify({ gadget: { projectId: PROJECT_ID, title: "Gadget", description: null, onDelete: "retain" } }),
      },
      { file: "empty.yml", text: "" },
    ]);
    expect(entries(catalog)).toEqual({
      widget: { file: "web.yaml", entry: { project: "Acme Web", title: "Widget", slug: "widget", status: "active" } },
      gadget: { file: "api.json", entry: { projectId: PROJECT_ID, title: "Gadget", description: null, onDelete: "retain" } },
    });
    expect(catalog.get("widget")!.key).toBe("widget");
  });

  it("refuses a field that is not a catalog field, listing the fields it may have", () => {
    expect(one("a.yaml", "p1:\n  project: Acme Web\n  title: T\n  descripton: x\n")).toBe(
      `${header(1)}\n  a.yaml: p1: descripton is not a field of a product entry; did you mean description? (${FIELD_LIST})`,
    );
    // An output of the resource is refused the same way, once (not again in the resource's words).
    expect(one("a.yaml", "p1:\n  project: Acme Web\n  title: T\n  type: physical\n")).toBe(
      `${header(1)}\n  a.yaml: p1: type is not a field of a product entry (${FIELD_LIST})`,
    );
  });

  it("wants the project by name or by id, exactly one of the two", () => {
    const both = one("a.yaml", `p1:\n  project: Acme Web\n  projectId: ${PROJECT_ID}\n  title: T\n`);
    const neither = one("a.yaml", "p1:\n  title: T\n");
    const line = "a.yaml: p1: give the project by name (project) or by id (projectId), exactly one of the two";
    expect(both).toBe(`${header(1)}\n  ${line}`);
    expect(neither).toBe(`${header(1)}\n  ${line}`);
    expect(one("a.yaml", `p1:\n  project: ""\n  title: T\n`)).toBe(`${header(1)}\n  a.yaml: p1: project must be a project's name`);
  });

  it("reads a site entry (by subdomain or as the default site) and a task entry, each checked by its resource", () => {
    const catalog = parseCatalog([
      {
        file: "web.yaml",
        text: "home:\n  kind: site\n  project: Acme Web\n  default: true\n  name: Home\nshop:\n  kind: site\n  project: Acme Web\n  subdomain: acme-web-002\n  name: Shop\n",
      },
    ]);
    expect([...catalog.values()].map((i) => [i.key, i.kind])).toEqual([
      ["home", "site"],
      ["shop", "site"],
    ]);
    expect(one("web.yaml", "home:\n  kind: site\n  project: Acme Web\n  name: Home\n")).toBe(
      `${header(1)}\n  web.yaml: home: give the site by its subdomain (subdomain) or as the project's default site (default: true), exactly one of the two`,
    );
    expect(one("web.yaml", "home:\n  kind: site\n  project: Acme Web\n  default: true\n  name: ''\n").split("\n")[1]).toMatch(
      /^ {2}web\.yaml: home: name /,
    );
    // A misspelled subdomain is one line (not a second about giving a subdomain), and a misspelled kind is named.
    expect(
      one("web.yaml", "shop:\n  kind: site\n  project: Acme Web\n  subdomian: acme-web-002\n  name: Shop\n").split("\n").slice(1),
    ).toEqual([
      `  web.yaml: shop: subdomian is not a field of a site entry; did you mean subdomain? (one of ${ENTRY_FIELDS.site.join(", ")})`,
    ]);
    expect(one("web.yaml", "shop:\n  kind: sites\n  project: Acme Web\n").split("\n")[1]).toBe(
      "  web.yaml: shop: kind must be one of product, site, task (product when left out); did you mean site?",
    );
    // A task: the Task resource's own checks (here: a task without its title).
    expect(
      one("t.yaml", "nightly:\n  kind: task\n  project: Acme Web\n  prompt: Hello\n  scheduledAt: 2099-01-01T00:00:00Z\n").split("\n")[1],
    ).toMatch(/^ {2}t\.yaml: nightly: title /);
    expect(
      parseCatalog([
        {
          file: "t.yaml",
          text: "nightly:\n  kind: task\n  project: Acme Web\n  title: Nightly\n  prompt: Hello\n  scheduledAt: 2099-01-01T00:00:00Z\n",
        },
      ]).get("nightly")?.kind,
    ).toBe("task");
  });

  it("refuses a too-long title naming the field and the limit, never quoting the value", () => {
    const title = `private-launch-codename-${"x".repeat(1010)}`;
    const message = one("a.yaml", `p1:\n  project: Acme Web\n  title: ${title}\n`);
    expect(message).toBe(`${header(1)}\n  a.yaml: p1: title must be 1 to 1024 characters long (got 1034)`);
    expect(message).not.toContain("private-launch-codename");
  });

  it("runs the Product resource's own checks on every field", () => {
    const text =
      `p1:\n  projectId: not-an-id\n  title: T\n  slug: ""\n  status: bogus\n  externalCheckoutUrl: not a url\n` +
      `  onDelete: keep\n  adoptId: 42\n`;
    expect(one("a.yaml", text).split("\n")).toEqual([
      header(6),
      "  a.yaml: p1: projectId must be a UUID (8-4-4-4-12 hex digits)",
      "  a.yaml: p1: slug must be 1 to 1024 characters long (got 0)",
      '  a.yaml: p1: status must be one of "active", "archived", "draft"',
      "  a.yaml: p1: externalCheckoutUrl must be an absolute URI (RFC 3986: a scheme such as https:, ASCII only, no spaces, % only in %XX escapes)",
      '  a.yaml: p1: onDelete must be one of "archive", "retain"',
      expect.stringMatching(/^ {2}a\.yaml: p1: adoptId .* \(the id of an existing product to take over\)$/),
    ]);
  });

  it("refuses a key that cannot be a logical name, quoting it (shortened) so that it can be found", () => {
    const message = one("a.yaml", `"bad key!":\n  project: Acme Web\n  title: T\n-leading-dash:\n  project: Acme Web\n  title: T\n`);
    const line = "keys must be 1 to 200 letters (of any script), digits, '.', '_' or '-', starting with a letter or digit";
    expect(message).toBe(`${header(2)}\n  a.yaml: the key "bad key!": ${line}\n  a.yaml: the key "-leading-dash": ${line}`);
    expect(parseCatalog([{ file: "a.yaml", text: `${"k".repeat(200)}:\n  project: A\n  title: T\n` }]).size).toBe(1);
    expect(one("a.yaml", `${"k".repeat(201)}:\n  project: A\n  title: T\n`)).toBe(
      `${header(1)}\n  a.yaml: the key "${"k".repeat(39)}…": ${line}`,
    );
  });

  it("refuses a key used in two files, naming both", () => {
    const message = problems([
      { file: "a.yaml", text: "p1:\n  project: Acme Web\n  title: T\n" },
      { file: "b/c.json", text: '{"p1": {"project": "Acme Web", "title": "U"}}' },
    ]);
    expect(message).toBe(`${header(1)}\n  b/c.json: p1: the key is also used in a.yaml; keys must be unique across the catalog`);
  });

  it("refuses two entries adopting one product (one product, one entry), naming both keys", () => {
    const id = "0b3f2a8e-5b7c-4f1e-9a6d-2c4e8f0a1b3d";
    const message = problems([
      { file: "a.yaml", text: `p1:\n  project: Acme Web\n  title: T\n  adoptId: ${id}\n` },
      { file: "b.yaml", text: `p2:\n  project: Acme Web\n  title: U\n  adoptId: ${id.toUpperCase()}\n` },
    ]);
    expect(message).toBe(
      `${header(1)}\n  b.yaml: p2: adoptId names the same product as p1's adoptId: one product, one entry (remove one of the two)`,
    );
  });

  it("refuses files whose names cannot name their stacks, before reading their entries' problems away", () => {
    const message = problems([
      { file: "plans.yaml", text: "p1:\n  project: Acme Web\n  title: T\n" },
      { file: "plans.json", text: '{"p2": {"project": "Acme Web", "title": "U"}}' },
    ]);
    expect(message).toBe(`${header(1)}\n  plans.json and plans.yaml: both give the stacks of group "plans"; rename one of them`);
  });

  it("refuses a file that is not a map, an entry that is not a map, and a file that does not parse", () => {
    expect(one("list.yaml", "- a\n- b\n")).toBe(`${header(1)}\n  list.yaml: must be a map from each product's key to its fields`);
    expect(one("scalar.json", "42")).toBe(`${header(1)}\n  scalar.json: must be a map from each product's key to its fields`);
    expect(one("a.yaml", "p1: 3\n")).toBe(`${header(1)}\n  a.yaml: p1: must be a map of the record's fields (title, project, …)`);
    expect(one("a.yaml", "p1: [\n")).toBe(
      `${header(1)}\n  a.yaml: not valid YAML or JSON (Flow sequence in block collection must be sufficiently indented and end with a ] at line 2, column 1:)`,
    );
    expect(one("a.json", '{"p1": ')).toBe(
      `${header(1)}\n  a.json: not valid YAML or JSON (Flow map must end with a } at line 1, column 8:)`,
    );
    // A key twice in one file is the parser's to find.
    expect(one("a.yaml", "p1:\n  project: A\n  title: T\np1:\n  project: B\n  title: U\n")).toBe(
      `${header(1)}\n  a.yaml: not valid YAML or JSON (Map keys must be unique at line 4, column 1:)`,
    );
  });

  it("lists every problem of every file in one error", () => {
    const message = problems([
      { file: "a.yaml", text: "p1:\n  title: T\n  colour: red\n" },
      { file: "b.yaml", text: "- not a map\n" },
      { file: "c.yaml", text: "ok:\n  project: Acme Web\n  title: T\n" },
      { file: "d.json", text: '{"ok": {"project": "Acme Web", "title": "T"}, "p2": {"project": "Acme Web"}}' },
    ]);
    expect(message.split("\n")).toEqual([
      header(5),
      `  a.yaml: p1: colour is not a field of a product entry (${FIELD_LIST})`,
      "  a.yaml: p1: give the project by name (project) or by id (projectId), exactly one of the two",
      "  b.yaml: must be a map from each product's key to its fields",
      "  d.json: ok: the key is also used in c.yaml; keys must be unique across the catalog",
      "  d.json: p2: title is required",
    ]);
  });

  it("shows the first 50 problems and counts the rest", () => {
    const text = Array.from({ length: 60 }, (_, i) => `p${i}:\n  title: T\n`).join("");
    const lines = one("a.yaml", text).split("\n");
    expect(lines[0]).toBe(header(60));
    expect(lines).toHaveLength(1 + 50 + 1);
    expect(lines[50]).toBe("  a.yaml: p49: give the project by name (project) or by id (projectId), exactly one of the two");
    expect(lines[51]).toBe("  … and 10 more");
  });
});

describe("readCatalog: the folder in the working tree", () => {
  it("reads YAML and JSON files in nested folders and ignores dotfiles, dot-folders and other files", () => {
    const dir = scratch();
    write(dir, {
      "web.yaml": "widget:\n  project: Acme Web\n  title: Widget\n",
      "teams/api/products.json": JSON.stringify({ gadget: { projectId: PROJECT_ID, title: "Gadget" } }),
      "teams/docs.YML": "manual:\n  project: Acme Docs\n  title: Manual\n",
      // Not read: each would be a problem if it were.
      ".draft.yaml": "not: [valid\n",
      ".github/workflow.yml": "on: push\n",
      "teams/.wip/more.yaml": "widget:\n  project: Acme Web\n  title: Duplicate\n",
      "README.md": "# the catalog\n",
    });
    expect(entries(readCatalog(dir))).toEqual({
      widget: { file: "web.yaml", entry: { project: "Acme Web", title: "Widget" } },
      gadget: { file: join("teams", "api", "products.json"), entry: { projectId: PROJECT_ID, title: "Gadget" } },
      manual: { file: join("teams", "docs.YML"), entry: { project: "Acme Docs", title: "Manual" } },
    });
  });

  it("names the file of a problem by its path in the folder", () => {
    const dir = scratch();
    write(dir, { "teams/web.yaml": "p1:\n  project: Acme Web\n" });
    expect(refusal(() => readCatalog(dir)).message).toBe(`${header(1)}\n  teams/web.yaml: p1: title is required`);
  });

  it("says what to do when the folder is missing, or is a file", () => {
    const dir = scratch();
    const missing = join(dir, "catalog");
    expect(refusal(() => readCatalog(missing)).message).toBe(
      `--catalog ${missing}: no such folder. Give the folder of catalog files (YAML or JSON), or create catalog/`,
    );
    write(dir, { "file.yaml": "" });
    const file = join(dir, "file.yaml");
    expect(refusal(() => readCatalog(file)).message).toBe(
      `--catalog ${file}: no such folder. Give the folder of catalog files (YAML or JSON), or create catalog/`,
    );
  });

  it("reads an empty folder as an empty catalog", () => {
    expect(readCatalog(scratch()).size).toBe(0);
  });
});

describe("readCatalogAt: the catalog at a git ref (--base)", () => {
  /** A scratch repository with the catalog under `catalog/`, committed once; git's user and hooks are this test's own. */
  function repository(files: Record<string, string>): { root: string; catalog: string; git: (...args: string[]) => string } {
    const root = scratch();
    const env = {
      ...process.env,
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_AUTHOR_NAME: "Catalog Test",
      GIT_AUTHOR_EMAIL: "catalog@example.com",
      GIT_COMMITTER_NAME: "Catalog Test",
      GIT_COMMITTER_EMAIL: "catalog@example.com",
    };
    const git = (...args: string[]) => execFileSync("git", args, { cwd: root, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    git("init", "--quiet", "--initial-branch=main");
    write(join(root, "catalog"), files);
    // A file beside the catalog folder is not part of it.
    write(root, { "other.yaml": "outside:\n  project: Acme Web\n  title: Outside\n" });
    git("add", "--all");
    git("commit", "--quiet", "--message", "catalog");
    return { root, catalog: join(root, "catalog"), git };
  }

  it("reads the catalog as committed, and compares it with the working tree by key", () => {
    const { catalog } = repository({
      "web.yaml":
        "keep:\n  project: Acme Web\n  title: Keep\nedit:\n  project: Acme Web\n  title: Before\ndrop:\n  project: Acme Web\n  title: Drop\n",
      "nested/api.json": JSON.stringify({ moved: { projectId: PROJECT_ID, title: "Moved" } }),
    });
    // The change, not committed: one title edited, one entry removed, one added, one moved to another file (keys reordered).
    write(catalog, {
      "web.yaml":
        "keep:\n  project: Acme Web\n  title: Keep\nedit:\n  project: Acme Web\n  title: After\nnew:\n  project: Acme Web\n  title: New\n",
      "nested/api.json": "{}",
      "moved.yaml": `moved:\n  title: Moved\n  projectId: ${PROJECT_ID}\n`,
    });
    const base = readCatalogAt("HEAD", catalog);
    expect(entries(base)).toEqual({
      keep: { file: "web.yaml", entry: { project: "Acme Web", title: "Keep" } },
      edit: { file: "web.yaml", entry: { project: "Acme Web", title: "Before" } },
      drop: { file: "web.yaml", entry: { project: "Acme Web", title: "Drop" } },
      moved: { file: "nested/api.json", entry: { projectId: PROJECT_ID, title: "Moved" } },
    });
    // From nested/ to moved.yaml: another group, so another stack.
    expect(compareCatalogs(base, readCatalog(catalog))).toEqual({ added: ["new"], changed: ["edit"], moved: ["moved"], removed: ["drop"] });
  });

  it("reads a ref other than HEAD, and the catalog as it was before it existed as empty", () => {
    const { catalog, git } = repository({});
    // The first commit has no catalog files (git keeps no empty folder).
    write(catalog, { "web.yaml": "p1:\n  project: Acme Web\n  title: One\n" });
    git("add", "--all");
    git("commit", "--quiet", "--message", "first product");
    expect(readCatalogAt("HEAD~1", catalog).size).toBe(0);
    expect([...readCatalogAt("HEAD", catalog).keys()]).toEqual(["p1"]);
  });

  it("ignores dotfiles and dot-folders at the ref, as in the working tree", () => {
    const { catalog } = repository({
      "web.yaml": "p1:\n  project: Acme Web\n  title: One\n",
      ".draft.yaml": "p2:\n  project: Acme Web\n  title: Draft\n",
      ".wip/more.yaml": "p1:\n  project: Acme Web\n  title: Duplicate\n",
    });
    expect([...readCatalog(catalog).keys()]).toEqual(["p1"]);
    expect([...readCatalogAt("HEAD", catalog).keys()]).toEqual(["p1"]);
    // So an unchanged catalog is no change at all.
    expect(compareCatalogs(readCatalogAt("HEAD", catalog), readCatalog(catalog))).toEqual({
      added: [],
      changed: [],
      moved: [],
      removed: [],
    });
  });

  it("takes a base whose catalog has problems as empty, saying so in one line", () => {
    const { catalog } = repository({ "web.yaml": "p1:\n  project: Acme Web\n  title: One\n  colour: red\n" });
    // The change fixes the entry: the base's problem is not this change's.
    write(catalog, { "web.yaml": "p1:\n  project: Acme Web\n  title: One\n" });
    const notes: string[] = [];
    const base = readCatalogAt("HEAD", catalog, (line) => notes.push(line));
    expect(base.size).toBe(0);
    expect(notes).toEqual(["--base HEAD: the catalog there has 1 problem(s), not this change's; every product is taken as changed"]);
    expect(compareCatalogs(base, readCatalog(catalog))).toEqual({ added: ["p1"], changed: [], moved: [], removed: [] });
  });

  it("reads files whose names git would quote (non-ASCII, spaces), as the working tree does", () => {
    const { catalog } = repository({
      "teams/café.yaml": "p1:\n  project: Acme Web\n  title: One\n",
      "teams/über team.json": JSON.stringify({ p2: { project: "Acme Web", title: "Two" } }),
    });
    expect(entries(readCatalogAt("HEAD", catalog))).toEqual({
      p1: { file: "teams/café.yaml", entry: { project: "Acme Web", title: "One" } },
      p2: { file: "teams/über team.json", entry: { project: "Acme Web", title: "Two" } },
    });
    expect(compareCatalogs(readCatalogAt("HEAD", catalog), readCatalog(catalog))).toEqual({
      added: [],
      changed: [],
      moved: [],
      removed: [],
    });
  });

  it("says what to do when git cannot read the ref", () => {
    const { catalog } = repository({ "web.yaml": "p1:\n  project: Acme Web\n  title: One\n" });
    const message = refusal(() => readCatalogAt("origin/main", catalog)).message;
    // The reason in the middle is git's own words (one line), which vary between git versions.
    expect(message).toMatch(
      /^--base origin\/main: git cannot read that ref \(fatal: [^\n]+\)\. Fetch it first \(actions\/checkout with fetch-depth: 0\)$/,
    );
  });
});

describe("fingerprint and compareCatalogs", () => {
  const product = (key: string, entry: Record<string, unknown>, file = "a.yaml"): CatalogItem => ({
    key,
    file,
    kind: "product",
    entry: entry as unknown as ProductEntry,
  });

  it("does not change when an entry moves to another file or its fields are reordered, nor with the products' order", () => {
    const before = [product("a", { project: "Acme Web", title: "A", slug: "a" }), product("b", { projectId: PROJECT_ID, title: "B" })];
    const after = [
      product("b", { title: "B", projectId: PROJECT_ID }, "teams/b.json"),
      product("a", { slug: "a", title: "A", project: "Acme Web" }, "z.yaml"),
    ];
    expect(fingerprint(after)).toBe(fingerprint(before));
    expect(fingerprint(before)).toMatch(/^[0-9a-f]{64}$/);
  });

  it("changes with a value, a field added or removed, a key, or a product more", () => {
    const base = fingerprint([product("a", { project: "Acme Web", title: "A" })]);
    const variants = [
      [product("a", { project: "Acme Web", title: "A2" })],
      [product("a", { project: "Acme Web", title: "A", slug: "a" })],
      [product("a", { project: "Acme Web" })],
      [product("b", { project: "Acme Web", title: "A" })],
      [product("a", { project: "Acme Web", title: "A" }), product("b", { project: "Acme Web", title: "B" })],
    ].map(fingerprint);
    expect(new Set([base, ...variants]).size).toBe(1 + variants.length);
  });

  it("compares by key: added, changed, moved to another file's group and removed, each sorted, a moved entry not changed", () => {
    const catalog = (...products: CatalogItem[]): Catalog => new Map(products.map((p) => [p.key, p]));
    const base = catalog(
      product("same", { project: "W", title: "S" }),
      product("moved", { project: "W", title: "M" }),
      product("zz-edit", { project: "W", title: "1" }),
      product("aa-edit", { project: "W", title: "1" }),
      product("gone", { project: "W", title: "G" }),
    );
    const head = catalog(
      product("same", { project: "W", title: "S" }),
      product("moved", { title: "M", project: "W" }, "other.yaml"),
      product("zz-edit", { project: "W", title: "2" }),
      product("aa-edit", { project: "W", title: "1", status: "draft" }),
      product("new-b", { project: "W", title: "B" }),
      product("new-a", { project: "W", title: "A" }),
    );
    // "moved" went to another file: another group (its stack changes), not a changed entry.
    expect(compareCatalogs(base, head)).toEqual({
      added: ["new-a", "new-b"],
      changed: ["aa-edit", "zz-edit"],
      moved: ["moved"],
      removed: ["gone"],
    });
    expect(compareCatalogs(head, head)).toEqual({ added: [], changed: [], moved: [], removed: [] });
  });
});

describe("the example catalog (examples/catalog-tool)", () => {
  it("reads as the 10 products its README describes, all on Acme Web, from its three files", () => {
    const catalog = readCatalog(join(__dirname, "..", "..", "examples", "catalog-tool", "catalog"));
    expect(catalog.size).toBe(10);
    expect(new Set([...catalog.values()].map((p) => p.entry.project))).toEqual(new Set(["Acme Web"]));
    expect(new Set([...catalog.values()].map((p) => p.file))).toEqual(new Set(["add-ons.yaml", "legacy.json", "plans.yaml"]));
  });
});
