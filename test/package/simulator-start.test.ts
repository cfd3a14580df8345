/**
 * `npm run simulator` builds the simulator only when it must (issue 26: it rebuilt the whole package,
 * ~20 s, on every start). Run in a copy of the parts it needs, so the repository's own build is never
 * touched while other test files use it.
 */
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, statSync, symlinkSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO } from "../../scripts/engine/driver";

const CLI = join("simulator", "dist", "simulator", "cli.js");

/** Starts `npm run simulator -- --port 0` in `dir`, waits for its "listening" line, stops it; returns both streams. */
async function startOnce(dir: string): Promise<{ stdout: string; stderr: string }> {
  const child = spawn("npm", ["run", "--silent", "simulator", "--", "--port", "0"], {
    cwd: dir,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // its own process group: npm, sh and the simulator stop together, as on Ctrl-C in a terminal
  });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = once(child, "exit");
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
      if (/\n {2}storage: /.test(stdout)) resolve(); // the last line of its start-up banner
    });
    child.on("exit", (code) => reject(new Error(`the simulator exited (${code}) before listening:\n${stdout}\n${stderr}`)));
  });
  process.kill(-child.pid!, "SIGTERM");
  await exited;
  return { stdout, stderr };
}

describe("npm run simulator", { timeout: 120_000 }, () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "sim-start-"));
    for (const part of ["package.json", "tsconfig.json", "scripts/simulator.sh", "simulator", "provider/contract"]) {
      cpSync(join(REPO, part), join(dir, part), { recursive: true, filter: (src) => !src.includes(`${join("simulator", "dist")}`) });
    }
    symlinkSync(join(REPO, "node_modules"), join(dir, "node_modules"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("builds when there is no build, starts without building when the build is fresh, rebuilds after a source change", async () => {
    const first = await startOnce(dir);
    expect(first.stderr).toContain("simulator: building");
    const built = statSync(join(dir, CLI)).mtimeMs;

    const second = await startOnce(dir);
    expect(second.stderr).not.toContain("building");
    expect(statSync(join(dir, CLI)).mtimeMs).toBe(built);

    // A contract file edited after the build (its time set one minute ahead of the build's).
    const later = new Date(built + 60_000);
    utimesSync(join(dir, "provider", "contract", "schemas.ts"), later, later);
    const third = await startOnce(dir);
    expect(third.stderr).toContain("simulator: building (a source is newer than");
    expect(third.stdout).toContain("SERVICEAPI_BASE_URL=http://127.0.0.1:");
  });
});
