/**
 * The generated Python SDK (sdk/python, package `pulumi_serviceapi`) and the Python example
 * (examples/catalog-python) compile, and the package metadata a user installs from says what the
 * schema says. The Pulumi Python SDK is not installable on these machines (no PyPI), so the
 * programs are compiled, not imported or run (docs/sdks.md says so).
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO } from "../../scripts/engine/driver";
import { version } from "../../package.json";

describe("the Python SDK and example", () => {
  it("compile with python3 -m compileall (every file, no bytecode written into the repository)", () => {
    // PYTHONPYCACHEPREFIX sends the bytecode to a folder outside the sources; -q prints only errors.
    const output = execFileSync(
      "python3",
      ["-m", "compileall", "-q", "-f", join(REPO, "sdk", "python"), join(REPO, "examples", "catalog-python")],
      { env: { ...process.env, PYTHONPYCACHEPREFIX: join(REPO, ".engine-work", "pycache") }, encoding: "utf8" },
    );
    expect(output).toBe("");
  });

  it("pyproject.toml: the package's name, version, Python and Pulumi requirements", () => {
    const pyproject = readFileSync(join(REPO, "sdk", "python", "pyproject.toml"), "utf8");
    expect(pyproject).toMatch(/^\s*name = "pulumi_serviceapi"$/m);
    expect(pyproject).toMatch(new RegExp(`^\\s*version = "${version.replaceAll(".", "\\.")}"$`, "m"));
    expect(pyproject).toContain('"pulumi>=3.248.0,<4.0.0"');
    const plugin = JSON.parse(readFileSync(join(REPO, "sdk", "python", "pulumi_serviceapi", "pulumi-plugin.json"), "utf8"));
    expect(plugin).toMatchObject({ resource: true, name: "serviceapi", version });
  });
});
