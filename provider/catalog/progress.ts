/**
 * Where a long run is (issue 46): records done / total, stacks done / total, requests per second,
 * refused, and time left, on stderr while the stacks run (and while `import` reads the products it
 * was given: records read / total, without stacks). On a terminal one live line, drawn by
 * cli-progress (a well-kept library, not escape codes of ours), with the lines the run says
 * meanwhile (a stack finished) printed above it; elsewhere (CI, a pipe) a plain line when the run
 * starts and then at most every 10 s, so a log shows it without drowning in it. `--json` gets none
 * (`run.ts` does not start it), and a closed stderr none (the tool's `err` writes nothing then).
 *
 * What it counts comes from the run, typed: each stack's engine events (a record is done once, the
 * first time a step of its own finishes: a refresh and its update are one record), the pool (stacks
 * done), and the shared pacer (requests answered, of them refused with 429). The words are made
 * here only (`progressLine`).
 */
import { MultiBar, type SingleBar } from "cli-progress";
import { SYSTEM_CLOCK, type Clock } from "../client";
import type { RunCommand } from "./stack-run";

/** A plain line at most this often (no terminal). */
export const PLAIN_EVERY_MS = 10_000;

/** A run still planning after this long says so: the first line within 2 s of the start, even at 10,000 products. */
export const PLANNING_NOTICE_MS = 1000;

/** The line a run still planning says. */
export function planningLine(command: RunCommand): string {
  return `${command}: planning — reading the catalog, the stacks' states and the service's projects`;
}

/**
 * Before the stacks run, the tool reads the catalog, every stack's state and the service's projects
 * (`plan --base` took 3.8 s at 10,000 products): said once if that takes longer than
 * `PLANNING_NOTICE_MS`, so a quick run or a refusal stays one line. Returns what cancels it.
 */
export function planningNotice(command: RunCommand, err: (text: string) => void, clock: Clock = SYSTEM_CLOCK): () => void {
  const done = new AbortController();
  clock.sleep(PLANNING_NOTICE_MS, done.signal).then(
    () => err(planningLine(command)),
    () => undefined,
  );
  return () => done.abort();
}

/** The commands that show progress: those that run stacks, and `import`. */
export type ProgressCommand = RunCommand | "import";

export interface ProgressCounts {
  records: { done: number; total: number };
  /** None for a command that runs no stacks (`import`). */
  stacks?: { done: number; total: number };
  /** Requests answered so far (the shared pacer's reports), and of them refused with 429. */
  requests: number;
  refused: number;
}

const number = new Intl.NumberFormat("en-US");

/** The progress in words, e.g. `up: 1,234/10,000 records, 3/59 stacks, 18.5 requests/s, 2 refused, about 4 min left`. */
export function progressLine(
  command: ProgressCommand | "up, its preview for the policies",
  counts: ProgressCounts,
  elapsedMs: number,
): string {
  const { records, stacks } = counts;
  const rate = elapsedMs > 0 ? (counts.requests * 1000) / elapsedMs : 0;
  return (
    `${command}: ${number.format(records.done)}/${number.format(records.total)} records, ` +
    (stacks === undefined ? "" : `${stacks.done}/${stacks.total} stacks, `) +
    `${rate.toFixed(1)} requests/s, ${number.format(counts.refused)} refused, ` +
    timeLeft(records, elapsedMs)
  );
}

/** From the pace so far; unknown until a record is done (the first seconds are the CLI starting). */
function timeLeft({ done, total }: { done: number; total: number }, elapsedMs: number): string {
  if (done >= total) return "finishing";
  if (done === 0) return "time left not known yet";
  const seconds = Math.ceil(((elapsedMs / done) * (total - done)) / 1000);
  if (seconds < 60) return `about ${seconds} s left`;
  const minutes = Math.round(seconds / 60);
  return minutes < 120 ? `about ${minutes} min left` : `about ${Math.round(minutes / 60)} h left`;
}

