/**
 * The reference in docs/resources.md states the same limits and defaults as the code, so the two
 * cannot drift apart silently; and every link between the Markdown pages lands on a heading that
 * exists, so moving a section (README → docs/troubleshooting.md, say) leaves no dead anchor behind.
 * The Markdown the simulator's package ships opens where it is installed too, without the repository.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";
import { LIMITS, NUMERIC_OPTIONS } from "../../provider";
import { SETTINGS } from "../../provider/resources/settings";
import { repository } from "../../package.json";

const doc = readFileSync(join(__dirname, "..", "..", "docs", "resources.md"), "utf8");

function row(firstCell: string): string {
  const line = doc.split("\n").find((l) => l.startsWith(`| ${firstCell} |`));
  if (!line) throw new Error(`docs/resources.md has no table row for ${firstCell}`);
  return line;
}

describe("docs/resources.md", () => {
  it("lists every numeric setting with its default and range", () => {
    for (const [key, spec] of Object.entries(NUMERIC_OPTIONS)) {
      if (key === "maxResponseBytes") continue; // a client option, not a stack setting
      const line = row(`\`serviceapi:${key}\``);
      expect(line).toContain(`| ${spec.default} |`);
      expect(line).toContain(`${spec.min.toLocaleString("en-US")} to ${spec.max.toLocaleString("en-US")}`);
    }
  });

  it("the README's configuration table gives the same defaults", () => {
    const readme = readFileSync(join(__dirname, "..", "..", "README.md"), "utf8");
    const line = readme.split("\n").find((l) => l.startsWith("| `serviceapi:timeoutMs`"))!;
    // The numeric settings, in the order of the one settings table.
    const keys = Object.keys(SETTINGS).filter((key): key is keyof typeof NUMERIC_OPTIONS => key in NUMERIC_OPTIONS);
    for (const key of keys.slice(1)) expect(line).toContain(`\`${key}\``);
    expect(line).toContain(`| ${keys.map((k) => NUMERIC_OPTIONS[k].default).join(", ")} |`);
  });

  it("states the API's limits as the schemas enforce them", () => {
    expect(row("`title`")).toContain(`${LIMITS.productTitle.min} to ${LIMITS.productTitle.max} characters`);
    expect(row("`slug`")).toContain(`${LIMITS.productSlug.min} to ${LIMITS.productSlug.max} characters`);
    expect(row("`description`")).toContain(`up to ${LIMITS.productDescription.max} characters`);
    expect(row("`name`")).toContain(`${LIMITS.siteName.min} to ${LIMITS.siteName.max} characters`);
  });

  it("both configuration tables list every setting of the one table the plugin schema is made from, with its environment variable, and no other", () => {
    const readme = readFileSync(join(__dirname, "..", "..", "README.md"), "utf8");
    const keysIn = (text: string, heading: string) => {
      const section = text.slice(text.indexOf(heading));
      const table = section.slice(section.indexOf("| Key |"), section.indexOf("\n\n", section.indexOf("| Key |")));
      // The first cell of each row: `serviceapi:key`, or (README's grouped row) several `key`s.
      const firstCells = table
        .split("\n")
        .slice(2)
        .map((row) => row.split("|")[1] ?? "");
      return new Set(firstCells.flatMap((cell) => [...cell.matchAll(/`(?:serviceapi:)?(\w+)`/g)].map((m) => m[1]!)));
    };
    for (const [where, keys, text] of [
      ["README.md", keysIn(readme, "Configuration (stack config first"), readme],
      ["docs/resources.md", keysIn(doc, "## Configuration"), doc],
    ] as const) {
      expect([...keys].sort(), where).toEqual(Object.keys(SETTINGS).sort());
      for (const [key, setting] of Object.entries(SETTINGS)) {
        if (setting.env === undefined) continue;
        const line = text.split("\n").find((l) => l.startsWith(`| \`serviceapi:${key}\``))!;
        expect(line, `${where}: serviceapi:${key}`).toContain(`\`${setting.env}\``);
      }
    }
  });
});

const ROOT = join(__dirname, "..", "..");
/** The pages a reader follows links between (sdk/ is generated: its links are the generator's). */
const PAGES = [
  "README.md",
  "CONTRIBUTING.md",
  "simulator/README.md",
  "provider/client/internal/README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** Markdown outside fenced code blocks: a `# comment` in a shell block is not a heading. */
function prose(markdown: string): string[] {
  let fenced = false;
  return markdown.split("\n").filter((line) => {
    if (/^\s*```/.test(line)) fenced = !fenced;
    return !fenced && !/^\s*```/.test(line);
  });
}

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of prose(markdown)) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = heading
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    out.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return out;
}

/** Links of `page` whose file or anchor does not exist, as `page: target`. */
function deadLinks(page: string, markdown: string): string[] {
  const dead: string[] = [];
  for (const line of prose(markdown))
    for (const [, target] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target!)) continue; // https:, mailto:
      const [path, anchor] = target!.split("#") as [string, string | undefined];
      const file = path === "" ? page : normalize(join(dirname(page), path));
      if (!existsSync(join(ROOT, file))) dead.push(`${page}: ${target} (no file ${file})`);
      else if (anchor !== undefined && file.endsWith(".md") && !anchors(readFileSync(join(ROOT, file), "utf8")).has(anchor))
        dead.push(`${page}: ${target} (no heading #${anchor} in ${file})`);
    }
  return dead;
}

