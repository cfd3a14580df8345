/**
 * The SDKs under sdk/ are what the generator makes of the plugin's schema today: a fresh
 * generation (scripts/gen-sdk.sh, the Pulumi CLI's own code generators pinned in scripts/sdkgen)
 * into a temporary folder is identical, file for file and byte for byte. A change to a field table,
 * a description or a limit that is not followed by `npm run gen-sdk` fails here, naming the files.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO } from "../../scripts/engine/driver";
import { LIMITS } from "../../provider/contract/schemas";

/** Every file under `dir`, as paths relative to it, sorted. */
function files(dir: string, skip: (path: string) => boolean = () => false): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (skip(relative(dir, path))) continue;
      if (entry.isDirectory()) walk(path);
      else out.push(relative(dir, path));
    }
  };
  walk(dir);
  return out.sort();
}

describe("sdk/ is a fresh generation from the plugin's schema", { timeout: 15 * 60_000 }, () => {
  const fresh = mkdtempSync(join(tmpdir(), "serviceapi-sdk-"));
  afterAll(() => rmSync(fresh, { recursive: true, force: true }));

  it("nodejs, go and python: the same files with the same bytes", () => {
    execFileSync("bash", [join(REPO, "scripts", "gen-sdk.sh"), fresh], { cwd: REPO, stdio: ["ignore", "ignore", "pipe"] });
    // Not generated: the Go module files, and the Node.js SDK's build output (gitignored).
    const handWritten = (path: string) => ["go.mod", "go.sum", join("nodejs", "bin")].includes(path);
    const committed = files(join(REPO, "sdk"), handWritten);
    expect(files(fresh)).toEqual(committed);
    const differing = committed.filter((f) => !readFileSync(join(fresh, f)).equals(readFileSync(join(REPO, "sdk", f))));
    expect(differing, "regenerate with `npm run gen-sdk`").toEqual([]);
    // The three languages, each with its resources and functions.
    for (const file of ["nodejs/product.ts", "nodejs/getSites.ts", "go/serviceapi/product.go", "python/pulumi_serviceapi/task.py"])
      expect(committed).toContain(file);
  });

  it("every SDK documents the limits and replacements the checks enforce", () => {
    const title = `The title: ${LIMITS.productTitle.min} to ${LIMITS.productTitle.max} characters.`;
    for (const file of ["nodejs/product.ts", "go/serviceapi/product.go", "python/pulumi_serviceapi/product.py"]) {
      const text = readFileSync(join(REPO, "sdk", file), "utf8");
      expect([file, text.includes(title)]).toEqual([file, true]);
      expect([file, text.includes("The project the product belongs to (a UUID). Changing it replaces the Product.")]).toEqual([file, true]);
    }
  });
});
