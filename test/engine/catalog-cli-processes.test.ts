/**
 * The `pulumi` processes a catalog run starts for each stack, read from a `pulumi` on PATH that
 * writes down its arguments and runs the real CLI. Every process costs a runner its start and a
 * read of the backend, and some read a whole stack's state: at 10,000 products in 58 stacks they
 * were most of what the tool cost above its floor (docs/scale.md).
 *
 * A first `up` runs `stack init` and `up` for each new stack — no `stack select` that fails first,
 * and none of the reads the Automation API makes after an `up` to fill in a result the tool does
 * not use (`stack output` twice, `stack history`). A second `up` runs `up` alone for each stack it
 * found in the backend: no `stack select` to look it up again. Each `up` is handed the tool's own
 * address for the stack's program (`--client`): no language host, no program process.
 *
 * The same runs show the progress (issue 46): through a pipe, plain lines, the first at once; on a
 * pseudo-terminal, one live line drawn in place, each stack's line above it, the report on stdout.
 */
import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { simulator } from "../helpers";
import { ENGINE_TIMEOUT_MS, WORK, pulumiCli } from "../../scripts/engine/driver";
import { BIN, userWithCatalog, withoutPlanning } from "./catalog-support";

const FILES = ["a", "b"];
const PER_FILE = 3;

/** Each logged `pulumi` command by its verbs (no flags, no stack names), e.g. `stack init`, `up`. */
function verbs(line: string): string {
  const words = line.split(" ").filter((w) => w !== "" && !w.startsWith("-"));
  return words.slice(0, words[0] === "stack" ? 2 : 1).join(" ");
}

/** How many times each verb ran, for the commands naming `stack`. */
function perStack(lines: string[], stack: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of lines.filter((l) => l.split(" ").some((w) => w === stack || w.endsWith(`/${stack}`)))) {
    counts[verbs(line)] = (counts[verbs(line)] ?? 0) + 1;
  }
  return counts;
}

describe("the pulumi processes of a catalog run", { timeout: ENGINE_TIMEOUT_MS }, () => {
  beforeAll(async () => {
    await pulumiCli();
  }, 30 * 60_000);

  it("a first up: per stack, the policies' preview (a throw-away backend), then stack init and up; a second up: preview and up; the progress through a pipe and on a terminal", async () => {
    const sim = await simulator();
    const user = await userWithCatalog(sim, FILES, PER_FILE);

    // A `pulumi` first on PATH that writes its arguments down and runs the real one.
    const { bin } = await pulumiCli();
    const wrapper = mkdtempSync(join(WORK, "pulumi-wrapper-"));
    const log = join(wrapper, "commands.log");
    writeFileSync(log, "");
    writeFileSync(join(wrapper, "pulumi"), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${join(bin, "pulumi")}' "$@"\n`);
    chmodSync(join(wrapper, "pulumi"), 0o755);
    const env = { PATH: `${wrapper}:${user.env.PATH}` };
    const commands = () => readFileSync(log, "utf8").split("\n").filter(Boolean);

    const before = sim.counts().products;
    const first = await user.tool(["up"], env);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    // Through a pipe (no terminal), the progress is plain lines, the first at once (docs/catalog.md, "Progress"):
    // the preview an up runs for its policies first (docs/policies.md), then the up's own.
    const lines = withoutPlanning(first.stderr, "up").split("\n");
    expect(lines[0]).toBe("up, its preview for the policies: 0/6 records, 0/2 stacks, 0.0 requests/s, 0 refused, time left not known yet");
    expect(lines).toContain("up: 0/6 records, 0/2 stacks, 0.0 requests/s, 0 refused, time left not known yet");
    expect(sim.counts().products - before).toBe(FILES.length * PER_FILE);
    const stacks = FILES.map((f) => `catalog-${f}.all`);
    expect(user.stacks()).toEqual(stacks);
    const firstRun = commands();
    // The policies' preview of a stack not made yet runs in a throw-away backend (its own stack init), then the up.
    for (const stack of stacks) expect(perStack(firstRun, stack), firstRun.join("\n")).toEqual({ "stack init": 2, preview: 1, up: 1 });
    // Each stack's program runs in the tool's process (an inline program): the CLI is handed its address, so it starts
    // no language host and no Node.js program process of its own.
    const ups = firstRun.filter((line) => verbs(line) === "up");
    expect(ups).toHaveLength(stacks.length);
    for (const line of ups) expect(line).toMatch(/ --client=127\.0\.0\.1:\d+( |$)/);

    writeFileSync(log, "");
    const second = await user.tool(["up"], env);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(sim.counts().products - before).toBe(FILES.length * PER_FILE);
    const secondRun = commands();
    for (const stack of stacks) expect(perStack(secondRun, stack), secondRun.join("\n")).toEqual({ preview: 1, up: 1 });

    // On a terminal (a pseudo-terminal from util-linux's `script`), one live line: drawn with the counts up to the end,
    // each stack's line above it, and cleared before the report, which goes to stdout as ever.
    const report = join(wrapper, "report.txt");
    const quote = (word: string) => `'${word.replace(/'/g, "'\\''")}'`;
    // Not spawnSync: the simulator answers from this process.
    const script = spawn("script", ["-qec", `${quote(process.execPath)} ${quote(BIN)} preview > ${quote(report)}`, "/dev/null"], {
      cwd: user.repo,
      env: { ...user.env, ...env },
    });
    const tty = { stdout: "", stderr: "", status: null as number | null };
    script.stdout.on("data", (d: Buffer) => (tty.stdout += d.toString()));
    script.stderr.on("data", (d: Buffer) => (tty.stderr += d.toString()));
    tty.status = await new Promise<number | null>((resolve) => script.on("close", resolve));
    expect(tty.status, tty.stdout + tty.stderr).toBe(0);
    expect(tty.stdout).toContain("preview: 6/6 records, 2/2 stacks");
    for (const stack of stacks)
      expect(tty.stdout).toMatch(new RegExp(`\\r?\\n?${stack.replace(".", "\\.")}: ok \\(\\d+\\.\\d s\\)\\r?\\n`));
    // Drawn in place (cursor to column 1), and no plain progress line.
    expect(tty.stdout).toContain("\x1b[1G");
    expect(tty.stdout).not.toMatch(/\r?\npreview: 0\/6 records/);
    expect(readFileSync(report, "utf8")).toMatch(/^Total: 0 to create, 0 to adopt, 0 to update, 0 to replace, 0 to remove; /m);
  });
});
