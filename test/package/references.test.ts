/**
 * Every file the code's comments and the docs refer to exists: paths into this repository
 * (`provider/client/client.ts`, `docs/recovery.md#…`, a Markdown link), globs (`provider/dynamic/*.ts`,
 * which must match something), bare module names (such as `transport.ts`), and the package's own
 * subpaths (`require("pulumi-serviceapi/dynamic/product")`, which must be an export — and the name new
 * stacks get, unless the sentence says it is the one older stacks carry). A renamed or removed file
 * leaves no stale pointer behind, in any tracked text file: TypeScript and JavaScript, Markdown, shell
 * scripts with or without an extension (`.ci/run`, the plugin's launcher), YAML, Go, Python.
 * And a doc comment sits on what it describes: none is followed at once by another.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, extname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(__dirname, "..", "..");
const tracked = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], { cwd: root, encoding: "utf8" })
  .split("\n")
  .filter((f) => f !== "" && existsSync(join(root, f)) && statSync(join(root, f)).isFile());
const basenames = new Set(tracked.map((f) => basename(f)));
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { exports: Record<string, unknown> };
/** The `exports` keys, and the patterns they make (`./lifecycle/product` → `./lifecycle/*`). */
const EXPORT_KEYS = new Set(Object.keys(pkg.exports).flatMap((key) => [key, key.replace(/[^/]+$/, "*")]));
const ROOTS = ["provider/", "test/", "scripts/", "bench/", "examples/", "docs/", "simulator/", "plugin/", ".ci/"];

/** How a file's comments are written, by its kind; undefined: not a file whose text is scanned. */
function commentStyle(file: string): "markdown" | "slashes" | "hash" | undefined {
  const ext = extname(file);
  if (ext === ".md") return "markdown";
  if ([".ts", ".mts", ".mjs", ".js", ".go"].includes(ext)) return "slashes";
  if ([".sh", ".py", ".yaml", ".yml"].includes(ext)) return "hash";
  // No extension: a script (`.ci/run`, `plugin/pulumi-resource-serviceapi`) or a dotfile (`.gitignore`).
  if (ext === "" && !basename(file).includes(".", 1)) return readFileSync(join(root, file), "utf8").includes("\0") ? undefined : "hash";
  return undefined;
}

/** The prose of `file`: all of a Markdown file; otherwise its comment lines, the comment markers kept. */
function prose(file: string, text: string): string | undefined {
  const style = commentStyle(file);
  if (style === "markdown") return text;
  const comment = style === "slashes" ? /^\s*(\/\/|\*|\/\*)/ : style === "hash" ? /^\s*#(?!!)/ : undefined;
  if (comment === undefined) return undefined;
  return text
    .split("\n")
    .map((line) => (comment.test(line) ? line : ""))
    .join("\n");
}

