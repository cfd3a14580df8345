/**
 * The process reaper (provider/catalog/reaper.ts) with real processes: a "tool" that starts the
 * reaper as the bin does, and a tree below it, some processes in process groups of their own as
 * Pulumi's CLI starts its plugins (fixtures/process-tree.ts). A SIGKILLed tool takes every process
 * below it along; a tool that ends normally takes nothing; a process of no run is never touched.
 * The watcher's rules are then tried one by one, in this process, on trees built for each.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { RUN_MARK, Watcher, procTable, psTable, type ProcessTable } from "../../provider/catalog/reaper";
import { until } from "../helpers";
import { processesWithEnv, statFields } from "../../scripts/engine/processes";
import type { Spec } from "./fixtures/process-tree";
import { transpile } from "./transpiled";

const scratch = mkdtempSync(join(tmpdir(), "reaper-test-"));
const TREE = join(scratch, "test", "catalog", "fixtures", "process-tree.js");
const WATCHER = join(scratch, "provider", "catalog", "reaper-process.js");
beforeAll(() => {
  transpile(["provider/catalog/reaper.ts", "provider/catalog/reaper-process.ts", "test/catalog/fixtures/process-tree.ts"], scratch);
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Every process a test starts carries `REAPER_TEST=<the test's id>` (the bystander another id). */
const MARK = "REAPER_TEST";
let id: string;
let bystander: ChildProcess;
beforeEach(async () => {
  id = randomUUID();
  // A process of no run, started beside the tool (both children of this process): it must survive every test.
  bystander = launch("node", { name: "bystander", children: [{ name: "bystander-child", detached: true }] }, { [MARK]: `${id}-bystander` });
  await until("the bystander and its child", () => named(`${id}-bystander`).size === 2, 10_000);
});
afterEach(() => {
  for (const value of [id, `${id}-bystander`]) for (const { pid } of processesWithEnv(MARK, value)) signal(pid, "SIGKILL");
});

/** Runs the fixture as `role` with `spec`; its stderr is collected in `stderr`. */
function launch(role: "tool" | "node", spec: Spec, env: Record<string, string> = {}): ChildProcess & { stderr_: () => string } {
  const child = spawn(process.execPath, [TREE, role, spec.name, JSON.stringify(spec)], {
    env: { ...process.env, [MARK]: id, ...env },
    stdio: ["pipe", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return Object.assign(child, { stderr_: () => stderr });
}

/** The live processes marked `value`, by name (the watcher as `watcher`); zombies left out. */
function named(value = id): Map<string, number> {
  const found = new Map<string, number>();
  for (const { pid, command } of processesWithEnv(MARK, value)) {
    if (command === "" || statFields(pid)?.[0] === "Z") continue;
    const args = command.split(" ");
    found.set(args[1] === WATCHER ? "watcher" : args[3]!, pid);
  }
  return found;
}

const names = (found: Map<string, number>) => [...found.keys()].sort();

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.on("exit", (code) => resolve(code)));
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // gone already
  }
}

/**
 * Asks `name` (marked `value`) to start `<name>+`, and waits until it has: proof that it is alive
 * and running, neither stopped nor killed (a SIGKILL sent before is always handled first). SIGWINCH
 * is ignored by a process that has no handler for it yet, so it is sent again until answered.
 */
async function poke(name: string, value = id): Promise<void> {
  const pid = named(value).get(name)!;
  await until(
    `${name} answering`,
    () => {
      signal(pid, "SIGWINCH");
      return named(value).has(`${name}+`);
    },
    5_000,
  );
}

/** The bystander and its child are alive and running. */
async function expectBystanderUntouched(): Promise<void> {
  expect(bystander.signalCode).toBe(null);
  await poke("bystander", `${id}-bystander`);
  await poke("bystander-child", `${id}-bystander`);
}

/** A tree of 6 below the tool: 3 in process groups of their own, 2 of them with a child in that group. */
const TOOL_TREE: Spec = {
  name: "tool",
  children: [
    { name: "a", children: [{ name: "a1", detached: true, children: [{ name: "a1x" }] }] },
    { name: "b", detached: true, children: [{ name: "b1" }, { name: "b2", detached: true }] },
  ],
};

