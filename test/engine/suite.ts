import { afterAll, afterEach } from "vitest";
import { startSimulator, type Simulator, type SimulatorOptions } from "../../simulator";
import { EngineStack } from "./harness";

/** A simulator that lives for the whole describe block (the engine runs several commands against it). */
export async function simulatorForSuite(options: SimulatorOptions = {}): Promise<Simulator> {
  const sim = await startSimulator({ port: 0, ...options });
  afterAll(() => sim.close());
  return sim;
}

/**
 * A fresh stack per test: returns a function that creates one; after each test it is disposed and
 * the simulator's faults and rate limit are cleared.
 */
export function stackPerTest(sim: () => Simulator): (options?: Parameters<typeof EngineStack.create>[1]) => Promise<EngineStack> {
  let current: EngineStack | undefined;
  afterEach(async () => {
    sim().clearFaults();
    sim().setRateLimit(undefined);
    await current?.dispose();
    current = undefined;
  });
  return async (options) => (current = await EngineStack.create(sim(), options));
}
