/**
 * A team's pipeline installs this package the way it installs any other (docs/release.md): the
 * release (`npm run release`, which builds and then runs dist/scripts/release.js — run here as that
 * second half, on the build `npm test` made) publishes `pulumi-serviceapi`, the TypeScript SDK and
 * the simulator to a real npm registry (Verdaccio, started here on loopback) and writes the plugin
 * archives into a folder that a static HTTP server (node:http, here) serves. Then, each in its own
 * empty temporary folder with its own empty PULUMI_HOME:
 *   - a TypeScript program installs `pulumi-serviceapi` by name from that registry and `pulumi up`
 *     creates its product on the simulator (the dynamic face: no plugin involved);
 *   - a YAML program and a TypeScript program on the SDK get the plugin from the archive server,
 *     downloaded by Pulumi itself (automatic acquisition on; no `plugins.providers`, no
 *     `pulumi plugin install --file`): the server's log shows each GET;
 *   - `pulumi plugin install resource serviceapi <version> --server <url>` installs it, and an
 *     unknown version fails naming the URL it tried.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { version } from "../../package.json";
import { PLATFORMS, pluginArchiveName } from "../../scripts/build-plugin";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { simulator } from "../helpers";
import { ENGINE_TIMEOUT_MS, EngineStack, REPO, pulumiCli } from "../../scripts/engine/driver";
import { npmEnv, startNpmRegistry, type NpmRegistry } from "./npm-registry";
import { step } from "./suite";

const run = promisify(execFile);

/** A static file server for `root` under `/releases/`, with a log of every request and its status. */
async function archiveServer(root: string): Promise<{ server: Server; url: string; log: string[] }> {
  const log: string[] = [];
  const server = createServer((req, res) => {
    const name = decodeURIComponent((req.url ?? "").replace(/^\/releases\//, ""));
    const file = join(root, name);
    const found = req.url?.startsWith("/releases/") && !name.includes("/") && existsSync(file);
    log.push(`${req.method} ${req.url} ${found ? 200 : 404}`);
    if (!found) {
      res.writeHead(404).end("not found\n");
      return;
    }
    const bytes = readFileSync(file);
    res.writeHead(200, { "content-type": "application/gzip", "content-length": bytes.length });
    res.end(req.method === "HEAD" ? undefined : bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { server, url: `http://127.0.0.1:${port}/releases`, log };
}

describe("released to a registry and an archive server, installed by name", { timeout: ENGINE_TIMEOUT_MS }, () => {
  let scratch: string;
  let sim: Simulator;
  let registry: NpmRegistry | undefined;
  let archives: Awaited<ReturnType<typeof archiveServer>> | undefined;
  let cliBin: string;
  let releaseOutput: string;
  let dryRunOutput: string;
  const stacks: EngineStack[] = [];

  /**
   * npm as a fresh CI runner has it, for the programs: an empty cache of its own. npm caches what a
   * registry answered (the release's `npm view` on the releasing machine included), and an install
   * served from that cache would not ask the registry at all.
   */
  const runnerEnv = () => npmEnv({ npm_config_cache: join(scratch, "runner-npm-cache") });

  beforeAll(async () => {
    cliBin = (await pulumiCli()).bin;
    sim = await simulator();
    // Outside the repository: nothing may resolve from its node_modules.
    scratch = mkdtempSync(join(tmpdir(), "serviceapi-registry-"));
    mkdirSync(join(scratch, "releases"));
    archives = await archiveServer(join(scratch, "releases"));
    registry = await startNpmRegistry(join(scratch, "verdaccio"));
    // First a dry run with the default plugin URL (the committed SDK, no generation): it publishes nothing.
    dryRunOutput = (await release(["--registry", registry.url, "--plugin-dir", join(scratch, "dry-run"), "--dry-run"])).stdout;
    releaseOutput = (await release(["--registry", registry.url, "--plugin-dir", join(scratch, "releases"), "--plugin-url", archives.url]))
      .stdout;
  }, 30 * 60_000);

  /** What `npm run release -- <args>` runs after its build, with the release's npm login. */
  function release(args: string[]) {
    return run(process.execPath, ["dist/scripts/release.js", ...args], {
      cwd: REPO,
      // The release's npm login: what docs/release.md's login lines wrote.
      env: npmEnv({ NPM_CONFIG_USERCONFIG: registry!.npmrc }),
      encoding: "utf8",
      timeout: 10 * 60_000,
    });
  }

  afterAll(async () => {
    for (const stack of stacks) await stack.dispose();
    await registry?.stop();
    if (archives) await new Promise((resolve) => archives!.server.close(resolve));
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }, 120_000);

  /** An empty program folder whose npm installs from the registry, as a team's `.npmrc` says. */
  function programFolder(name: string, pulumiYaml: string): string {
    const dir = join(scratch, name);
    mkdirSync(dir);
    writeFileSync(join(dir, ".npmrc"), `registry=${registry!.url}\n`);
    writeFileSync(join(dir, "Pulumi.yaml"), pulumiYaml);
    return dir;
  }

  async function npmInstall(dir: string, packages: string[]): Promise<void> {
    await run("npm", ["init", "-y"], { cwd: dir, env: runnerEnv() });
    await run("npm", ["pkg", "set", "main=index.ts"], { cwd: dir, env: runnerEnv() });
    await run("npm", ["install", "--no-audit", "--no-fund", ...packages], { cwd: dir, env: runnerEnv(), timeout: 8 * 60_000 });
  }

  /** What a stack of the program in `dir` needs to get the plugin by itself: automatic acquisition on, no plugin on PATH. */
  async function stackFor(dir: string): Promise<EngineStack> {
    const engine = await EngineStack.create(sim, {
      program: dir,
      inPlace: true,
      env: {
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "false",
        PULUMI_IGNORE_AMBIENT_PLUGINS: "true",
        PATH: `${cliBin}:${dirname(process.execPath)}:/usr/bin:/bin`,
      },
    });
    stacks.push(engine);
    return engine;
  }

  const archiveGets = () => archives!.log.filter((line) => line === `GET /releases/${pluginArchiveName(version)} 200`).length;

  /**
   * `pulumi up` of a program whose PULUMI_HOME has no plugin yet: Pulumi downloads the archive once
   * (one GET on the archive server) and the product is created once.
   */
  async function upWithDownloadedPlugin(engine: EngineStack, title: string): Promise<EngineStack> {
    const home = engine.env.PULUMI_HOME!;
    expect(existsSync(join(home, "plugins"))).toBe(false);
    const before = archiveGets();
    const up = await engine.up();
    expect(up.result.summary.resourceChanges).toEqual({ create: 2 });
    expect(sim.products().filter((p) => p.title === title)).toHaveLength(1);
    expect(archiveGets() - before).toBe(1);
    expect(readdirSync(join(home, "plugins")).filter((d) => !d.endsWith(".lock"))).toEqual([`resource-serviceapi-v${version}`]);
    return engine;
  }

  it("the release published the three packages to the registry and wrote an archive per platform", async () => {
    const names = PLATFORMS.map((platform) => pluginArchiveName(version, platform));
    expect(readdirSync(join(scratch, "releases")).sort()).toEqual([...names].sort());
    // One plugin for every Unix platform: JavaScript behind a shell launcher.
    const bytes = names.map((name) => readFileSync(join(scratch, "releases", name)));
    expect(bytes.every((b) => b.equals(bytes[0]!))).toBe(true);
    for (const name of ["pulumi-serviceapi", "@pulumi-serviceapi/serviceapi", "pulumi-serviceapi-simulator"]) {
      expect(releaseOutput).toContain(`published ${name}@${version} to ${registry!.url}`);
      const packument = (await (await fetch(`${registry!.url}${name.replace("/", "%2f")}`)).json()) as {
        "dist-tags": Record<string, string>;
        versions: Record<string, { pulumi?: { server?: string } }>;
      };
      expect([name, packument["dist-tags"]]).toEqual([name, { latest: version }]);
      if (name === "@pulumi-serviceapi/serviceapi")
        expect(packument.versions[version]!.pulumi).toMatchObject({ name: "serviceapi", version, server: archives!.url });
    }
    expect(releaseOutput).toContain(
      `release: upload the archives so that ${archives!.url}/${pluginArchiveName(version, "linux-amd64")} serves them`,
    );
    // The dry run before it published nothing: these are all the registry's writes.
    const puts = registry!.requests().filter((r) => r.method === "PUT" && r.url !== "/-/user/org.couchdb.user:release");
    expect(puts.map((r) => [r.url, r.status, r.user])).toEqual([
      ["/pulumi-serviceapi", 201, "release"],
      ["/@pulumi-serviceapi%2fserviceapi", 201, "release"],
      ["/pulumi-serviceapi-simulator", 201, "release"],
    ]);

    await step("the dry run: the committed SDK with the default plugin URL, every archive, nothing published", () => {
      for (const name of ["pulumi-serviceapi", "@pulumi-serviceapi/serviceapi", "pulumi-serviceapi-simulator"])
        expect(dryRunOutput).toContain(`would publish ${name}@${version} to ${registry!.url}`);
      expect(dryRunOutput).not.toContain("generating the TypeScript SDK");
      expect(dryRunOutput).toContain(
        `release: attach the archives to the GitHub release v${version} of pulumi-serviceapi/pulumi-serviceapi`,
      );
      expect(readdirSync(join(scratch, "dry-run")).sort()).toEqual([...names].sort());
    });

    await step("a second release of the same version publishes nothing and says why", async () => {
      const again = await release([
        "--registry",
        registry!.url,
        "--plugin-dir",
        join(scratch, "again"),
        "--plugin-url",
        archives!.url,
      ]).catch((error: { code: number; stderr: string }) => error);
      expect(again).toMatchObject({ code: 1 });
      expect((again as { stderr: string }).stderr.trim()).toBe(
        `release: pulumi-serviceapi@${version}, @pulumi-serviceapi/serviceapi@${version}, pulumi-serviceapi-simulator@${version} already in ${registry!.url}: nothing published; raise "version" first`,
      );
      expect(existsSync(join(scratch, "again"))).toBe(false);
    });
  });

  it("a TypeScript program installs pulumi-serviceapi by name from the registry, and pulumi up creates its product", async () => {
    const dir = programFolder("dynamic", "name: catalog\nruntime: nodejs\n");
    const seen = registry!.requests().length;
    await npmInstall(dir, ["pulumi-serviceapi", "@pulumi/pulumi"]);
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { dependencies: Record<string, string> };
    expect(manifest.dependencies["pulumi-serviceapi"]).toBe(`^${version}`);
    // npm asked this registry for the package by name (the tarball itself may come from npm's cache, by
    // the integrity the registry gave; and npm here leaves `resolved` out of package-lock.json).
    expect(registry!.requests().slice(seen)).toContainEqual({ method: "GET", url: "/pulumi-serviceapi", status: 200, user: null });
    expect(JSON.parse(readFileSync(join(dir, "node_modules", "pulumi-serviceapi", "package.json"), "utf8"))).toMatchObject({ version });
    // npm linked the package's bin: the catalog tool runs by name, as docs/catalog.md and examples/catalog-tool say.
    const help = await run("npx", ["--no-install", "serviceapi-catalog", "--help"], { cwd: dir, env: runnerEnv(), encoding: "utf8" });
    expect(String(help.stdout).split("\n")[0]).toBe("usage: serviceapi-catalog <command> [options]");

    writeFileSync(
      join(dir, "index.ts"),
      [
        'import { Product, getProjectOutput } from "pulumi-serviceapi";',
        'const project = getProjectOutput({ name: "Acme Web" });',
        'export const id = new Product("pro", { projectId: project.id, title: "Pro plan from the registry" }).id;',
        "",
      ].join("\n"),
    );
    const engine = await stackFor(dir);
    const up = await engine.up();
    expect(up.result.summary.resourceChanges).toEqual({ create: 2 });
    expect(sim.products().filter((p) => p.title === "Pro plan from the registry")).toHaveLength(1);
    // The dynamic provider is the installed copy's (a one-line require stub), not code serialized by value.
    const [product] = await engine.resources("Product");
    expect(product!.outputs.__provider).toContain('const provider = require("pulumi-serviceapi/dynamic/product");');
  });

  it("a YAML program gets the plugin downloaded by Pulumi from the archive server", async () => {
    const dir = programFolder(
      "yaml",
      [
        "name: catalog-yaml",
        "runtime: yaml",
        "variables:",
        "  project:",
        "    fn::invoke:",
        "      function: serviceapi:index:getProject",
        "      arguments: { name: Acme Web }",
        "resources:",
        "  pro:",
        "    type: serviceapi:index:Product",
        "    properties:",
        "      projectId: ${project.id}",
        "      title: Pro plan from YAML",
        "outputs:",
        "  id: ${pro.id}",
        "",
      ].join("\n"),
    );
    // The package declaration docs/release.md gives YAML programs: which plugin version, and where it is.
    writeFileSync(
      join(dir, "serviceapi.yaml"),
      `packageDeclarationVersion: 1\nname: serviceapi\nversion: ${version}\ndownloadUrl: ${archives!.url}\n`,
    );
    await upWithDownloadedPlugin(await stackFor(dir), "Pro plan from YAML");
  });

  it("a TypeScript program on the SDK gets the plugin downloaded by Pulumi from the archive server", async () => {
    const dir = programFolder("sdk", "name: catalog-sdk\nruntime: nodejs\n");
    await npmInstall(dir, ["@pulumi-serviceapi/serviceapi", "@pulumi/pulumi"]);
    writeFileSync(
      join(dir, "index.ts"),
      [
        'import * as serviceapi from "@pulumi-serviceapi/serviceapi";',
        'const project = serviceapi.getProjectOutput({ name: "Acme Web" });',
        'export const id = new serviceapi.Product("pro", { projectId: project.id, title: "Pro plan from the SDK" }).id;',
        "",
      ].join("\n"),
    );
    const engine = await upWithDownloadedPlugin(await stackFor(dir), "Pro plan from the SDK");
    expect((await engine.resources("Product", "plugin")).map((r) => r.outputs.title)).toEqual(["Pro plan from the SDK"]);
  });

  it("pulumi plugin install resource serviceapi <version> --server <url> installs it; an unknown version names the URL it tried", async () => {
    const home = join(scratch, "plugin-install-home");
    // Without PULUMI_DISABLE_REGISTRY_RESOLVE, `plugin install` first asks the Pulumi Registry about
    // `serviceapi`, which this machine cannot reach: 7 s of time-out per command (docs/release.md).
    const env = { ...process.env, PULUMI_HOME: home, PULUMI_SKIP_UPDATE_CHECK: "true", PULUMI_DISABLE_REGISTRY_RESOLVE: "true" };
    const pulumi = join(cliBin, "pulumi");
    const before = archiveGets();
    await run(pulumi, ["plugin", "install", "resource", "serviceapi", version, "--server", archives!.url], { env });
    expect(archiveGets() - before).toBe(1);
    expect((await run(pulumi, ["plugin", "ls"], { env, encoding: "utf8" })).stdout).toMatch(
      new RegExp(`serviceapi\\s+resource\\s+${version.replaceAll(".", "\\.")}`),
    );

    const missing = await run(pulumi, ["plugin", "install", "resource", "serviceapi", "9.9.9", "--server", archives!.url], {
      env,
      encoding: "utf8",
    }).catch((error: { code: number; stderr: string }) => error);
    expect((missing as { code?: number }).code ?? 0).not.toBe(0);
    expect((missing as { stderr: string }).stderr).toContain(
      `404 HTTP error fetching plugin from ${archives!.url}/${pluginArchiveName("9.9.9")}`,
    );
    expect(archives!.log).toContain(`GET /releases/${pluginArchiveName("9.9.9")} 404`);
  });
});
