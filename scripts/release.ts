/**
 * `npm run release -- --registry <url> --plugin-dir <dir> [--plugin-url <url>] [--dry-run]`: a
 * release, for a team's own npm registry until the packages are on npmjs.com (docs/release.md).
 *
 *   1. the plugin archives, `pulumi-resource-serviceapi-v<version>-<os>-<arch>.tar.gz`, into
 *      `--plugin-dir` (scripts/build-plugin.ts), to be uploaded to the HTTP location `--plugin-url`;
 *   2. the TypeScript SDK `@pulumi-serviceapi/serviceapi` carrying that location as its
 *      `pluginDownloadURL`, so Pulumi downloads the plugin by itself where a program needs it: the
 *      committed sdk/nodejs for the default location (PLUGIN_DOWNLOAD_URL), else one generated for
 *      the given URL (scripts/gen-sdk.sh, which needs Go);
 *   3. `pulumi-serviceapi`, the SDK and `pulumi-serviceapi-simulator`, packed and published with
 *      `npm publish --registry <url>` (npm's own login for that registry: `npm login`, or an
 *      `.npmrc` line `//<host>/:_authToken=…`).
 *
 * `npm run release` builds first; this file runs on the build (dist/scripts/release.js). Nothing is
 * published when one of the three packages already has this version in the registry, so a release
 * is all or nothing unless `npm publish` itself fails half-way (then publish the rest by hand, or
 * raise the version).
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs, promisify } from "node:util";
import { PLUGIN_DOWNLOAD_URL } from "../provider/plugin/schema";
import { PLATFORMS, buildPluginArchive, pluginArchiveName } from "./build-plugin";
import { REPO } from "./repo";

const run = promisify(execFile);

export interface ReleaseOptions {
  /** The npm registry to publish to, e.g. `https://npm.example.com/`. */
  registry: string;
  /** Where the plugin archives are written (the folder to upload to `pluginUrl`). */
  pluginDir: string;
  /** Where Pulumi will download the archives from: an http(s) URL, or `github://` / `gitlab://` as Pulumi reads them. */
  pluginUrl: string;
  /** Packs and checks everything, and runs `npm publish --dry-run`: nothing is published. */
  dryRun: boolean;
}

export interface Released {
  version: string;
  /** The packages published (or, with `dryRun`, checked), by name. */
  packages: string[];
  archives: { path: string; sha256: string }[];
  pluginUrl: string;
}

const USAGE = "usage: npm run release -- --registry <npm registry URL> --plugin-dir <folder> [--plugin-url <URL>] [--dry-run]";

/** The options from the command line; a mistake is one line naming the option. */
export function releaseOptions(argv: string[]): ReleaseOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        registry: { type: "string" },
        "plugin-dir": { type: "string" },
        "plugin-url": { type: "string" },
        "dry-run": { type: "boolean", default: false },
      },
      strict: true,
    }));
  } catch (error) {
    throw new Error(`release: ${(error as Error).message}\n${USAGE}`, { cause: error });
  }
  const registry = values.registry;
  if (registry === undefined) throw new Error(`release: --registry is required: the npm registry to publish to\n${USAGE}`);
  if (!/^https?:\/\/[^/]/.test(registry)) throw new Error(`release: --registry must be an http(s) URL (got ${JSON.stringify(registry)})`);
  const pluginDir = values["plugin-dir"];
  if (pluginDir === undefined) throw new Error(`release: --plugin-dir is required: the folder the plugin archives go to\n${USAGE}`);
  const pluginUrl = values["plugin-url"] ?? PLUGIN_DOWNLOAD_URL;
  if (!/^(https?|github|gitlab):\/\/[^/]/.test(pluginUrl)) {
    throw new Error(
      `release: --plugin-url must be an http(s), github:// or gitlab:// URL, as Pulumi reads pluginDownloadURL (got ${JSON.stringify(pluginUrl)})`,
    );
  }
  return {
    registry: registry.endsWith("/") ? registry : `${registry}/`,
    pluginDir: resolve(pluginDir),
    pluginUrl,
    dryRun: values["dry-run"],
  };
}

function manifest(dir: string): { name: string; version: string; pulumi?: { server?: string } } {
  return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as never;
}

/** `npm <args>` from the repository, with the user's npm configuration (registry login included). */
async function npm(args: string[], cwd = REPO): Promise<string> {
  try {
    return (await run("npm", args, { cwd, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })).stdout;
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    throw new Error(`release: npm ${args[0]} failed: ${(e.stderr ?? e.message).trim()}`, { cause: error });
  }
}

/** Whether `name@version` is in the registry already (npm view prints nothing for a missing version, fails for a missing package). */
async function published(name: string, version: string, registry: string): Promise<boolean> {
  try {
    const out = await run("npm", ["view", `${name}@${version}`, "version", "--registry", registry], { cwd: REPO, encoding: "utf8" });
    return out.stdout.trim() !== "";
  } catch (error) {
    if (/E404|404 Not Found/.test((error as { stderr?: string }).stderr ?? "")) return false;
    throw new Error(`release: cannot read ${name} from ${registry}: ${((error as { stderr?: string }).stderr ?? "").trim()}`, {
      cause: error,
    });
  }
}

/** The packed tarball `npm pack` just wrote into `dest` for the package in `dir`. */
async function pack(dir: string, dest: string): Promise<string> {
  const out = await npm(["pack", "--ignore-scripts", "--pack-destination", dest], dir);
  return join(dest, out.trim().split("\n").pop()!);
}

