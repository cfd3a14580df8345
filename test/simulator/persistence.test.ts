import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { build } from "esbuild";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ServiceApiClient } from "../../provider/client";
import { DEFAULT_IDS, DEFAULT_TOKEN, seedId } from "pulumi-serviceapi-simulator";
import { simulator, until } from "../helpers";

const children: ChildProcess[] = [];
const scratch = mkdtempSync(join(tmpdir(), "sim-cli-"));
/**
 * The `serviceapi-simulator` command built from the source under test, in one file (esbuild, well
 * under a second), so these tests need no `npm run build` first and never run a stale dist/.
 * What npm installs — dist/simulator/cli.js as the package's `bin` — is test/package/packaging.test.ts's.
 */
const CLI = join(scratch, "cli.js");

beforeAll(async () => {
  await build({
    entryPoints: [resolve(__dirname, "../../simulator/cli.ts")],
    outfile: CLI,
    bundle: true,
    platform: "node",
    format: "cjs",
    logLevel: "error",
  });
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

/** Starts `serviceapi-simulator` as its own process and resolves once it prints its URL. */
function startCli(args: string[]): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = spawn(process.execPath, [CLI, "--port", "0", ...args], { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let out = "";
  return new Promise((resolvePromise, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)[\s\S]*storage: /.exec(out);
      if (match) resolvePromise({ child, url: match[1]!, output: () => out });
    });
    child.stderr!.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.on("exit", (code) => reject(new Error(`simulator exited with ${code}: ${out}`)));
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  const done = child.exitCode !== null || child.signalCode !== null;
  return new Promise((r) => (done ? r(child.exitCode) : child.on("exit", (code) => r(code))));
}

describe("serviceapi-simulator command and --data persistence", () => {
  it("prints the base URL and token, and keeps writes across a clean restart", async () => {
    const data = join(mkdtempSync(join(tmpdir(), "sim-data-")), "state.sqlite");
    const first = await startCli(["--data", data]);
    expect(first.output()).toContain(`SERVICEAPI_BASE_URL=${first.url}`);
    expect(first.output()).toContain(`SERVICEAPI_TOKEN=${DEFAULT_TOKEN}`);
    const client = new ServiceApiClient({ baseUrl: first.url, token: DEFAULT_TOKEN });
    const product = await client.createProduct({ title: "Kept", projectId: DEFAULT_IDS.acmeWeb, slug: "kept" });
    const siteId = seedId("site:acme-docs:002");
    await client.updateSite(siteId, { name: "Renamed before restart" });
    await client.close();
    first.child.kill("SIGINT");
    expect(await exited(first.child)).toBe(0);
    expect(first.output()).toContain("serviceapi-simulator stopped (SIGINT)");

    const second = await startCli(["--data", data]);
    const again = new ServiceApiClient({ baseUrl: second.url, token: DEFAULT_TOKEN });
    expect(await again.updateProduct(product.id, {})).toEqual(product);
    const sites = await again.listSites({ projectId: DEFAULT_IDS.acmeDocs }).toArray();
    expect(sites.map((s) => s.name)).toEqual(["Acme Docs 001", "Renamed before restart", "Acme Docs 003"]);
    await again.close();
    second.child.kill("SIGTERM");
    expect(await exited(second.child)).toBe(0);
  });

  it("loses no acknowledged write and leaves a sound file when killed mid-write (SIGKILL)", async () => {
    const data = join(mkdtempSync(join(tmpdir(), "sim-data-")), "state.sqlite");
    const { child, url } = await startCli(["--data", data]);
    const client = new ServiceApiClient({ baseUrl: url, token: DEFAULT_TOKEN, maxRetries: 0 });
    const acknowledged: string[] = [];
    let failure: unknown;
    const writer = (async () => {
      for (let i = 0; i < 10_000; i++) {
        try {
          acknowledged.push((await client.createProduct({ title: `p${i}`, projectId: DEFAULT_IDS.acmeWeb })).id);
        } catch (err) {
          failure = err;
          return;
        }
      }
    })();
    await until("50 acknowledged writes", () => acknowledged.length >= 50 || failure !== undefined);
    expect(failure).toBeUndefined();
    child.kill("SIGKILL");
    await writer;
    await exited(child);
    await client.close();

    const db = new DatabaseSync(data);
    expect(db.prepare("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    const stored = new Set((db.prepare("SELECT id FROM products").all() as { id: string }[]).map((r) => r.id));
    db.close();
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    // At most one write was in flight when the process died.
    expect(stored.size - acknowledged.length).toBeLessThanOrEqual(1);

    const reopened = await simulator({ dataFile: data });
    expect(reopened.counts().products).toBe(stored.size);
  });

  it("refuses bad arguments with usage", async () => {
    const child = spawn(process.execPath, [CLI, "--port", "http"], { stdio: ["ignore", "pipe", "pipe"] });
    let err = "";
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    expect(await exited(child)).toBe(2);
    expect(err).toContain("--port must be an integer from 0 to 65535 (got http)");
  });

  it("refuses a --token the client would refuse, before listening", async () => {
    const child = spawn(process.execPath, [CLI, "--port", "0", "--token", "tok-a"], { stdio: ["ignore", "pipe", "pipe"] });
    let err = "";
    let out = "";
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    expect(await exited(child)).toBe(2);
    expect(err).toBe(
      "serviceapi-simulator: --token must be at least 8 printable ASCII characters without spaces (got 5 characters): " +
        "the client, and so the Pulumi resources, refuse shorter tokens\n",
    );
    expect(out).toBe("");
  });
});
