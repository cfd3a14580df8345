/**
 * `import`'s files as a reviewer reads them (`provider/catalog/import.ts`), against the simulator over
 * HTTP: an import into a file that exists adds its entries after the ones already there — the
 * diff is the new lines, comments and order kept; a string a YAML 1.1 reader would take for a
 * boolean or a number is written quoted; a key keeps the letters of any script. The whole command,
 * killed and resumed, through the real CLI: test/engine/catalog-import.test.ts.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { parse } from "yaml";
import { readCatalog } from "../../provider/catalog/catalog";
import type { Discovery } from "../../provider/catalog/discover";
import { importProducts } from "../../provider/catalog/import";
import { DEFAULT_IDS } from "../../simulator/seed";
import { clientFor, simulator } from "../helpers";

/** A hand-kept file: comments, and entries in an order of the team's own (not sorted). */
const HAND_KEPT = [
  "# Plans the sales team keeps by hand.",
  "zeta:",
  "  project: Acme Web",
  "  title: Zeta # the newest",
  "alpha:",
  "  project: Acme Web",
  "  title: Alpha",
  "",
].join("\n");

describe("import into the catalog's files", () => {
  it("adds after the entries there (the diff is the new lines), quotes what YAML 1.1 misreads, keeps letters of any script in keys", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim);
    onTestFinished(() => client.close());
    const made = [
      await client.createProduct({ projectId: DEFAULT_IDS.acmeWeb, title: "Δelta Straße", description: "yes" }),
      await client.createProduct({ projectId: DEFAULT_IDS.acmeWeb, title: "On call", slug: "on", description: "12:30" }),
    ];
    const dir = mkdtempSync(join(tmpdir(), "catalog-import-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const catalogDir = join(dir, "catalog");
    mkdirSync(catalogDir);
    writeFileSync(join(catalogDir, "acme-web.yaml"), HAND_KEPT);
    const discovery: Discovery = {
      catalog: readCatalog(catalogDir),
      project: "serviceapi-catalog",
      backend: { url: "file:///b", via: "file", seesLocks: true },
      stacks: new Map(),
      elsewhere: new Map(),
    };

    const said: string[] = [];
    const result = await importProducts(
      made.map((p, i) => ({ at: `line ${i + 2}`, id: p.id, project: "Acme Web" })),
      discovery,
      { catalogDir, workDir: join(dir, "work"), keyFrom: "slug", parallel: 2, settings: { baseUrl: sim.url, token: sim.token } },
      { err: (line) => said.push(line) },
    );
    // Where it is, as it starts (no terminal: a plain line, then one every 10 s): the reads, no stacks.
    expect(said).toEqual(["import: 0/2 records, 0.0 requests/s, 0 refused, time left not known yet"]);

    expect(result.written).toEqual(new Map([["acme-web.yaml", ["on", "δelta-straße"]]]));
    const text = readFileSync(join(catalogDir, "acme-web.yaml"), "utf8");
    // The file as it was, then the new entries (sorted among themselves), nothing else moved.
    expect(text.startsWith(HAND_KEPT)).toBe(true);
    expect(text.slice(HAND_KEPT.length).split("\n")).toEqual([
      // A key too: `on:` is `true:` to a YAML 1.1 reader.
      '"on":',
      "  project: Acme Web",
      "  title: On call",
      '  description: "12:30"',
      '  slug: "on"',
      "  status: draft",
      `  adoptId: ${made[1]!.id}`,
      "δelta-straße:",
      "  project: Acme Web",
      "  title: Δelta Straße",
      '  description: "yes"',
      "  status: draft",
      `  adoptId: ${made[0]!.id}`,
      "",
    ]);
    // A YAML 1.1 reader and this tool read the same strings.
    const parsed = parse(text, { version: "1.1" }) as Record<string, Record<string, unknown>>;
    expect(parsed["δelta-straße"]!.description).toBe("yes");
    expect(parsed.on!.slug).toBe("on");
    expect(parsed.on!.description).toBe("12:30");
    // And the tool reads its own file back as a catalog.
    expect([...readCatalog(catalogDir).keys()]).toEqual(["zeta", "alpha", "on", "δelta-straße"]);
  });
});
