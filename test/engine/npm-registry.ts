/**
 * A real npm registry for the tests that install this project's packages by name: Verdaccio on
 * loopback, with its storage, users and config in a folder of the test's, and a request log.
 *
 * Verdaccio is installed once into the cache outside the repository that holds the Pulumi CLI
 * (`$SERVICEAPI_PULUMI_CACHE`, else `~/.cache/pulumi-serviceapi`), not as a devDependency: its 300
 * packages would weigh on every `npm ci` for one test file. Version 6.8.0 installs with the host's
 * npm; newer 6.x want Node 22 for the install itself. One of its dependencies asks for
 * `node-fetch@cjs`, a dist-tag the npm registry does not have (ETARGET), hence the override.
 *
 * Packages of this project (`pulumi-serviceapi*`, `@pulumi-serviceapi/*`) are served from the
 * local storage only, as a team's own registry serves its private packages; everything else
 * (`@pulumi/pulumi` and the dependencies) is fetched from the registry npm itself uses here.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const VERDACCIO = "6.8.0";

/** A user's environment for npm: Node.js 24 first on PATH, none of `npm test`'s npm_* settings. */
export function npmEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key))) as Record<string, string>;
  return { ...env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}`, ...extra };
}

/** The folder holding node_modules/verdaccio, installed on first use. */
async function verdaccioInstall(): Promise<string> {
  const cache = process.env.SERVICEAPI_PULUMI_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "pulumi-serviceapi");
  const dir = join(cache, `verdaccio-${VERDACCIO}`);
  if (existsSync(join(dir, "node_modules", "verdaccio", "package.json"))) return dir;
  mkdirSync(cache, { recursive: true });
  // Installed beside, then renamed: a run that finds the folder finds it whole.
  const staging = mkdtempSync(`${dir}.tmp-`);
  try {
    writeFileSync(
      join(staging, "package.json"),
      JSON.stringify({
        name: "verdaccio-for-tests",
        private: true,
        dependencies: { verdaccio: VERDACCIO },
        overrides: { "node-fetch": "2.7.0" },
      }),
    );
    await run("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts"], { cwd: staging, env: npmEnv(), timeout: 10 * 60_000 });
    try {
      renameSync(staging, dir);
    } catch (error) {
      // Another run installed it meanwhile.
      if (!existsSync(join(dir, "node_modules", "verdaccio", "package.json"))) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return dir;
}

export interface RegistryRequest {
  method: string;
  url: string;
  status: number;
  user: string | null;
}

export interface NpmRegistry {
  /** `http://127.0.0.1:<port>/`. */
  url: string;
  /** A user's token for `npm publish` (`//127.0.0.1:<port>/:_authToken=<token>`). */
  token: string;
  /** Every request the registry answered, in order. */
  requests(): RegistryRequest[];
  stop(): Promise<void>;
}

/** Starts Verdaccio with its storage, users and config in `dir`, and a user `release` with a token. */
export async function startNpmRegistry(dir: string): Promise<NpmRegistry> {
  const install = await verdaccioInstall();
  const uplink = (await run("npm", ["config", "get", "registry"], { env: npmEnv(), encoding: "utf8" })).stdout.trim();
  mkdirSync(dir, { recursive: true });
  const ours = { access: "$all", publish: "$authenticated" };
  // JSON is YAML: Verdaccio reads this as its config.yaml. Paths are relative to the config file.
  const config = {
    storage: "./storage",
    auth: { htpasswd: { file: "./htpasswd", max_users: 10 } },
    uplinks: { npmjs: { url: uplink } },
    packages: {
      "pulumi-serviceapi": ours,
      "pulumi-serviceapi-*": ours,
      "@pulumi-serviceapi/*": ours,
      "**": { access: "$all", publish: "$authenticated", proxy: "npmjs" },
    },
    log: { type: "stdout", format: "json", level: "http" },
  };
  writeFileSync(join(dir, "config.yaml"), JSON.stringify(config, null, 2));
  // Verdaccio's own server on port 0, started through its API so the port it got can be printed.
  const launcher = `
    const { runServer } = require(${JSON.stringify(join(install, "node_modules", "verdaccio"))});
    runServer(${JSON.stringify(join(dir, "config.yaml"))}).then((app) => {
      const server = app.listen(0, "127.0.0.1", () => console.log(JSON.stringify({ listening: server.address().port })));
    }, (error) => { console.error(error); process.exit(1); });`;
  const child: ChildProcess = spawn(process.execPath, ["-e", launcher], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  const requests: RegistryRequest[] = [];
  let output = "";
  let pending = "";
  const port = await new Promise<number>((resolve, reject) => {
    child.on("exit", (code) => reject(new Error(`verdaccio exited (${code}) before listening:\n${output}`)));
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      pending += chunk.toString();
      const lines = pending.split("\n");
      pending = lines.pop()!;
      for (const line of lines) {
        let entry: {
          listening?: number;
          request?: { method: string; url: string };
          status?: number;
          user?: string | null;
          bytes?: { out: number };
        };
        try {
          entry = JSON.parse(line) as typeof entry;
        } catch {
          continue;
        }
        if (entry.listening !== undefined) resolve(entry.listening);
        // Verdaccio logs a request twice: as it comes in (status 200, nothing sent yet) and as it is answered.
        if (entry.request && entry.status !== undefined && (entry.bytes?.out ?? 0) > 0) {
          requests.push({ method: entry.request.method, url: entry.request.url, status: entry.status, user: entry.user ?? null });
        }
      }
    });
  });
  const url = `http://127.0.0.1:${port}/`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  };
  try {
    const response = await fetch(`${url}-/user/org.couchdb.user:release`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "release", password: "release-password-1" }),
    });
    const { token } = (await response.json()) as { token?: string };
    if (response.status !== 201 || token === undefined) throw new Error(`verdaccio made no user (HTTP ${response.status})`);
    return { url, token, requests: () => [...requests], stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