describe("links between the Markdown pages", () => {
  it("land on a file that exists and, with an anchor, on a heading of it", () => {
    const dead = PAGES.flatMap((page) => deadLinks(page, readFileSync(join(ROOT, page), "utf8")));
    expect(dead).toEqual([]);
  });

  it("are checked, anchors included: a moved section is found, GitHub's anchors are computed as GitHub does", () => {
    expect(
      anchors('# A create whose answer was lost ("re-run failed job")\n## Why `pulumi refresh` fails\n## Why `pulumi refresh` fails'),
    ).toEqual(new Set(["a-create-whose-answer-was-lost-re-run-failed-job", "why-pulumi-refresh-fails", "why-pulumi-refresh-fails-1"]));
    expect(anchors("```sh\n# not a heading\n```\n")).toEqual(new Set());
    expect(deadLinks("README.md", "[gone](#troubleshooting) [moved](docs/troubleshooting.md) [no file](docs/nowhere.md)")).toEqual([
      "README.md: #troubleshooting (no heading #troubleshooting in README.md)",
      "README.md: docs/nowhere.md (no file docs/nowhere.md)",
    ]);
    expect(deadLinks("docs/sdks.md", "[README](../README.md#install-the-plugin)")).toEqual([
      "docs/sdks.md: ../README.md#install-the-plugin (no heading #install-the-plugin in README.md)",
    ]);
  });
});

/** This repository on GitHub, from package.json's `repository`: `https://github.com/<owner>/<name>`. */
const REPOSITORY = repository.url.replace(/^git\+/, "").replace(/\.git$/, "");
/** The repository's files, as GitHub will have them: those git tracks, or would (not the ignored). */
const TRACKED = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], { cwd: ROOT, encoding: "utf8" })
  .split("\n")
  .filter((f) => f !== "");

/** Whether `files` holds `path`: the file itself, or a folder with something in it. */
function holds(files: readonly string[], path: string): boolean {
  return files.includes(path) || files.some((f) => f.startsWith(`${path.replace(/\/$/, "")}/`));
}

/**
 * Links of `page`, a Markdown file of a package that ships `packed` (the paths `npm pack` lists), that
 * open either not where the package is installed or not on GitHub, as `page: target`: a relative link
 * must land on what the package holds (the repository's other files are not installed with it), an
 * anchor on a heading of the page, and a link into this repository (`<repository>/blob/main/<file>`,
 * `…/tree/main/<folder>`) on a file or folder of it. Other addresses are the web's, not checked.
 */
function linksOutsidePackage(page: string, markdown: string, packed: readonly string[]): string[] {
  const dead: string[] = [];
  for (const line of prose(markdown))
    for (const [, target] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      const [path, anchor] = target!.split("#") as [string, string | undefined];
      const inRepository = path.startsWith(`${REPOSITORY}/`) ? path.slice(REPOSITORY.length + 1) : "";
      const [, kind, file = ""] = /^(blob|tree)\/main\/(.+)$/.exec(inRepository) ?? [];
      if (path === "") {
        if (!anchors(markdown).has(anchor!)) dead.push(`${page}: ${target} (no heading #${anchor} in ${page})`);
      } else if (kind !== undefined) {
        if (kind === "blob" ? !TRACKED.includes(file) : !holds(TRACKED, file))
          dead.push(`${page}: ${target} (no ${file} in the repository)`);
      } else if (!/^[a-z]+:/i.test(path)) {
        const inPackage = normalize(join(dirname(page), path));
        if (!holds(packed, inPackage)) dead.push(`${page}: ${target} (${inPackage} is not in the package)`);
      }
    }
  return dead;
}

describe("links in the Markdown a package ships", () => {
  /** The paths `npm pack` puts in the simulator's package: a dry run, which writes nothing (dist/ as it is now, or absent). */
  function simulatorPacked(): string[] {
    const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts", "-w", "pulumi-serviceapi-simulator"], {
      cwd: ROOT,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
    const [info] = JSON.parse(out) as { files: { path: string }[] }[];
    return info!.files.map((f) => f.path);
  }

  it("open from the simulator's installed package as on GitHub: it ships its README, none of the repository's docs", () => {
    const packed = simulatorPacked();
    const pages = packed.filter((f) => f.endsWith(".md"));
    expect(pages).toContain("README.md");
    const dead = pages.flatMap((page) => linksOutsidePackage(page, readFileSync(join(ROOT, "simulator", page), "utf8"), packed));
    expect(dead).toEqual([]);
  });

  it("are checked: a link to what the package leaves out, to no file of the repository, or to no heading is found", () => {
    const readme = [
      "## Run it",
      "[spec](../docs/service-api.md), [options](index.ts), [built](dist/simulator/index.js), [folder](dist/)",
      `[spec](${REPOSITORY}/blob/main/docs/service-api.md), [gone](${REPOSITORY}/blob/main/docs/no-such.md)`,
      `[source](${REPOSITORY}/tree/main/simulator), [issues](${REPOSITORY}/issues), [node](https://nodejs.org/)`,
      "[up](#run-it), [nowhere](#no-such-heading)",
    ].join("\n");
    expect(linksOutsidePackage("README.md", readme, ["README.md", "dist/simulator/index.js"])).toEqual([
      "README.md: ../docs/service-api.md (../docs/service-api.md is not in the package)",
      "README.md: index.ts (index.ts is not in the package)",
      `README.md: ${REPOSITORY}/blob/main/docs/no-such.md (no docs/no-such.md in the repository)`,
      "README.md: #no-such-heading (no heading #no-such-heading in README.md)",
    ]);
  });
});