export interface ProgressOptions {
  command: ProgressCommand;
  /** The preview an up runs for its policies first: its line says so, apart from the up's own. */
  policyCheck?: boolean;
  /** Each stack to run, with its number of records (`import`: one group, the products it reads, with `countStacks: false`). */
  stacks: { name: string; records: number }[];
  /** False: the line counts records only (a command that runs no stacks). */
  countStacks?: boolean;
  /** The shared pacer's counts so far. */
  requests: () => { answered: number; refused: number };
  /** Plain lines go here (the tool's stderr). */
  err: (text: string) => void;
  /** stderr when it is a terminal: the live line is drawn there. */
  terminal?: NodeJS.WriteStream;
  clock?: Clock;
}

export class Progress {
  readonly #options: ProgressOptions;
  readonly #clock: Clock;
  readonly #started: number;
  readonly #total: number;
  /** Per stack, the records it has done (each once) — capped at its size. */
  readonly #seen = new Map<string, Set<string>>();
  readonly #size: Map<string, number>;
  /** Stacks finished, whatever their outcome: all their records count as done. */
  readonly #finished = new Set<string>();
  readonly #stopped = new AbortController();
  #bars: MultiBar | undefined;
  #bar: SingleBar | undefined;

  constructor(options: ProgressOptions) {
    this.#options = options;
    this.#clock = options.clock ?? SYSTEM_CLOCK;
    this.#started = this.#clock.now();
    this.#size = new Map(options.stacks.map((s) => [s.name, s.records]));
    this.#total = options.stacks.reduce((n, s) => n + s.records, 0);
    if (options.terminal !== undefined) {
      this.#bars = new MultiBar({
        stream: options.terminal,
        format: "{bar} {line}",
        barsize: 20,
        // Not hidden: a killed run would leave the user's terminal without a cursor.
        hideCursor: false,
        clearOnComplete: true,
        // The live line redraws itself; a plain log line goes above it (`say`).
        linewrap: false,
        fps: 5,
        // The tool's own handlers cancel the run on a signal; the line is cleared on the way out (`stop`).
        gracefulExit: false,
      });
      this.#bar = this.#bars.create(Math.max(this.#total, 1), 0, { line: this.line() });
      // The rate and the time left move between events too.
      void this.#every(1000, () => this.#update());
    } else {
      options.err(this.line());
      void this.#every(PLAIN_EVERY_MS, () => options.err(this.line()));
    }
  }

  /** Calls `tick` every `ms` of the clock until `stop`. */
  async #every(ms: number, tick: () => void): Promise<void> {
    const { signal } = this.#stopped;
    while (!signal.aborted) {
      try {
        await this.#clock.sleep(ms, signal);
      } catch {
        return;
      }
      tick();
    }
  }

  /** The line as it stands now. */
  line(): string {
    const { answered, refused } = this.#options.requests();
    return progressLine(
      this.#options.policyCheck === true ? "up, its preview for the policies" : this.#options.command,
      {
        records: { done: this.#done(), total: this.#total },
        ...(this.#options.countStacks !== false && { stacks: { done: this.#finished.size, total: this.#options.stacks.length } }),
        requests: answered,
        refused,
      },
      this.#clock.now() - this.#started,
    );
  }

  /**
   * A record of `stack` had a step finish (its URN: counted once). Only counted: an event of 10,000
   * is no time to word a line; the live line is redrawn every second, the plain one every 10 s.
   */
  record(stack: string, urn: string): void {
    let seen = this.#seen.get(stack);
    if (seen === undefined) this.#seen.set(stack, (seen = new Set()));
    seen.add(urn);
  }

  /** `stack` finished (whatever its outcome): its records all count as done. */
  stackDone(stack: string): void {
    this.#finished.add(stack);
  }

  /** A line the run says meanwhile: above the live line on a terminal, else as it is. */
  say(text: string): void {
    if (this.#bars !== undefined) this.#bars.log(`${text}\n`);
    else this.#options.err(text);
  }

  /** Ends it: the live line cleared (the report follows), the plain lines stopped. */
  stop(): void {
    this.#stopped.abort();
    // Drawn once more first, as it stands: lines said since the last redraw wait in cli-progress's buffer until then.
    this.#update();
    this.#bars?.update();
    this.#bars?.stop();
    this.#bars = undefined;
  }

  #done(): number {
    let done = 0;
    for (const [stack, size] of this.#size) done += this.#finished.has(stack) ? size : Math.min(this.#seen.get(stack)?.size ?? 0, size);
    return done;
  }

  #update(): void {
    this.#bar?.update(this.#done(), { line: this.line() });
  }
}
