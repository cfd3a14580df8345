/**
 * A user's project in a scratch folder outside the repo, with the packed package installed by npm
 * the way a user runs it — for tests of what installing pulumi-serviceapi does.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const root = join(__dirname, "..", "..");

/**
 * `npm pack` of the repo's provider package (already built) into `destination` — or, with
 * `"simulator"`, of the simulator package beside it; with `repo`, of a built copy of the repo
 * there instead: the tarball and the paths it holds.
 */
export function pack(destination: string, which: "provider" | "simulator" = "provider", repo = root): { tarball: string; files: string[] } {
  const cwd = which === "provider" ? repo : join(repo, "simulator");
  const out = execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", destination], {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  const [info] = JSON.parse(out) as { filename: string; files: { path: string }[] }[];
  return { tarball: join(destination, info!.filename), files: info!.files.map((f) => f.path) };
}

/**
 * An empty project folder with a package.json. protobufjs (under @pulumi/pulumi, in every Pulumi
 * program) has a postinstall of its own; the project denies it, as the README says, so any install
 * warning or script left comes from pulumi-serviceapi.
 */
export function userProject(dir: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true, allowScripts: { protobufjs: false } }));
  writeFileSync(join(dir, ".npmrc-empty"), "");
  return dir;
}

/** npm's own entry point: `npm` on PATH is a link to it (or a wrapper beside it). */
function npmCliPath(): string {
  const onPath = realpathSync(execFileSync("which", ["npm"], { encoding: "utf8" }).trim());
  return onPath.endsWith(".js") ? onPath : join(dirname(onPath), "npm-cli.js");
}

/**
 * `npm <args>` in `project`. npm runs on the Node 24 toolchain (this process), so no engine warning
 * comes from the host's Node 20; in a clean environment with an empty user config, so neither
 * `npm test`'s npm_* variables nor the machine's ~/.npmrc speak in the output. Packages come from
 * npm's cache when it has them.
 */
export function npmAsUser(project: string, args: string[]): { status: number | null; output: string } {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
  const result = spawnSync(
    process.execPath,
    [
      npmCliPath(),
      ...args,
      "--userconfig",
      join(project, ".npmrc-empty"),
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      "--no-update-notifier",
    ],
    { cwd: project, env, encoding: "utf8", timeout: 280_000 },
  );
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}
