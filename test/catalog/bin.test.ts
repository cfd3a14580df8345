/**
 * `serviceapi-catalog`'s bin as a Unix command: the bin compiled from the source under test as the
 * build compiles it (./transpiled.ts), run as a process. A Node.js older than the package supports
 * gets one line and exit code 2, before any dependency loads; a reader that closes the pipe early
 * (`| head -1`) gets no stack trace, the exit code stays the command's own, and no process is left
 * behind, the reaper's watcher included. The installed bin's `--help` is test/package/packaging.test.ts's.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatReport, type RunReport } from "../../provider/catalog/report";
import { emptyReport } from "../../provider/catalog/stack-run";
import { EXIT } from "../../provider/catalog/tool";
import { processesWithEnv } from "../../scripts/engine/processes";
import { nodePath, transpile } from "./transpiled";

const scratch = mkdtempSync(join(tmpdir(), "catalog-bin-"));
const BIN = join(scratch, "provider", "catalog", "bin.js");
/** Each run's processes carry `BIN_TEST=<id>`, to find any left behind. */
const MARK = "BIN_TEST";

beforeAll(() => {
  transpile(["provider/**/*.ts"], scratch);
}, 60_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function env(id: string): NodeJS.ProcessEnv {
  return { ...process.env, NODE_PATH: nodePath, [MARK]: id };
}

/** A `--json` report of `stacks` stacks, one product created in each, `failed` of them failed: its file and its text. */
function reportFile(stacks: number, failed: number): { file: string; text: string } {
  const report: RunReport = {
    version: 2,
    command: "preview",
    stacks,
    requests: 1,
    results: Array.from({ length: stacks }, (_, n) => {
      const stack = emptyReport(`catalog-a.${n.toString(2).padStart(12, "0")}`, "preview", { product: 1 }, "f");
      stack.changes = [{ key: `product-${n}`, op: "create", fields: [], reasons: [] }];
      stack.requests = 2;
      if (n < failed) Object.assign(stack, { status: "failed", errors: ["products.create failed: 500 internal: boom"] });
      return stack;
    }),
  };
  const file = join(scratch, `report-${stacks}-${failed}.json`);
  writeFileSync(file, JSON.stringify(report));
  return { file, text: formatReport(report) };
}

describe("serviceapi-catalog, the bin", () => {
  it("under Node.js 20 (the machine's /usr/bin/node): one line naming both versions and what to do, exit 2, nothing loaded", () => {
    // The host's own node is the Node 20 a user may still have first on PATH, here and on CI; any other proves nothing.
    const version = execFileSync("/usr/bin/node", ["--version"], { encoding: "utf8" }).trim();
    expect(version).toMatch(/^v20\./);
    // With the dependencies resolvable, as installed: loading undici on Node 20 would fail with a TypeError instead.
    const run = spawnSync("/usr/bin/node", [BIN, "--help"], { env: env(randomUUID()), encoding: "utf8" });
    expect({ status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({
      status: EXIT.refused,
      stdout: "",
      stderr: `serviceapi-catalog: needs Node.js 22.19 or later; this is Node.js ${version} (/usr/bin/node). Put a newer node first on PATH.\n`,
    });
  });

  it.each([
    ["--help", ["--help"], EXIT.ok],
    ["a refusal before any stack (no catalog folder)", ["plan", "--catalog", join(scratch, "no-such-catalog")], EXIT.refused],
  ])("%s loads no Pulumi SDK: it answers in a fraction of the second a stack run's SDK costs", (_, args, code) => {
    // The Automation API loads the whole SDK (about 1 s of CPU); only a command that runs stacks needs it.
    const loaded = join(scratch, `loaded-${randomUUID()}.json`);
    const hook = join(scratch, `hook-${randomUUID()}.js`);
    writeFileSync(
      hook,
      `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(loaded)}, JSON.stringify(Object.keys(require.cache).filter((f) => f.includes("/@pulumi/pulumi/")))));\n`,
    );
    const run = spawnSync(process.execPath, ["--require", hook, BIN, ...args], { env: env(randomUUID()), encoding: "utf8" });
    expect(run.status, run.stderr).toBe(code);
    expect(JSON.parse(readFileSync(loaded, "utf8"))).toEqual([]);
  });

  it.each([
    ["every stack ok", 0, EXIT.ok],
    ["a stack failed", 1, EXIT.failed],
  ])(
    "a reader that closes the pipe after the first line (`report | head -1`), %s: no word on stderr, the command's own exit code",
    async (_, failed, code) => {
      // 2,000 stacks: a report of more than 128 KB, more than a pipe holds, so the write meets the closed pipe.
      const { file, text } = reportFile(2000, failed);
      expect(text.length).toBeGreaterThan(128 * 1024);
      const id = randomUUID();
      const child = spawn(process.execPath, [BIN, "report", file], { env: env(id), stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes("\n")) child.stdout.destroy();
      });
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      // "close": the bin and every process holding its stderr (the reaper's watcher) have ended.
      const exitCode = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
      expect({ exitCode, stderr, first: stdout.split("\n")[0] }).toEqual({
        exitCode: code,
        stderr: "",
        first: "serviceapi-catalog preview: 2000 of 2000 stack(s)",
      });
      expect(stdout.length).toBeLessThan(text.length);
      // Nothing left behind, the reaper's watcher included.
      expect(processesWithEnv(MARK, id)).toEqual([]);
    },
  );

  it("turns on Node.js's compile cache and passes it down in NODE_COMPILE_CACHE, unless NODE_DISABLE_COMPILE_CACHE says not to", () => {
    const tmp = mkdtempSync(join(scratch, "tmp-"));
    const { NODE_COMPILE_CACHE: _inherited, ...clean } = env(randomUUID());
    // What a process the tool starts (`pulumi`, and the Node.js programs and providers below it) finds in its environment.
    const seen = (extra: NodeJS.ProcessEnv) =>
      execFileSync(
        process.execPath,
        [
          "-e",
          `require(${JSON.stringify(join(scratch, "provider", "compile-cache.js"))}).shareCompileCache(); console.log(process.env.NODE_COMPILE_CACHE ?? "unset")`,
        ],
        { env: { ...clean, TMPDIR: tmp, ...extra }, encoding: "utf8" },
      ).trim();
    expect(seen({})).toBe(join(tmp, "node-compile-cache"));
    expect(seen({ NODE_COMPILE_CACHE: join(tmp, "mine") })).toBe(join(tmp, "mine"));
    expect(seen({ NODE_DISABLE_COMPILE_CACHE: "1" })).toBe("unset");
  });
});
