/**
 * The plugin's launcher (`plugin/pulumi-resource-serviceapi`, the same file in the npm package and
 * in the plugin archive) runs the plugin only under a Node.js the package supports, and otherwise
 * says which version it needs and which it found. The `node` it sees here is a script printing a
 * version, and nothing else is on PATH (test/support/launcher.ts), so each boundary is checked
 * without installing old Node releases and whatever Node.js the machine has.
 */
import { describe, expect, it } from "vitest";
import { launch } from "../support/launcher";

describe("the plugin launcher", () => {
  it.each(["v22.19.0", "v22.20.1", "v23.0.0", "v24.21.0", "v30.1.2"])("runs the plugin's build under Node %s", (version) => {
    const run = launch(version);
    expect(run.status).toBe(0);
    expect(run.stdout.trim()).toMatch(/^ran .*\/plugin\/\.\.\/dist\/provider\/plugin\/main\.js$/);
  });

  it.each(["v22.18.1", "v22.9.0", "v20.20.2", "v18.20.0", "v9.99.99"])(
    "refuses Node %s, naming what it needs and what it found",
    (version) => {
      const run = launch(version);
      expect(run.status).toBe(1);
      expect(run.stdout).toBe("");
      expect(run.stderr).toBe(`pulumi-resource-serviceapi needs Node.js 22.19 or later as \`node\` on PATH (found: ${version})\n`);
    },
  );

  it("refuses when `node` is not on PATH, or prints something that is not a version", () => {
    expect(launch(null).stderr).toBe("pulumi-resource-serviceapi needs Node.js 22.19 or later as `node` on PATH (found: none)\n");
    expect(launch("node-canary").stderr).toBe(
      "pulumi-resource-serviceapi needs Node.js 22.19 or later as `node` on PATH (found: node-canary)\n",
    );
  });
});
