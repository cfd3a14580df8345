/**
 * The drift recipe in docs/gitops.md ("Make drift by hand") works as written: its curl command,
 * run by bash against a simulator, changes the product's title and nothing else.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_IDS } from "../../simulator/seed";
import { clientFor, simulator } from "../helpers";
import { REPO } from "../../scripts/engine/driver";

/** The shell lines of the recipe's block up to the `pulumi` command (the part that makes the drift). */
function recipe(): string {
  const doc = readFileSync(join(REPO, "docs", "gitops.md"), "utf8");
  const section = doc.slice(doc.indexOf("### Make drift by hand"));
  const block = /```bash\n([\s\S]*?)```/.exec(section)![1]!;
  return block.slice(0, block.indexOf("pulumi preview"));
}

describe("docs/gitops.md: make drift by hand", () => {
  it("the curl command sends one PATCH of title, and the product shows it", async () => {
    const sim = await simulator();
    const { client } = clientFor(sim);
    const product = await client.createProduct({ title: "Pro plan", projectId: DEFAULT_IDS.acmeWeb, slug: "pro" });
    sim.clearRequests();

    // Asynchronously: the simulator answers from this process.
    const { stdout: out } = await promisify(execFile)("bash", ["-euo", "pipefail", "-c", recipe()], {
      env: { ...process.env, SERVICEAPI_BASE_URL: sim.url, SERVICEAPI_TOKEN: sim.token, PRODUCT_ID: product.id },
      encoding: "utf8",
    });
    expect(JSON.parse(out)).toMatchObject({ id: product.id, title: "Changed in the UI", slug: "pro" });
    expect(sim.requests().map((r) => [r.method, r.path, r.body])).toEqual([
      ["PATCH", `/api/v1/public/products/${product.id}`, { title: "Changed in the UI" }],
    ]);
  });
});
