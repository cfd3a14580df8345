/**
 * The package's own Node.js check (the first module its entry points load) and the plugin's
 * launcher draw the line at the same version, the one package.json's `engines` names; and the
 * documentation a message points at exists in the repository and in what npm packs.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MIN_NODE, nodeAtLeast } from "../../provider/node-version";
import { docsLink } from "../../provider/resources/docs-link";
import pkg from "../../package.json";

describe("the Node.js check", () => {
  it("reads its minimum from package.json's engines", () => {
    expect(pkg.engines.node).toBe(">=22.19.0");
    expect(MIN_NODE).toBe("22.19");
  });

  it.each(["v22.19.0", "22.19.1", "v22.20.0", "v23.0.0", "v24.21.0", "v30.1.2"])("accepts %s", (version) => {
    expect(nodeAtLeast(version, MIN_NODE)).toBe(true);
  });

  it.each(["v22.18.1", "v22.9.0", "v20.20.2", "v18.20.0", "v9.99.99"])("refuses %s", (version) => {
    expect(nodeAtLeast(version, MIN_NODE)).toBe(false);
  });
});

describe("links in messages", () => {
  it("name a page that exists and is packed, with the repository URL from package.json", () => {
    const text = docsLink("recovery.md");
    expect(text).toBe(
      "docs/recovery.md (https://github.com/pulumi-serviceapi/pulumi-serviceapi/blob/main/docs/recovery.md; " +
        "also in node_modules/pulumi-serviceapi/docs/)",
    );
    expect(existsSync(join(__dirname, "..", "..", "docs", "recovery.md"))).toBe(true);
    expect(pkg.files).toContain("docs/");
  });
});
