/**
 * A real npm registry for the tests that install this project's packages by name: Verdaccio on
 * loopback, made by the recipe docs/release.md gives users — read from the page, between its
 * `registry:begin` and `registry:end` markers, so the page cannot drift from what is tested: its
 * `package.json` (with the `overrides` entry Verdaccio 6.8.0 needs to install at all), its
 * `config.yaml`, its install line, its start command and its login lines, run as written with three
 * declared changes (`CHANGES`).
 *
 * Verdaccio is installed once into the cache outside the repository that holds the Pulumi CLI
 * (`$SERVICEAPI_PULUMI_CACHE`, else `~/.cache/pulumi-serviceapi`), in a folder named by a hash of the
 * page's `package.json` and install lines (a changed recipe installs afresh), not as a
 * devDependency: its 300 packages would weigh on every `npm ci` for one test file. Each registry
 * runs in a folder of the test's — the page's `package.json` and `config.yaml`, and a link to the
 * cached `node_modules` — with its own storage, users and request log.
 *
 * Packages of this project (`pulumi-serviceapi*`, `@pulumi-serviceapi/*`) are served from the
 * local storage only, as a team's own registry serves its private packages; everything else
 * (`@pulumi/pulumi` and the dependencies) is fetched from the registry npm itself uses here.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { REPO } from "../../scripts/engine/driver";
import { processTree } from "../../scripts/engine/processes";

const run = promisify(execFile);

/** A user's environment for npm: Node.js 24 first on PATH, none of `npm test`'s npm_* settings. */
export function npmEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key))) as Record<string, string>;
  return { ...env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}`, ...extra };
}

/** docs/release.md's Verdaccio recipe, as the page gives it. */
export interface RegistryRecipe {
  packageJson: string;
  config: string;
  /** The first shell block but its last line: the install. */
  install: string;
  /** The first shell block's last line: the start command, which serves until stopped. */
  start: string;
  /** The second shell block: a user, and its token as npm's login for the registry. */
  login: string;
}

const PAGE = join(REPO, "docs", "release.md");

export function registryRecipe(): RegistryRecipe {
  const page = readFileSync(PAGE, "utf8");
  const begin = page.indexOf("<!-- registry:begin");
  const end = page.indexOf("<!-- registry:end -->");
  if (begin < 0 || end < begin) throw new Error("docs/release.md has no registry:begin … registry:end block");
  const blocks = [...page.slice(begin, end).matchAll(/```(\w+)\n([\s\S]*?)```/g)].map(([, language, text]) => ({ language, text: text! }));
  const of = (language: string) => blocks.filter((b) => b.language === language).map((b) => b.text);
  const [packageJson, config, shell, login] = [of("json")[0], of("yaml")[0], of("sh")[0], of("sh")[1]];
  if (packageJson === undefined || config === undefined || shell === undefined || login === undefined || blocks.length !== 4) {
    throw new Error("docs/release.md's registry block must hold one json, one yaml and two sh blocks, in that order");
  }
  const lines = shell.trimEnd().split("\n");
  return { packageJson, config, install: lines.slice(0, -1).join("\n"), start: lines.at(-1)!, login };
}

/**
 * What the tests change in the recipe, each required to be on the page as written (so a changed page
 * fails here, not silently): the port (any free one, so runs do not collide), the uplink (the
 * registry npm uses on this machine, which may be a mirror) and the log format (JSON: the tests read
 * Verdaccio's request log).
 */
const CHANGES = {
  address: "127.0.0.1:4873",
  uplink: "url: https://registry.npmjs.org/",
  log: "format: pretty",
};

function change(text: string, from: string, to: string, where: string): string {
  if (!text.includes(from)) throw new Error(`docs/release.md's registry recipe: the ${where} no longer says ${JSON.stringify(from)}`);
  return text.split(from).join(to);
}

/** The folder holding the recipe's node_modules, installed on first use by the recipe's own lines. */
async function verdaccioInstall(recipe: RegistryRecipe): Promise<string> {
  const cache = process.env.SERVICEAPI_PULUMI_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "pulumi-serviceapi");
  const key = createHash("sha256").update(recipe.packageJson).update("\0").update(recipe.install).digest("hex").slice(0, 16);
  const dir = join(cache, `verdaccio-${key}`);
  if (existsSync(join(dir, "node_modules", "verdaccio", "package.json"))) return dir;
  mkdirSync(cache, { recursive: true });
  // Installed beside, then renamed: a run that finds the folder finds it whole.
  const staging = mkdtempSync(`${dir}.tmp-`);
  try {
    writeFileSync(join(staging, "package.json"), recipe.packageJson);
    await run("bash", ["-euo", "pipefail", "-c", recipe.install], { cwd: staging, env: npmEnv(), timeout: 10 * 60_000 });
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

/** A port nothing listens on now (the start command takes a port, not 0). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
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
  /** The npm user config the recipe's login lines wrote (`//127.0.0.1:<port>/:_authToken=<token>`): a release's npm login. */
  npmrc: string;
  /** Every request the registry answered, in order. */
  requests(): RegistryRequest[];
  stop(): Promise<void>;
}

