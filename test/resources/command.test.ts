/**
 * Which `pulumi` command a provider process serves, read from the CLI's arguments: the command
 * (aliases included), `--run-program` (or PULUMI_RUN_PROGRAM), `--skip-preview`, `--preview-only`
 * and `--stack`; which operations then use the settings recorded at the last `up`; and which of a
 * command's two provider processes (its preview, then itself) this one is.
 */
import { createHash, randomUUID } from "node:crypto";
import { readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { firstOfTwo, parseCommand, usesRecordedSettings } from "../../provider/resources/command";

describe("the pulumi command", () => {
  it("is read from the CLI's arguments, as the Automation API and a terminal pass them", () => {
    expect(
      parseCommand([
        "/home/u/.pulumi/bin/pulumi",
        "refresh",
        "--skip-preview",
        "--yes",
        "--color",
        "never",
        "--event-log",
        "tcp://127.0.0.1:1",
        "--stack",
        "test",
        "--non-interactive",
      ]),
    ).toEqual({ name: "refresh", runProgram: false, skipPreview: true, previewOnly: false, stack: "test" });
    expect(parseCommand(["pulumi", "--cwd", "infra", "up", "-r", "--run-program", "-s", "org/app/dev"])).toEqual({
      name: "up",
      runProgram: true,
      skipPreview: false,
      previewOnly: false,
      stack: "org/app/dev",
    });
    expect(parseCommand(["pulumi", "pre", "--stack=dev"])).toMatchObject({ name: "preview", previewOnly: true, stack: "dev" });
    expect(parseCommand(["pulumi", "update", "-f"])).toMatchObject({ name: "up", skipPreview: true });
    expect(parseCommand(["pulumi", "down", "--preview-only"])).toMatchObject({ name: "destroy", previewOnly: true });
    expect(parseCommand(["pulumi", "refresh", "--run-program=false"], { PULUMI_RUN_PROGRAM: "true" })).toMatchObject({ runProgram: false });
    expect(parseCommand(["pulumi", "refresh"], { PULUMI_RUN_PROGRAM: "true" })).toMatchObject({ runProgram: true });
    expect(parseCommand(["pulumi", "stack", "export"])).toBeUndefined();
    expect(parseCommand(["node", "server.js"])).toBeUndefined();
  });

  it("refresh and destroy use the recorded settings; preview and up only for their refresh reads; --run-program never", () => {
    const cmd = (argv: string) => parseCommand(["pulumi", ...argv.split(" ")]);
    expect(usesRecordedSettings(cmd("refresh"), "read")).toBe(true);
    expect(usesRecordedSettings(cmd("destroy"), "remove")).toBe(true);
    expect(usesRecordedSettings(cmd("preview --refresh"), "read")).toBe(true);
    expect(usesRecordedSettings(cmd("up --refresh"), "remove")).toBe(false);
    expect(usesRecordedSettings(cmd("refresh --run-program"), "read")).toBe(false);
    expect(usesRecordedSettings(cmd("preview --refresh --run-program"), "read")).toBe(false);
    expect(usesRecordedSettings(undefined, "read")).toBeUndefined();
  });

  it("of a command's two provider processes, the first is its preview; a process that wrote is the command itself", () => {
    const provider = `test-${randomUUID()}`;
    const digest = createHash("sha256").update(provider).digest("hex").slice(0, 16);
    // This test's markers only: engine tests running beside it leave their own.
    const markers = () => readdirSync(tmpdir()).filter((name) => name.startsWith("pulumi-serviceapi-phase-") && name.endsWith(digest));
    expect(firstOfTwo(provider, false)).toBe(true);
    expect(markers()).toHaveLength(1);
    expect(firstOfTwo(provider, false)).toBe(false);
    // The second removes the marker; a process that created, updated or deleted is never the preview, and leaves none.
    expect(markers()).toEqual([]);
    expect(firstOfTwo(provider, true)).toBe(false);
    expect(markers()).toEqual([]);
  });
});
