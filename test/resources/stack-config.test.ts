/**
 * The stack's `serviceapi:*` config as it is now, read from `Pulumi.<stack>.yaml` as `pulumi config
 * set` writes it: plain values, secrets (known to be set, never read), keys set in `Pulumi.yaml`
 * left unknown, and nothing at all when the stack cannot be told or an ESC environment may add config.
 */
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { readStackConfig } from "../../provider/resources/stack-config";

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "serviceapi-stack-config-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

const STACK_FILE = [
  "encryptionsalt: v1:abc",
  "config:",
  "  engine:spec: '{\"products\":{}}'",
  "  serviceapi:baseUrl: http://127.0.0.1:8787",
  '  serviceapi:maxRetries: "1"',
  "  serviceapi:token:",
  "    secure: v1:Zm9vYmFy",
  "  serviceapi:publicBaseUrl: 'https://public.example.com' # a comment",
  "",
].join("\n");

describe("the stack config as it is now", () => {
  it("plain values and secrets of the stack named by --stack; other namespaces ignored", () => {
    const dir = project({ "Pulumi.yaml": "name: shop\nruntime: nodejs\n", "Pulumi.dev.yaml": STACK_FILE });
    const read = readStackConfig(dir, "org/shop/dev", {})!;
    expect(read.file).toBe(join(dir, "Pulumi.dev.yaml"));
    expect(Object.fromEntries(read.values)).toEqual({
      baseUrl: { kind: "plain", value: "http://127.0.0.1:8787" },
      maxRetries: { kind: "plain", value: "1" },
      token: { kind: "secret" },
      publicBaseUrl: { kind: "plain", value: "https://public.example.com" },
    });
    expect([...read.unknown]).toEqual([]);
  });

  it("a key the project file sets is unknown; a stack without a file has no keys; stackConfigDir is followed", () => {
    const dir = project({
      "Pulumi.yaml":
        "name: shop\nruntime: nodejs\nstackConfigDir: stacks\nconfig:\n  serviceapi:baseUrl:\n    default: https://api.example.com\n",
      "stacks/Pulumi.dev.yaml": STACK_FILE,
    });
    const read = readStackConfig(dir, "dev", {})!;
    expect(read.file).toBe(join(dir, "stacks", "Pulumi.dev.yaml"));
    expect([...read.unknown]).toEqual(["baseUrl"]);
    const empty = readStackConfig(dir, "prod", {})!;
    expect(empty.values.size).toBe(0);
  });

  it("the stack comes from --stack, else PULUMI_STACK, else the one `pulumi stack select` chose", () => {
    const dir = project({ "Pulumi.yaml": "name: shop\nruntime: nodejs\n", "Pulumi.dev.yaml": STACK_FILE });
    expect(readStackConfig(dir, undefined, { PULUMI_STACK: "dev" })?.values.size).toBe(4);
    const home = project({});
    expect(readStackConfig(dir, undefined, { PULUMI_HOME: home })).toBeUndefined();
    const hash = createHash("sha1").update(join(dir, "Pulumi.yaml")).digest("hex");
    mkdirSync(join(home, "workspaces"));
    writeFileSync(join(home, "workspaces", `shop-${hash}-workspace.json`), JSON.stringify({ stack: "dev" }));
    expect(readStackConfig(dir, undefined, { PULUMI_HOME: home })?.values.size).toBe(4);
  });

  it("nothing is told when an ESC environment may set config, or there is no project", () => {
    const dir = project({ "Pulumi.yaml": "name: shop\n", "Pulumi.dev.yaml": `environment:\n  - shop/dev\n${STACK_FILE}` });
    expect(readStackConfig(dir, "dev", {})).toBeUndefined();
    expect(readStackConfig(project({}), "dev", {})).toBeUndefined();
  });
});
