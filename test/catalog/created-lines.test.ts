/**
 * The line each create prints the moment it returns (`serviceapi: created Product "<key>" <id>`)
 * reaches the tool's caller as it comes, during the stack's run: after a killed run it is the only
 * trace of a record the state may miss (docs/recovery.md), so it must not wait for the report.
 * The stack is a stand-in that replays the engine events a real `up` sends (the tool's own run
 * against the simulator shows the lines on stderr; docs/catalog.md quotes it).
 */
import type { EngineEvent, Stack } from "@pulumi/pulumi/automation";
import { describe, expect, it } from "vitest";
import { emptyReport, runOnStack } from "../../provider/catalog/stack-run";

const ID = "0b3f2a8e-5b7c-4f1e-9a6d-2c4e8f0a1b3d";

function info(message: string): EngineEvent {
  return { sequence: 0, timestamp: 0, diagnosticEvent: { message, color: "never", severity: "info", ephemeral: false } };
}

describe("runOnStack passes each create's line on at once", () => {
  it("the created lines only, in order, each while the stack still runs; the report counts the creates", async () => {
    const seen: { line: string; during: boolean }[] = [];
    let running = false;
    const stack = {
      up: async ({ onEvent }: { onEvent: (event: EngineEvent) => void }) => {
        running = true;
        onEvent({
          sequence: 1,
          timestamp: 0,
          resourcePreEvent: {
            metadata: {
              op: "create",
              urn: "urn:pulumi:catalog-0::serviceapi-catalog::pulumi-nodejs:dynamic:Resource::pro",
              type: "pulumi-nodejs:dynamic:Resource",
              provider: "",
              old: undefined,
              new: undefined,
            },
          },
        } as unknown as EngineEvent);
        onEvent(info(`serviceapi: created Product "pro" ${ID}\n`));
        onEvent(info("serviceapi: this update talks to http://127.0.0.1:1234\n"));
        onEvent(info(`serviceapi: created Product "team-plan" ${ID.replace("0b", "1c")}\n`));
        onEvent({
          sequence: 2,
          timestamp: 0,
          diagnosticEvent: { message: `serviceapi: created Product "x" ${ID}`, color: "never", severity: "error", ephemeral: false },
        });
        running = false;
      },
    } as unknown as Stack;
    const report = emptyReport("catalog-0", "0", "up", 2, "f".repeat(64));

    await runOnStack(stack, report, new AbortController().signal, undefined, (line) => seen.push({ line, during: running }));

    expect(seen).toEqual([
      { line: `serviceapi: created Product "pro" ${ID}`, during: true },
      { line: `serviceapi: created Product "team-plan" ${ID.replace("0b", "1c")}`, during: true },
    ]);
    expect(report.creates).toEqual(["pro"]);
  });
});
