/**
 * What the pacer tests share (shared-pacer.test.ts: processes of one runner; stored-pacer.test.ts:
 * runners through a store): a rate-limited simulator on a virtual clock, and a shared pacer closed
 * when the test ends.
 */
import { onTestFinished } from "vitest";
import { startSharedPacer, type SharedPacer } from "../../provider/client/shared-pacer";
import { VirtualClock, simulator } from "../helpers";

/**
 * A simulator limited to 3 requests per 2 s, on a `VirtualClock` the test gives to its clients and
 * pacers too: time passes only while they all wait for it, so which requests share a window is what
 * the clients and the pacer decided, never how fast the machine ran them.
 */
export async function limited() {
  const clock = new VirtualClock();
  const sim = await simulator({ clock });
  sim.setRateLimit({ limit: 3, windowMs: 2000 });
  return { clock, sim };
}

/**
 * A shared pacer, closed when the test ends. On a virtual clock, its time stands still while a report
 * or an attempt is on its way to it; the attempts it holds wait for that time, so they are not counted.
 */
export async function sharedPacer(options: Parameters<typeof startSharedPacer>[0] = {}): Promise<SharedPacer> {
  const pacer = await startSharedPacer(options);
  onTestFinished(() => pacer.close());
  if (options.clock instanceof VirtualClock) options.clock.watch(pacer.url, () => pacer.stats().waiting);
  return pacer;
}
