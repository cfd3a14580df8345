/**
 * What the adoption check costs (docs/resources.md, "Two stacks, one product"): the time one provider
 * process takes to read the other stacks of its backend (provider/resources/product/other-stacks.ts)
 * for N stacks of M products each — a file:// backend and a postgres:// one read directly, and the
 * same file backend through the CLI (`pulumi stack export` per stack, as an S3, GCS, Azure or Pulumi
 * Cloud backend is read). One stack of M products is made by the real CLI against the simulator;
 * the others are copies of its checkpoint under other names (the product ids repeat, which changes
 * nothing the read does). Printed, never asserted.
 *
 *   node dist/bench/other-stacks.js [--stacks 10,100] [--products 50,500] [--cli-stacks 10] [--postgres-stacks 10,100] [--postgres-products 500]
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Client } from "pg";
import { DEFAULT_IDS, startSimulator } from "pulumi-serviceapi-simulator";
import { readOtherStacks, type OtherStacks } from "../provider/resources/product/other-stacks";
import { EngineStack, REPO, catalog, pulumiCli } from "../scripts/engine/driver";

const list = (text: string) => (text === "" ? [] : text.split(",").map(Number));

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      stacks: { type: "string", default: "10,100" },
      products: { type: "string", default: "50,500" },
      "cli-stacks": { type: "string", default: "10" },
      "postgres-stacks": { type: "string", default: "10,100" },
      "postgres-products": { type: "string", default: "500" },
    },
  });
  const stackCounts = list(values.stacks);
  const productCounts = list(values.products);
  const largest = Math.max(...productCounts, ...list(values["postgres-products"]));
  const { bin } = await pulumiCli();
  const sim = await startSimulator({ port: 0 });
  const work = mkdtempSync(join(tmpdir(), "bench-other-stacks-"));
  try {
    // One real stack of the largest size; its checkpoint, cut to M products, is every other stack.
    const source = await EngineStack.create(sim, { project: "catalog", stack: "source" });
    await source.setSpec(catalog(DEFAULT_IDS.acmeWeb, largest, "P"));
    await source.up();
    const checkpoint = JSON.parse(source.stateFileText()) as { checkpoint: { latest: { resources: { type: string }[] } } };
    const meta = readFileSync(join(source.env.PULUMI_BACKEND_URL!.replace(/^file:\/\//, ""), ".pulumi", "meta.yaml"));
    await source.dispose();
    const cut = (products: number, stack: string) => {
      const copy = structuredClone(checkpoint);
      let kept = 0;
      copy.checkpoint.latest.resources = copy.checkpoint.latest.resources.filter(
        (r) => !r.type.endsWith("serviceapi:Product") || kept++ < products,
      );
      return JSON.stringify(copy).replaceAll("urn:pulumi:source::", `urn:pulumi:${stack}::`);
    };
    const own = { organization: "organization", project: "team2", stack: "dev" };

    console.log("The adoption check's read of the other stacks, one provider process (ms; the median of 3)");
    const time = async (read: () => Promise<OtherStacks>) => {
      const runs: number[] = [];
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        const result = await read();
        runs.push(performance.now() - started);
        if (!result.readable) throw new Error(`the read failed: ${result.why}`);
      }
      return Math.round(runs.sort((a, b) => a - b)[1]!);
    };

    for (const products of productCounts) {
      for (const stacks of stackCounts) {
        const dir = join(work, `file-${stacks}-${products}`);
        mkdirSync(join(dir, ".pulumi", "stacks", "catalog"), { recursive: true });
        writeFileSync(join(dir, ".pulumi", "meta.yaml"), meta);
        for (let i = 0; i < stacks; i++) writeFileSync(join(dir, ".pulumi", "stacks", "catalog", `s${i}.json`), cut(products, `s${i}`));
        const env = { ...process.env, PULUMI_BACKEND_URL: `file://${dir}` };
        const ms = await time(() => readOtherStacks(own, env, dir));
        console.log(`  file://, direct     N = ${stacks} stacks × M = ${products} products: ${ms} ms`);
        if (list(values["cli-stacks"]).includes(stacks) && products === largest) {
          const cliEnv = { ...env, PATH: `${bin}:${process.env.PATH}`, PULUMI_HOME: join(work, "home"), PULUMI_CONFIG_PASSPHRASE: "bench" };
          const cli = await time(() => readOtherStacks(own, cliEnv, dir, "cli"));
          console.log(`  file://, via the CLI N = ${stacks} stacks × M = ${products} products: ${cli} ms (pulumi stack export per stack)`);
        }
        rmSync(dir, { recursive: true, force: true });
      }
    }

    const postgresStacks = list(values["postgres-stacks"]);
    if (postgresStacks.length > 0) {
      const dir = mkdtempSync("/tmp/bench-other-stacks-pg-");
      const url = execFileSync("bash", [join(REPO, "scripts", "postgres.sh"), "start", dir], { encoding: "utf8" }).trim();
      try {
        const client = new Client({ connectionString: url });
        await client.connect();
        for (const products of list(values["postgres-products"])) {
          for (const stacks of postgresStacks) {
            const table = `bench_${stacks}_${products}`;
            await client.query(`CREATE TABLE ${table} (key TEXT PRIMARY KEY, data JSON, updated_at TIMESTAMPTZ)`);
            // Pulumi's rows: the database name and a slash before each key, the blob base64 in {"data": …}.
            const row = (key: string, blob: Buffer) =>
              client.query(`INSERT INTO ${table} VALUES ($1, $2, now())`, [
                `pulumi/${key}`,
                JSON.stringify({ data: blob.toString("base64") }),
              ]);
            await row(".pulumi/meta.yaml", meta);
            for (let i = 0; i < stacks; i++) await row(`.pulumi/stacks/catalog/s${i}.json`, Buffer.from(cut(products, `s${i}`)));
            const env = { ...process.env, PULUMI_BACKEND_URL: `${url}&table=${table}` };
            const ms = await time(() => readOtherStacks(own, env, work));
            console.log(`  postgres://, direct N = ${stacks} stacks × M = ${products} products: ${ms} ms`);
          }
        }
        await client.end();
      } finally {
        execFileSync("bash", [join(REPO, "scripts", "postgres.sh"), "stop", dir], { stdio: "ignore" });
      }
    }
  } finally {
    await sim.close();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
