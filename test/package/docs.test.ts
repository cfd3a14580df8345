/**
 * The reference in docs/resources.md states the same limits and defaults as the code, so the two
 * cannot drift apart silently.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LIMITS, NUMERIC_OPTIONS } from "../../src";

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
    const keys = [
      "timeoutMs", "maxRetries", "initialRetryDelayMs", "maxRetryDelayMs", "maxRetryAfterMs", "rateLimitBudgetMs",
      "maxRateLimitRetries", "minRateLimitDelayMs",
    ] as const;
    for (const key of keys.slice(1)) expect(line).toContain(`\`${key}\``);
    expect(line).toContain(`| ${keys.map((k) => NUMERIC_OPTIONS[k].default).join(", ")} |`);
  });

  it("states the API's limits as the schemas enforce them", () => {
    expect(row("`title`")).toContain(`${LIMITS.productTitle.min} to ${LIMITS.productTitle.max} characters`);
    expect(row("`slug`")).toContain(`${LIMITS.productSlug.min} to ${LIMITS.productSlug.max} characters`);
    expect(row("`description`")).toContain(`up to ${LIMITS.productDescription.max} characters`);
    expect(row("`name`")).toContain(`${LIMITS.siteName.min} to ${LIMITS.siteName.max} characters`);
  });
});