/** Where Pulumi fetches one archive from an http(s) `pluginDownloadURL` (it fills in `${VERSION}`, `${OS}`, `${ARCH}`). */
export function downloadUrl(pluginUrl: string, version: string, platform: string): string {
  const [os, arch] = platform.split("-") as [string, string];
  const base = pluginUrl.replaceAll("${VERSION}", version).replaceAll("${OS}", os).replaceAll("${ARCH}", arch).replace(/\/$/, "");
  return `${base}/${pluginArchiveName(version, platform)}`;
}

export async function release(options: ReleaseOptions, log: (line: string) => void = console.log): Promise<Released> {
  const root = manifest(REPO);
  const version = root.version;
  const simulatorDir = join(REPO, "simulator");
  for (const dir of [simulatorDir, join(REPO, "sdk", "nodejs")]) {
    const other = manifest(dir);
    if (other.version !== version) {
      throw new Error(
        `release: ${other.name} is at ${other.version} and pulumi-serviceapi at ${version}: give them one version (then \`npm run gen-sdk\`)`,
      );
    }
  }
  const names = [root.name, "@pulumi-serviceapi/serviceapi", manifest(simulatorDir).name];
  const already = (
    await Promise.all(names.map(async (name) => ((await published(name, version, options.registry)) ? name : undefined)))
  ).filter((name) => name !== undefined);
  if (already.length > 0) {
    throw new Error(
      `release: ${already.map((n) => `${n}@${version}`).join(", ")} already in ${options.registry}: nothing published; raise "version" first`,
    );
  }

  // Inside the repository, so the SDK generated for another URL compiles against its node_modules.
  mkdirSync(join(REPO, "dist"), { recursive: true });
  const work = mkdtempSync(join(REPO, "dist", "release-"));
  try {
    mkdirSync(options.pluginDir, { recursive: true });
    await buildPluginArchive(options.pluginDir);
    const archives = PLATFORMS.map((platform) => join(options.pluginDir, pluginArchiveName(version, platform))).map((path) => ({
      path,
      sha256: createHash("sha256").update(readFileSync(path)).digest("hex"),
    }));

    let sdkDir = join(REPO, "sdk", "nodejs");
    if (options.pluginUrl !== PLUGIN_DOWNLOAD_URL) {
      log(`release: generating the TypeScript SDK for plugin downloads from ${options.pluginUrl}`);
      const generated = join(work, "sdk");
      await run("bash", [join(REPO, "scripts", "gen-sdk.sh"), generated], {
        cwd: REPO,
        env: { ...process.env, SERVICEAPI_PLUGIN_DOWNLOAD_URL: options.pluginUrl },
      });
      sdkDir = join(generated, "nodejs");
      await run("bash", [join(REPO, "scripts", "pack-sdk.sh"), "build"], {
        cwd: REPO,
        env: { ...process.env, SERVICEAPI_SDK_NODEJS: sdkDir },
      });
    }
    // What Pulumi will read (the Node.js language host reads `pulumi.server` of each package it finds).
    const server = manifest(join(sdkDir, "bin")).pulumi?.server;
    if (server !== options.pluginUrl) {
      throw new Error(
        `release: the built SDK names ${JSON.stringify(server)} as its plugin download URL, not ${options.pluginUrl}: run \`npm run build\``,
      );
    }

    const tarballs = join(work, "packages");
    mkdirSync(tarballs);
    const sdkTarball = (
      await run("bash", [join(REPO, "scripts", "pack-sdk.sh"), "pack", tarballs], {
        cwd: REPO,
        env: { ...process.env, SERVICEAPI_SDK_NODEJS: sdkDir },
      })
    ).stdout
      .trim()
      .split("\n")
      .pop()!;
    const packages = [
      { name: names[0]!, tarball: await pack(REPO, tarballs) },
      { name: names[1]!, tarball: join(tarballs, sdkTarball) },
      { name: names[2]!, tarball: await pack(simulatorDir, tarballs) },
    ];
    if (readdirSync(tarballs).length !== 3)
      throw new Error(`release: expected three tarballs in ${tarballs}, found ${readdirSync(tarballs).join(", ")}`);

    for (const { name, tarball } of packages) {
      // --access public: a scoped package (the SDK) is otherwise private where the registry has that notion.
      await npm([
        "publish",
        tarball,
        "--registry",
        options.registry,
        "--access",
        "public",
        "--ignore-scripts",
        ...(options.dryRun ? ["--dry-run"] : []),
      ]);
      log(`release: ${options.dryRun ? "would publish" : "published"} ${name}@${version} to ${options.registry}`);
    }
    for (const { path, sha256 } of archives) log(`release: ${path}  sha256 ${sha256}`);
    log(
      options.pluginUrl.startsWith("github://")
        ? `release: attach the archives to the GitHub release v${version} of ${options.pluginUrl.replace(/^github:\/\/[^/]+\//, "")}`
        : `release: upload the archives so that ${downloadUrl(options.pluginUrl, version, "linux-amd64")} serves them`,
    );
    return { version, packages: packages.map((p) => p.name), archives, pluginUrl: options.pluginUrl };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (require.main === module) {
  (async () => release(releaseOptions(process.argv.slice(2))))().catch((error: unknown) => {
    console.error((error as Error).message);
    process.exit(1);
  });
}
