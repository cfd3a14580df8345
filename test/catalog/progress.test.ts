/**
 * The progress of a long run (`progress.ts`), on a clock the test moves: without a terminal, a plain
 * line at once and then one every 10 s, none in between; each record counted once however many of its
 * steps finish; a finished stack's records all done; the rate from the pacer's answered requests;
 * nothing after `stop`. On a terminal (a stream that says it is one), the live line is drawn with the
 * counts and the lines said meanwhile go above it. Through a real pseudo-terminal and a pipe with the
 * real CLI: test/engine/catalog-cli-processes.test.ts.
 */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { PLAIN_EVERY_MS, PLANNING_NOTICE_MS, planningNotice, Progress, progressLine } from "../../provider/catalog/progress";
import { VirtualClock } from "../helpers";

/** Lets the progress's sleeps that are due run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("progress of a long run", () => {
  it("words the counts, the rate and the time left", () => {
    const counts = { records: { done: 0, total: 10_000 }, stacks: { done: 0, total: 59 }, requests: 0, refused: 0 };
    expect(progressLine("up", counts, 1500)).toBe("up: 0/10,000 records, 0/59 stacks, 0.0 requests/s, 0 refused, time left not known yet");
    expect(progressLine("up", { ...counts, records: { done: 1234, total: 10_000 }, requests: 3700, refused: 2 }, 200_000)).toBe(
      "up: 1,234/10,000 records, 0/59 stacks, 18.5 requests/s, 2 refused, about 24 min left",
    );
    expect(progressLine("drift", { ...counts, records: { done: 9990, total: 10_000 } }, 100_000)).toBe(
      "drift: 9,990/10,000 records, 0/59 stacks, 0.0 requests/s, 0 refused, about 1 s left",
    );
    expect(progressLine("destroy", { ...counts, records: { done: 10_000, total: 10_000 } }, 100_000)).toMatch(/, finishing$/);
  });

  it("without a terminal: a line at once, then one every 10 s of the clock, each record once, nothing after stop", async () => {
    const clock = new VirtualClock({ advance: "by-test" });
    const lines: string[] = [];
    const requests = { answered: 0, refused: 0 };
    const progress = new Progress({
      command: "up",
      stacks: [
        { name: "a", records: 3 },
        { name: "b", records: 2 },
      ],
      requests: () => requests,
      err: (line) => lines.push(line),
      clock,
    });
    expect(lines).toEqual(["up: 0/5 records, 0/2 stacks, 0.0 requests/s, 0 refused, time left not known yet"]);
    // A refresh and the update after it are steps of one record.
    progress.record("a", "urn:a1");
    progress.record("a", "urn:a1");
    progress.record("a", "urn:a2");
    requests.answered = 40;
    requests.refused = 1;
    clock.advance(PLAIN_EVERY_MS - 1);
    await settle();
    expect(lines).toHaveLength(1);
    clock.advance(1);
    await settle();
    expect(lines.at(-1)).toBe("up: 2/5 records, 0/2 stacks, 4.0 requests/s, 1 refused, about 15 s left");
    progress.say("a: ok (10.0 s)");
    progress.stackDone("a");
    clock.advance(PLAIN_EVERY_MS);
    await settle();
    expect(lines.slice(2)).toEqual(["a: ok (10.0 s)", "up: 3/5 records, 1/2 stacks, 2.0 requests/s, 1 refused, about 14 s left"]);
    progress.stop();
    clock.advance(PLAIN_EVERY_MS * 3);
    await settle();
    expect(lines).toHaveLength(4);
  });

  it("on a terminal: the live line drawn with the counts, a line said meanwhile above it and drawn before the end", async () => {
    const terminal = Object.assign(new PassThrough(), { isTTY: true, columns: 200, cursorTo: () => true, clearLine: () => true });
    let drawn = "";
    terminal.on("data", (chunk: Buffer) => (drawn += chunk.toString()));
    const lines: string[] = [];
    const progress = new Progress({
      command: "preview",
      stacks: [{ name: "a", records: 2 }],
      requests: () => ({ answered: 0, refused: 0 }),
      err: (line) => lines.push(line),
      terminal: terminal as unknown as NodeJS.WriteStream,
      clock: new VirtualClock({ advance: "by-test" }),
    });
    progress.record("a", "urn:a1");
    progress.say("a: ok (1.0 s)");
    progress.stackDone("a");
    progress.stop();
    await settle();
    // Nothing goes to the plain lines: everything was drawn on the terminal.
    expect(lines).toEqual([]);
    expect(drawn).toContain("a: ok (1.0 s)\n");
    expect(drawn).toContain("preview: 2/2 records, 1/1 stacks");
  });

  it("planning said once if it takes longer than a second, and not at all when the stacks start sooner", async () => {
    const clock = new VirtualClock({ advance: "by-test" });
    const lines: string[] = [];
    const slow = planningNotice("preview", (line) => lines.push(line), clock);
    const quick = planningNotice("up", (line) => lines.push(line), clock);
    clock.advance(PLANNING_NOTICE_MS - 1);
    await settle();
    expect(lines).toEqual([]);
    quick();
    clock.advance(1);
    await settle();
    expect(lines).toEqual(["preview: planning — reading the catalog, the stacks' states and the service's projects"]);
    slow();
    clock.advance(PLANNING_NOTICE_MS * 5);
    await settle();
    expect(lines).toHaveLength(1);
  });
});
