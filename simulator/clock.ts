/**
 * The simulator's time. Every time it reads — rate-limit windows, `createdAt`/`updatedAt`, a task's
 * `nextRunAt`, the request log — comes from one `SimulatorClock`, so a test can run it at a chosen
 * instant or on a virtual clock (`startSimulator({ clock })`) instead of waiting for real time to pass.
 */
export interface SimulatorClock {
  /**
   * Milliseconds since the epoch, as `Date.now()`. Named as the client's `Clock.date()`, so one test
   * clock can drive both the client and the simulator.
   */
  date(): number;
  /**
   * Resolves after `ms` of this clock: a `delay` fault's wait. Optional: without it, the real time. Named
   * as the client's `Clock.sleep()`, so that a test clock also decides when a delayed request is answered.
   */
  sleep?(ms: number): Promise<void>;
}

export const SYSTEM_CLOCK: SimulatorClock = { date: () => Date.now() };
