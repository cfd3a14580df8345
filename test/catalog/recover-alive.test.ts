/**
 * `recover` clears a lock whose holder is gone (provider/catalog/recover.ts `alive`): a zombie is
 * gone. A killed run's `pulumi`, reparented to a PID 1 that never collects it (a container with no
 * init), stays a zombie for good; taking it for a running process left the lock for ever (found by
 * test/engine/catalog-random-kills.test.ts).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { alive } from "../../provider/catalog/recover";
import { statFields } from "../../provider/catalog/reaper";
import { until } from "../helpers";

describe("a lock holder's process", () => {
  it("running: alive; a zombie (exited, not collected by its parent): not alive; gone: not alive", { timeout: 45_000 }, async () => {
    // A child that ends only when told, of a shell that then becomes `sleep 60` and never waits for it. Told
    // once the parent is `sleep 60`: a child that ended first could be collected by the shell itself before
    // its `exec` (it was, now and then, on a loaded machine), and there was no zombie to see.
    const flag = join(mkdtempSync(join(tmpdir(), "recover-alive-")), "end");
    onTestFinished(() => rmSync(dirname(flag), { recursive: true, force: true }));
    // At most 60 s: a test that fails before telling it leaves no process behind for long.
    const child = 'i=0; while [ ! -e "$1" ] && [ "$i" -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done';
    const parent = spawn("sh", ["-c", `(${child}) & echo $!; exec sleep 60`, "sh", flag], { stdio: ["ignore", "pipe", "ignore"] });
    onTestFinished(() => void parent.kill("SIGKILL"));
    const zombie = Number(await new Promise<string>((resolve) => parent.stdout.once("data", (d: Buffer) => resolve(d.toString()))));
    await until("the parent a sleep", () => readFileSync(`/proc/${parent.pid}/comm`, "utf8").trim() === "sleep", 20_000);
    writeFileSync(flag, "");
    await until("the child a zombie", () => statFields(zombie)?.[0] === "Z", 20_000);
    expect(alive(parent.pid!)).toBe(true);
    expect(alive(zombie)).toBe(false);
    parent.kill("SIGKILL");
    await until("the parent gone", () => statFields(parent.pid!) === undefined || statFields(parent.pid!)?.[0] === "Z", 20_000);
    expect(alive(zombie)).toBe(false);
  });
});
