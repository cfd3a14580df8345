/**
 * Every file the code's comments and the docs refer to exists: paths into this repository
 * (`provider/resources/product.ts`, `docs/recovery.md#…`, a Markdown link) and bare module names (such
 * as `transport.ts`). A renamed or removed file leaves no stale pointer behind.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(__dirname, "..", "..");
const tracked = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], { cwd: root, encoding: "utf8" })
  .split("\n")
  .filter((f) => f !== "" && existsSync(join(root, f)));
const basenames = new Set(tracked.map((f) => basename(f)));
const ROOTS = ["provider/", "test/", "scripts/", "bench/", "examples/", "docs/", "simulator/", "plugin/", ".ci/"];

/** Where `file` points at other files: repo paths and bare `*.ts` names in code spans, Markdown links. */
function references(file: string, text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(/`([^`\s]+)`/g)) found.add(match[1]!);
  if (file.endsWith(".md")) for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) found.add(match[1]!);
  // Plain mentions in comments: a path into the repository.
  for (const match of text.matchAll(/(?:^|[\s(])((?:provider|test|scripts|bench|examples|docs|simulator|plugin)\/[\w./-]+)/gm))
    found.add(match[1]!);
  return [...found].map((r) => r.replace(/[#?].*$/, "").replace(/[.,:;)]+$/, "")).filter((r) => r !== "");
}

/** Whether `reference`, written in `file`, names something that exists (or is not a file reference at all). */
function resolves(file: string, reference: string): boolean {
  if (/^[a-z]+:/i.test(reference) || /[<>*~$%{}|]/.test(reference)) return true; // a URL, or a pattern
  if (reference.startsWith("/") || reference.endsWith("-") || /^(dist|dist-plugin)\//.test(reference) || reference.endsWith(".tgz"))
    return true;
  if (reference.startsWith(".") && !reference.startsWith("./") && !reference.startsWith("../") && !reference.startsWith(".ci/"))
    return true; // ~/.pulumi/…
  if (!reference.includes("/")) return !/^[\w-]+\.(ts|mts)$/.test(reference) || basenames.has(reference);
  if (!/\.(ts|mts|md|json|sh|ya?ml|mjs)$/.test(reference) && !reference.endsWith("/")) {
    if (!ROOTS.some((r) => reference.startsWith(r))) return true; // not a file reference
  }
  const exact = [join(dirname(file), reference), reference, `provider/${reference}`];
  if (exact.some((c) => existsSync(join(root, c)) || existsSync(join(root, `${c}.ts`)))) return true;
  // A path given within a folder's context (`engine/driver.ts` in the scripts row): some tracked file ends with it.
  const trimmed = reference.replace(/^(\.\.?\/)+/, "");
  return tracked.some((f) => f.endsWith(`/${trimmed}`) || (trimmed.endsWith("/") && f.includes(`/${trimmed}`)));
}

describe("references to files", () => {
  it("in comments and docs all resolve", () => {
    const stale: string[] = [];
    for (const file of tracked.filter((f) => /\.(ts|mts|md)$/.test(f) && !f.startsWith("docs/service-api.md"))) {
      const text = readFileSync(join(root, file), "utf8");
      const scanned = file.endsWith(".md")
        ? text
        : text
            .split("\n")
            .filter((l) => /^\s*(\/\/|\*|\/\*\*)/.test(l))
            .join("\n");
      for (const reference of references(file, scanned)) if (!resolves(file, reference)) stale.push(`${file}: ${reference}`);
    }
    expect(stale).toEqual([]);
  });

  it("is not vacuous: a reference to a file that does not exist is found", () => {
    expect(resolves("provider/resources/product.ts", "provider/resources/no-such-file.ts")).toBe(false);
    expect(resolves("docs/resources.md", "recovery.md")).toBe(true);
    expect(resolves("provider/resources/product.ts", "service-omitted.ts")).toBe(false);
    expect(resolves("README.md", "docs/architecture.md")).toBe(true);
  });
});
