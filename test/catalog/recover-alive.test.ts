/**
 * `recover` clears a lock whose holder is gone (provider/catalog/recover.ts `alive`): a zombie is
 * gone. A killed run's `pulumi`, reparented to a PID 1 that never collects it (a container with no
 * init), stays a zombie for good; taking it for a running process left the lock for ever (found by
 * test/engine/catalog-random-kills.test.ts).
 */
import { spawn } from "node:child_process";
import { describe, expect, it, onTestFinished } from "vitest";
import { alive } from "../../provider/catalog/recover";
import { statFields } from "../../provider/catalog/reaper";
import { until } from "../helpers";

describe("a lock holder's process", () => {
  it("running: alive; a zombie (exited, not collected by its parent): not alive; gone: not alive", { timeout: 45_000 }, async () => {
    // `sleep 0` exits at once as a child of the shell, which then becomes `sleep 60` and never waits for it.
    // 60 s, killed below: a parent that ended first (5 s, on a machine loaded enough) left nothing to see as a zombie.
    const parent = spawn("sh", ["-c", "sleep 0 & echo $!; exec sleep 60"], { stdio: ["ignore", "pipe", "ignore"] });
    onTestFinished(() => void parent.kill("SIGKILL"));
    const zombie = Number(await new Promise<string>((resolve) => parent.stdout.once("data", (d: Buffer) => resolve(d.toString()))));
    await until("the child a zombie", () => statFields(zombie)?.[0] === "Z", 20_000);
    expect(alive(parent.pid!)).toBe(true);
    expect(alive(zombie)).toBe(false);
    parent.kill("SIGKILL");
    await until("the parent gone", () => statFields(parent.pid!) === undefined || statFields(parent.pid!)?.[0] === "Z", 20_000);
    expect(alive(zombie)).toBe(false);
  });
});
