/**
 * The YAML language host from scripts/install-pulumi.sh runs a Pulumi YAML program under the real
 * CLI: stack config reaches the program, its expressions are evaluated, outputs come back. The
 * program declares no provider, so nothing but the CLI and the host is needed.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { engineSuite } from "./suite";
import { ENGINE_TIMEOUT_MS, REPO } from "../../scripts/engine/driver";

describe("Pulumi YAML runtime", { timeout: ENGINE_TIMEOUT_MS }, () => {
  const { newStack } = engineSuite();

  it("up evaluates the program's config and expressions into outputs; destroy removes the stack's resources", async () => {
    const engine = await newStack({ program: join(REPO, "test", "engine", "yaml-program"), token: null });
    await engine.stack.setConfig("greeting", { value: "bonjour" });

    const up = await engine.up();
    expect(up.result.summary.resourceChanges).toEqual({ create: 1 });
    expect(up.result.outputs.message!.value).toBe("bonjour, test");
    expect(up.result.outputs.messageBase64!.value).toBe(Buffer.from("bonjour, test").toString("base64"));

    const destroy = await engine.destroy();
    expect(destroy.result.summary.resourceChanges).toEqual({ delete: 1 });
    expect(await engine.outputs()).toEqual({});
  });
});