describe("serviceapi-catalog's process reaper, as the bin starts it", () => {
  it("a SIGKILLed tool takes every process below it along, those in process groups of their own too, and the watcher ends", async () => {
    const tool = launch("tool", TOOL_TREE);
    const all = ["a", "a1", "a1x", "b", "b1", "b2", "tool", "watcher"];
    await until("the tool, its watcher and the tree", () => names(named()).join() === all.join(), 10_000);
    const pids = named();
    // What makes a group kill miss them: a1, b and b2 lead groups of their own, and the watcher a session of its own.
    const group = (name: string) => statFields(pids.get(name)!)![2];
    expect(["a", "a1", "a1x", "b", "b1", "b2"].map(group)).toEqual([
      group("tool"),
      ...[pids.get("a1"), pids.get("a1"), pids.get("b"), pids.get("b"), pids.get("b2")].map(String),
    ]);
    expect(statFields(pids.get("watcher")!)![3]).toBe(String(pids.get("watcher")));

    tool.kill("SIGKILL");
    await until("no process of the tree, nor the watcher", () => named().size === 0, 5_000);
    expect(tool.stderr_()).toBe("");
    await expectBystanderUntouched();
  });

  it("a tool that ends normally takes nothing along: the watcher exits at once, a process the tool left running lives on", async () => {
    const tool = launch("tool", { name: "tool", children: [{ name: "keep", detached: true }] });
    await until("the tool, its watcher and keep", () => names(named()).join() === "keep,tool,watcher", 10_000);
    const keep = named().get("keep");
    tool.stdin!.end("end\n");
    expect(await exited(tool)).toBe(0);
    await until("the watcher gone", () => !named().has("watcher"), 5_000);
    expect(named().get("keep")).toBe(keep);
    await poke("keep");
    expect(tool.stderr_()).toBe("");
    await expectBystanderUntouched();
  });

  it("a watcher that is not the child of the pid it is given (that tool is gone) exits at once and kills nothing", async () => {
    // As if the tool had died before its watcher started: the pid named may be any process by now, here the bystander.
    const watcher = spawn(process.execPath, [WATCHER, String(bystander.pid), randomUUID()], { stdio: ["pipe", "ignore", "pipe"] });
    let stderr = "";
    watcher.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    watcher.stdin.end();
    expect(await exited(watcher)).toBe(0);
    expect(stderr).toBe("");
    await expectBystanderUntouched();
  });
});

describe("what the watcher kills", () => {
  it.each([
    ["/proc", procTable],
    ["ps", psTable],
  ])(
    "with the process table of %s: every recorded descendant still alive, orphaned ones too, and what they started since",
    async (_, table: () => ProcessTable) => {
      const tool = launch("node", {
        name: "tool",
        children: [
          { name: "c", children: [{ name: "d", detached: true }] },
          { name: "e", detached: true, children: [{ name: "e1" }] },
        ],
      });
      await until("the tool and its tree", () => names(named()).join() === "c,d,e,e1,tool", 10_000);
      const pids = named();
      const pid = (name: string) => pids.get(name)!;
      const watcher = new Watcher(tool.pid!, table().get(tool.pid!)!.start, { table });
      watcher.record();
      expect([...watcher.recorded.keys()].sort()).toEqual(["c", "d", "e", "e1"].map(pid).sort());

      // c dies, d is orphaned: no longer below the tool, as a plugin whose CLI died of SIGPIPE.
      signal(pid("c"), "SIGKILL");
      await until("d orphaned", () => statFields(pid("d"))?.[1] !== String(pid("c")), 5_000);
      // e starts a process after the watcher's last look.
      await poke("e");
      const ePlus = named().get("e+")!;
      tool.kill("SIGKILL");
      await exited(tool);

      const killed = watcher.reap();
      expect(killed.sort()).toEqual([pid("d"), pid("e"), pid("e1"), ePlus].sort());
      await until("no process of the tree", () => named().size === 0, 5_000);
      await expectBystanderUntouched();
    },
  );

  it("a process carrying the run's mark, never seen below the tool (started and orphaned since the last look)", async () => {
    const mark = randomUUID();
    const tool = launch(
      "node",
      { name: "tool", children: [{ name: "x", detached: true, children: [{ name: "x1" }] }] },
      { [RUN_MARK]: mark },
    );
    await until("the tool and its tree", () => names(named()).join() === "tool,x,x1", 10_000);
    const pids = named();
    const start = procTable().get(tool.pid!)!.start;
    tool.kill("SIGKILL");
    await exited(tool);
    expect(statFields(pids.get("x")!)?.[1]).not.toBe(String(tool.pid));

    const watcher = new Watcher(tool.pid!, start, { mark });
    expect(watcher.reap().sort()).toEqual([pids.get("x"), pids.get("x1")].sort());
    await until("no process of the tree", () => named().size === 0, 5_000);
    await expectBystanderUntouched();
  });

  it("a recorded pid that now belongs to another process (its start time differs) is left alone", async () => {
    // Above Linux's largest pid: no process can have it.
    const gone = 2 ** 22 + 1;
    let looks = 0;
    const table = (): ProcessTable =>
      looks++ === 0
        ? new Map([
            [gone, { ppid: 1, start: "1" }],
            [bystander.pid!, { ppid: gone, start: "an earlier process's" }],
          ])
        : procTable();
    const watcher = new Watcher(gone, "1", { table });
    watcher.record();
    expect(watcher.recorded).toEqual(new Map([[bystander.pid!, "an earlier process's"]]));
    expect(watcher.reap()).toEqual([]);
    await expectBystanderUntouched();
  });

  it("ps and /proc agree on every process's parent", () => {
    // The tables are read at different instants, and a process whose parent exits in between is re-parented
    // (CI saw one move to pid 1): /proc is read before and after ps, and only the processes whose parent did not
    // change across the three reads are compared — this one's among them.
    const [before, ps, proc] = [procTable(), psTable(), procTable()];
    const both = [...proc.keys()].filter((pid) => ps.has(pid) && before.get(pid)?.ppid === proc.get(pid)!.ppid);
    expect(both).toContain(process.pid);
    expect(both.map((pid) => ps.get(pid)!.ppid)).toEqual(both.map((pid) => proc.get(pid)!.ppid));
  });
});
