import { afterAll } from "vitest";
import { startSimulator, type Simulator, type SimulatorOptions } from "../../simulator";

/** A simulator that lives for the whole describe block (the engine runs several commands against it). */
export async function simulatorForSuite(options: SimulatorOptions = {}): Promise<Simulator> {
  const sim = await startSimulator({ port: 0, ...options });
  afterAll(() => sim.close());
  return sim;
}
