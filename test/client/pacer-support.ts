/**
 * What the pacer tests share (shared-pacer.test.ts: processes of one runner; stored-pacer.test.ts:
 * runners through a store): a rate-limited simulator on a scaled-down clock, and a shared pacer
 * closed when the test ends.
 */
import { onTestFinished } from "vitest";
import { startSharedPacer, type SharedPacer } from "../../provider/client/shared-pacer";
import { ScaledClock, simulator } from "../helpers";

/**
 * A simulator limited to 3 requests per 2 s, on a clock `factor` times fast: at 10 a window is 200 ms
 * of real time, far above loopback jitter; 5 leaves twice the room where every request counts.
 */
export async function limited(factor = 10) {
  const clock = new ScaledClock(factor);
  const sim = await simulator({ clock });
  sim.setRateLimit({ limit: 3, windowMs: 2000 });
  return { clock, sim };
}

/** A shared pacer, closed when the test ends. */
export async function sharedPacer(options: Parameters<typeof startSharedPacer>[0] = {}): Promise<SharedPacer> {
  const pacer = await startSharedPacer(options);
  onTestFinished(() => pacer.close());
  return pacer;
}
