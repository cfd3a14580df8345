/**
 * The generated Go SDK (sdk/go, module github.com/pulumi-serviceapi/pulumi-serviceapi/sdk) and the
 * Go example that uses it (examples/catalog-go) pass `go vet` and build, against the Pulumi Go SDK
 * pinned in their go.mod: the compiler's check of every type and call. Running Go programs under
 * the CLI (through the Automation API): test/engine/go-automation.test.ts.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO } from "../../scripts/engine/driver";

const out = mkdtempSync(join(tmpdir(), "serviceapi-go-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

function go(args: string[], cwd: string): string {
  return execFileSync("go", args, {
    cwd,
    encoding: "utf8",
    // -mod=readonly: go.mod and go.sum as committed, never rewritten by the check.
    env: { ...process.env, CGO_ENABLED: "0", GOFLAGS: "-mod=readonly" },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

describe("the Go SDK and example", { timeout: 15 * 60_000 }, () => {
  it("sdk/: go vet and go build of every package", () => {
    go(["vet", "./..."], join(REPO, "sdk"));
    go(["build", "./..."], join(REPO, "sdk"));
    const base = "github.com/pulumi-serviceapi/pulumi-serviceapi/sdk/go/serviceapi";
    expect(go(["list", "./..."], join(REPO, "sdk")).trim().split("\n")).toEqual([base, `${base}/config`, `${base}/internal`]);
  });

  it("examples/catalog-go: go vet, and a program binary that builds", () => {
    const dir = join(REPO, "examples", "catalog-go");
    go(["vet", "./..."], dir);
    go(["build", "-o", join(out, "catalog-go"), "."], dir);
    // What the program resolves its SDK to: this repository's sdk/, through the replace directive.
    expect(go(["list", "-m", "-f", "{{.Replace.Dir}}", "github.com/pulumi-serviceapi/pulumi-serviceapi/sdk"], dir).trim()).toBe(join(REPO, "sdk"));
  });
});
