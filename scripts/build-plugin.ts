/**
 * `npm run build-plugin`: the plugin archives for machines without npm (a YAML-only repository) and
 * for Pulumi's own download of the plugin (`npm run release`, scripts/release.ts).
 *
 * The plugin's entry point and everything it requires are bundled into one file by esbuild; the
 * archive holds that file and the launcher, so `pulumi plugin install resource serviceapi <version>
 * --file <archive>` gives a plugin that needs only `node` (>= 22.19) on PATH. The archive is
 * byte-for-byte reproducible: sorted entries, fixed owner and mtime, gzip without a timestamp.
 *
 * Pulumi downloads `<pluginDownloadURL>/pulumi-resource-serviceapi-v<version>-<os>-<arch>.tar.gz`
 * for the machine it runs on. The plugin is JavaScript behind a POSIX shell launcher, so one archive
 * serves every Unix platform: it is written once under each name of PLATFORMS (Windows would need
 * a `.cmd` launcher, which there is not).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { REPO } from "./repo";

const LAUNCHER = "pulumi-resource-serviceapi";
const BUNDLE = "serviceapi-plugin.js";

/** The `<os>-<arch>` pairs an archive is named for, in Pulumi's words (Go's GOOS and GOARCH). */
export const PLATFORMS = ["linux-amd64", "linux-arm64", "darwin-amd64", "darwin-arm64"] as const;

/** This machine as Pulumi names it in a plugin archive's name (`linux-amd64`, `darwin-arm64`). */
export function currentPlatform(): string {
  const arch = ({ x64: "amd64", arm64: "arm64" } as Record<string, string>)[process.arch] ?? process.arch;
  return `${process.platform}-${arch}`;
}

/** The archive's name as Pulumi looks for it on a download server (for this machine unless `platform` is given). */
export function pluginArchiveName(version: string, platform: string = currentPlatform()): string {
  return `pulumi-resource-serviceapi-v${version}-${platform}.tar.gz`;
}

/**
 * Builds the archive into `outDir` (default `dist-plugin/`) under every name of PLATFORMS, and
 * returns the path of this machine's.
 */
export async function buildPluginArchive(outDir = join(REPO, "dist-plugin")): Promise<string> {
  const { version } = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string };
  const stage = join(outDir, "stage");
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });

  await build({
    entryPoints: [join(REPO, "provider", "plugin", "main.ts")],
    outfile: join(stage, BUNDLE),
    bundle: true,
    platform: "node",
    target: "node22",
    format: "cjs",
    minify: true,
    // The licences of bundled code travel with it, in one file beside the bundle.
    legalComments: "external",
    logLevel: "warning",
  });

  copyFileSync(join(REPO, "plugin", LAUNCHER), join(stage, LAUNCHER));
  chmodSync(join(stage, LAUNCHER), 0o755);
  chmodSync(join(stage, BUNDLE), 0o644);

  const entries = [LAUNCHER, BUNDLE, `${BUNDLE}.LEGAL.txt`].filter((entry) => existsSync(join(stage, entry)));
  const tar = execFileSync(
    "tar",
    ["--sort=name", "--owner=0", "--group=0", "--numeric-owner", "--mtime=@0", "-cf", "-", "-C", stage, ...entries],
    {
      maxBuffer: 256 * 1024 * 1024,
    },
  );
  // zlib writes no timestamp or file name into the gzip header.
  const bytes = gzipSync(tar, { level: 9 });
  for (const platform of PLATFORMS) writeFileSync(join(outDir, pluginArchiveName(version, platform)), bytes);
  rmSync(stage, { recursive: true, force: true });
  return join(outDir, pluginArchiveName(version));
}

if (require.main === module) {
  buildPluginArchive()
    .then((archive) => {
      const bytes = readFileSync(archive);
      const sha256 = createHash("sha256").update(bytes).digest("hex");
      console.log(`${archive} (and the same bytes for ${PLATFORMS.join(", ")})\n  ${bytes.length} bytes, sha256 ${sha256}`);
    })
    .catch((error: unknown) => {
      console.error((error as Error).message);
      process.exit(1);
    });
}
