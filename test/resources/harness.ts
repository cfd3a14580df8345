/**
 * For unit tests of the provider side: a simulator and a fresh `ProviderContext` per test,
 * configured for it as a face would, whose messages are collected instead of printed. Nothing is
 * shared between tests; the context's client is closed after each.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onTestFinished } from "vitest";
import { otherStacksText, TOOL_ENV } from "../../provider/resources/tool-protocol";
import { ProviderContext, type Severity } from "../../provider/resources/context";
import { readSettings } from "../../provider/resources/settings";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { simulator } from "../helpers";

export interface Harness {
  sim: Simulator;
  ctx: ProviderContext;
  /** What the lifecycles said, in order. */
  messages: { severity: Severity; message: string }[];
  /** The request bodies the simulator saw (of one operation, if given). */
  bodies(operation?: string): unknown[];
}

/**
 * A simulator and a context whose settings are `serviceapi:*` config (`token` and `baseUrl` given).
 * Pass `sim` for a second context on the same service: another `pulumi` command.
 */
export async function harness(config: Record<string, string> = {}, existing?: Simulator): Promise<Harness> {
  const sim = existing ?? (await simulator());
  const messages: Harness["messages"] = [];
  // No other stack records any product (`product/other-stacks.ts`): the fast tier reads no state backend.
  const ctx = new ProviderContext({ sink: (severity, message) => messages.push({ severity, message }), env: noOtherStacks() });
  const settings: Record<string, string> = { token: sim.token, baseUrl: sim.url, ...config };
  ctx.useSettings(() => readSettings((key) => settings[key], {}));
  // Closed when the test ends (a module-level afterEach would, under the unit tier's `isolate: false`, belong to one file only).
  onTestFinished(() => ctx.close());
  return { sim, ctx, messages, bodies: (operation) => sim.requests(operation).map((r) => r.body) };
}

/** An environment whose `SERVICEAPI_OTHER_STACKS_INDEX` names an empty index (written once per test file), `more` added. */
export function noOtherStacks(more: Record<string, string> = {}): NodeJS.ProcessEnv {
  emptyIndex ??= join(mkdtempSync(join(tmpdir(), "serviceapi-index-")), "other-stacks.json");
  writeFileSync(emptyIndex, otherStacksText({}));
  return { [TOOL_ENV.otherStacks]: emptyIndex, ...more };
}
let emptyIndex: string | undefined;