/** Where `file` points at other files: repo paths and bare `*.ts` names in code spans, Markdown links. */
function references(file: string, text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(/`([^`\s]+)`/g)) found.add(match[1]!);
  if (file.endsWith(".md")) for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) found.add(match[1]!);
  // Plain mentions in comments: a path into the repository.
  for (const match of text.matchAll(/(?:^|[\s(])((?:provider|test|scripts|bench|examples|docs|simulator|plugin|\.ci)\/[\w./*-]+)/gm))
    found.add(match[1]!);
  return [...found].map((r) => r.replace(/[#?].*$/, "").replace(/[.,:;)]+$/, "")).filter((r) => r !== "");
}

/** A glob (`*` within a name, `**` across folders) as a regular expression over repository paths. */
function globRegex(glob: string): RegExp {
  const body = glob
    .split(/(\*\*\/|\*\*|\*)/)
    .map((part) =>
      part === "**/" ? "(?:.*/)?" : part === "**" ? ".*" : part === "*" ? "[^/]*" : part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"),
    )
    .join("");
  return new RegExp(`^${body}(?:/.*)?$`);
}

/** Whether `reference`, written in `file`, names something that exists (or is not a file reference at all). */
function resolves(file: string, reference: string): boolean {
  if (/^[a-z]+:/i.test(reference) || /[<>~$%{}|]/.test(reference)) return true; // a URL, or a placeholder
  if (reference.startsWith("@")) return true; // a scoped package (`@pulumi/pulumi/proto/*`)
  if (EXPORT_KEYS.has(reference)) return true; // a key of package.json's `exports` (`./lifecycle/*` in its prose)
  if (reference.startsWith("/") || reference.endsWith("-") || /^(dist|dist-plugin)\//.test(reference) || reference.endsWith(".tgz"))
    return true;
  if (reference.startsWith(".") && !reference.startsWith("./") && !reference.startsWith("../") && !reference.startsWith(".ci/"))
    return true; // ~/.pulumi/…
  if (!reference.includes("/")) return !/^[\w-]+\.(ts|mts)$/.test(reference) || basenames.has(reference);
  if (!/\.(ts|mts|md|json|sh|ya?ml|mjs)$/.test(reference) && !reference.endsWith("/") && !reference.includes("*")) {
    if (!ROOTS.some((r) => reference.startsWith(r))) return true; // not a file reference
  }
  const bases = [dirname(file), "", "provider"];
  if (reference.includes("*")) {
    // A glob names files: it must match at least one, read from where it is written, the root, or provider/.
    const patterns = bases.map((base) => globRegex(normalize(join(base, reference)).replace(/^\.\//, "")));
    return tracked.some((f) => patterns.some((p) => p.test(f)));
  }
  const exact = bases.map((base) => join(base, reference));
  if (exact.some((c) => existsSync(join(root, c)) || existsSync(join(root, `${c}.ts`)))) return true;
  // A path given within a folder's context (`engine/driver.ts` in a table row): some tracked file ends with it.
  const trimmed = reference.replace(/^(\.\.?\/)+/, "");
  return tracked.some((f) => f.endsWith(`/${trimmed}`) || (trimmed.endsWith("/") && f.includes(`/${trimmed}`)));
}

/**
 * The subpath new stacks' state requires for each module: when several `exports` keys map to one file,
 * Pulumi's closure serializer writes the last (docs/architecture.md). The others are kept for older stacks.
 */