/**
 * Starts Verdaccio by docs/release.md's recipe in `dir` (its storage, users and config there) and
 * makes the recipe's user, whose login lands in `<dir>/npmrc`.
 */
export async function startNpmRegistry(dir: string): Promise<NpmRegistry> {
  const recipe = registryRecipe();
  const install = await verdaccioInstall(recipe);
  const uplink = (await run("npm", ["config", "get", "registry"], { env: npmEnv(), encoding: "utf8" })).stdout.trim();
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), recipe.packageJson);
  symlinkSync(join(install, "node_modules"), join(dir, "node_modules"));
  let config = change(recipe.config, CHANGES.uplink, `url: ${uplink}`, "config.yaml");
  config = change(config, CHANGES.log, "format: json", "config.yaml");
  writeFileSync(join(dir, "config.yaml"), config);
  // A free port can be taken between the look and Verdaccio's listen: then it exits, and a new port is tried.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const address = `127.0.0.1:${port}`;
    try {
      return await started(recipe, dir, address);
    } catch (error) {
      if (attempt === 3 || !(error instanceof PortTaken)) throw error;
    }
  }
}

class PortTaken extends Error {}

async function started(recipe: RegistryRecipe, dir: string, address: string): Promise<NpmRegistry> {
  const child: ChildProcess = spawn("bash", ["-c", change(recipe.start, CHANGES.address, address, "start command")], {
    cwd: dir,
    env: npmEnv(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  const requests: RegistryRequest[] = [];
  let output = "";
  let pending = "";
  // Every writer of the output pipes closed: bash, npm and Verdaccio are all gone.
  const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      // npm exec does not pass a SIGTERM on to the command it runs: every process of the tree gets one.
      for (const pid of processTree(child.pid!).reverse()) {
        try {
          process.kill(pid, "SIGTERM");
        } catch {
          // exited meanwhile
        }
      }
    }
    await closed;
  };
  await new Promise<void>((resolve, reject) => {
    child.on("exit", (code) =>
      reject(
        /EADDRINUSE/.test(output)
          ? new PortTaken(address)
          : new Error(`verdaccio (docs/release.md's start command) exited (${code}) before listening:\n${output}`),
      ),
    );
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      pending += chunk.toString();
      const lines = pending.split("\n");
      pending = lines.pop()!;
      for (const line of lines) {
        let entry: {
          msg?: string;
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
        // Logged as it calls listen: the config is read and the port is being bound.
        if (entry.msg?.startsWith("http address")) resolve();
        // Verdaccio logs a request twice: as it comes in (status 200, nothing sent yet) and as it is answered.
        if (entry.request && entry.status !== undefined && (entry.bytes?.out ?? 0) > 0) {
          requests.push({ method: entry.request.method, url: entry.request.url, status: entry.status, user: entry.user ?? null });
        }
      }
    });
  });
  const url = `http://${address}/`;
  try {
    await answering(url, () =>
      child.exitCode === null ? undefined : /EADDRINUSE/.test(output) ? new PortTaken(address) : new Error(output),
    );
    const npmrc = join(dir, "npmrc");
    await run("bash", ["-euo", "pipefail", "-c", change(recipe.login, CHANGES.address, address, "login lines")], {
      cwd: dir,
      env: npmEnv({ NPM_CONFIG_USERCONFIG: npmrc }),
      timeout: 60_000,
    });
    if (!/^\/\/127\.0\.0\.1:\d+\/:_authToken=\S+$/m.test(readFileSync(npmrc, "utf8"))) {
      throw new Error("docs/release.md's login lines left no token in the npm user config");
    }
    return { url, npmrc, requests: () => [...requests], stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Until `url` answers `/-/ping`. Verdaccio logs its address as it calls listen, a moment before the
 * port is bound, and no event crosses npm exec's process boundary to say it is: each try waits for
 * the refusal, then a short pause, for at most 5 s.
 */
async function answering(url: string, exited: () => Error | undefined): Promise<void> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    try {
      if ((await fetch(`${url}-/ping`)).ok) return;
    } catch (error) {
      const gone = exited();
      if (gone instanceof PortTaken) throw gone;
      if (gone !== undefined || Date.now() > deadline) {
        throw new Error(`verdaccio did not answer at ${url}${gone === undefined ? "" : `; it exited:\n${gone.message}`}`, { cause: error });
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
