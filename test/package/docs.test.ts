/**
 * The reference in docs/resources.md states the same limits and defaults as the code, so the two
 * cannot drift apart silently.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LIMITS, NUMERIC_OPTIONS } from "../../provider";
import { SETTINGS } from "../../provider/resources/settings";

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