const writtenFor = new Map(Object.entries(pkg.exports).map(([key, target]) => [JSON.stringify(target), key]));
const SUBPATHS = Object.entries(pkg.exports).map(([key, target]) => ({
  segments: key.replace(/^\.\//, "").split("/"),
  written: writtenFor.get(JSON.stringify(target))!.replace(/^\.\//, ""),
}));
/** Words by which a sentence says it speaks of a stack made before today's names. */
const OLDER_STACKS = /\b(old|older|before|earlier|kept)\b|restructure/i;

/**
 * The package subpaths `text` names as module specifiers (`require("pulumi-serviceapi/…")`, `from "…"`)
 * or as a code span of their own (`` `pulumi-serviceapi/dynamic/<type>` ``), each with the sentence it is in,
 * that are no export of package.json, or are the name kept for older stacks in a sentence that does not
 * say so. A segment written `…`, `*` or `<type>` stands for any.
 */
function staleSubpaths(text: string): string[] {
  const stale: string[] = [];
  // Comment markers out, so that a sentence running over several comment lines reads as one.
  const plain = text.replace(/^\s*(\/\/|\/\*\*?|\*\/?|#)/gm, " ").replace(/^\s*\|/gm, "\n\n|");
  const named = /(?:require\(|import\(|from |`)["']?pulumi-serviceapi\/([^"'`\s)]+)["']?(?:\)|`|;|$)/gm;
  for (const match of plain.matchAll(named)) {
    const segments = match[1]!.split("/");
    const wildcard = (s: string) => s === "…" || s === "*" || /^<\w+>$/.test(s);
    const exports = SUBPATHS.filter(
      (e) => e.segments.length === segments.length && segments.every((s, i) => wildcard(s) || s === e.segments[i]),
    );
    const start = Math.max(plain.lastIndexOf(". ", match.index), plain.lastIndexOf("\n\n", match.index), 0);
    const ends = [plain.indexOf(". ", match.index), plain.indexOf("\n\n", match.index)].filter((i) => i >= 0);
    const sentence = plain.slice(start, ends.length > 0 ? Math.min(...ends) : undefined);
    if (exports.length === 0) stale.push(`pulumi-serviceapi/${match[1]} is no export of package.json`);
    else if (exports.every((e) => e.written !== e.segments.join("/")) && !OLDER_STACKS.test(sentence))
      stale.push(
        `pulumi-serviceapi/${match[1]} is what stacks made before the restructure require; new stacks get ` +
          [...new Set(exports.map((e) => `pulumi-serviceapi/${e.written}`))].join(", ") +
          " (or say it is the older name)",
      );
  }
  return stale;
}

/** The files whose prose is checked: every tracked text file of a kind above, but the service's spec and generated code. */
const scanned = tracked
  .filter((f) => !f.startsWith("docs/service-api.md") && !f.startsWith("sdk/") && !f.startsWith("test/engine/fixtures/"))
  .flatMap((file) => {
    const text = prose(file, readFileSync(join(root, file), "utf8"));
    return text === undefined ? [] : [{ file, text }];
  });

describe("references to files", () => {
  it("reads every kind of file that has comments, extensionless scripts included", () => {
    const files = scanned.map((s) => s.file);
    for (const file of [".ci/run", "plugin/pulumi-resource-serviceapi", "scripts/install-self.sh", "eslint.config.mjs", "README.md"])
      expect(files).toContain(file);
    expect(files).not.toContain("package-lock.json");
  });

  it("in comments and docs all resolve", () => {
    const stale: string[] = [];
    for (const { file, text } of scanned) {
      for (const reference of references(file, text)) if (!resolves(file, reference)) stale.push(`${file}: ${reference}`);
      for (const problem of staleSubpaths(text)) stale.push(`${file}: ${problem}`);
    }
    expect(stale).toEqual([]);
  });

  it("is not vacuous: a reference to a file that does not exist is found", () => {
    expect(resolves("provider/client/client.ts", "provider/client/no-such-file.ts")).toBe(false);
    expect(resolves("docs/resources.md", "recovery.md")).toBe(true);
    expect(resolves("provider/client/client.ts", "service-omitted.ts")).toBe(false);
    expect(resolves("README.md", "docs/architecture.md")).toBe(true);
  });

  it("reads `*` as a glob that must match a file, not as a pattern to skip", () => {
    expect(resolves("provider/plugin/schema.ts", "lifecycle/*")).toBe(false);
    expect(resolves("provider/plugin/schema.ts", "resources/*")).toBe(true);
    expect(resolves("README.md", "test/**/*.test.ts")).toBe(true);
    expect(resolves("README.md", "test/**/*.spec.ts")).toBe(false);
    expect(resolves("docs/architecture.md", "provider/dynamic/*.ts")).toBe(true);
  });

  it("reads a shell script without an extension, and its comments only", () => {
    const text = prose(".ci/run", "#!/usr/bin/env bash\n# runs test/engine/no-such.test.ts\nnode test/engine/neither.test.ts\n")!;
    expect(references(".ci/run", text).filter((r) => !resolves(".ci/run", r))).toEqual(["test/engine/no-such.test.ts"]);
  });

  it("knows the package's subpaths: an export, and the name new stacks get unless the sentence speaks of older ones", () => {
    expect(staleSubpaths(' * serialized as `require("pulumi-serviceapi/dynamic/product")`, so state holds a stub.')).toEqual([]);
    expect(staleSubpaths(' * serialized as `require("pulumi-serviceapi/lifecycle/product")`, so state holds a stub.')).toEqual([
      "pulumi-serviceapi/lifecycle/product is what stacks made before the restructure require; new stacks get " +
        "pulumi-serviceapi/dynamic/product (or say it is the older name)",
    ]);
    expect(staleSubpaths('# the one-line `require("pulumi-serviceapi/lifecycle/…")` stub users get.')).toHaveLength(1);
    expect(staleSubpaths(" * Stacks made before the restructure say `pulumi-serviceapi/lifecycle/<type>`, kept forever.")).toEqual([]);
    expect(staleSubpaths(' * `require("pulumi-serviceapi/provider/product")`.')).toEqual([
      "pulumi-serviceapi/provider/product is no export of package.json",
    ]);
  });
});

describe("doc comments", () => {
  it("each sits on what it describes: none is followed at once by another", () => {
    const orphans: string[] = [];
    for (const file of tracked.filter((f) => /\.(ts|mts|mjs|js)$/.test(f) && !f.startsWith("sdk/"))) {
      const text = readFileSync(join(root, file), "utf8");
      for (const match of text.matchAll(/\/\*\*(?:(?!\*\/)[\s\S])*\*\/[ \t]*\n[ \t]*\/\*\*/g))
        orphans.push(`${file}:${text.slice(0, match.index).split("\n").length}`);
    }
    expect(orphans).toEqual([]);
  });
});
