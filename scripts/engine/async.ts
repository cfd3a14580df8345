/**
 * Waiting in tests, for what happens and not for a time: a condition coming true, a promise
 * rejecting. The one copy of each, for the unit tests (through test/helpers.ts) and the engine
 * driver alike.
 */
import { setTimeout as sleep } from "node:timers/promises";

/**
 * Resolves once `condition` holds; fails naming `what` after `timeoutMs`. A condition is about what
 * this process sees (a simulator it runs, output a child process pipes to it), which changes only
 * when it handles I/O: checking every few milliseconds between those turns waits for that event.
 */
export async function until(what: string, condition: () => boolean, timeoutMs = 120_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(5);
  }
}

/**
 * What a promise rejected with — an instance of `type`, if given; fails the test if it fulfilled
 * (or rejected with something else). The one rejection helper of the suite.
 */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error & Record<string, unknown>>;
export async function rejectionOf<E extends Error>(promise: Promise<unknown>, type: abstract new (...args: never[]) => E): Promise<E>;
export async function rejectionOf(promise: Promise<unknown>, type?: abstract new (...args: never[]) => Error): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    if (type !== undefined && !(error instanceof type)) throw new Error(`expected a ${type.name}, got ${String(error)}`, { cause: error });
    return error;
  }
  throw new Error("expected the promise to reject, but it fulfilled");
}
