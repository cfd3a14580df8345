/**
 * The simulator's time. Every time it reads — rate-limit windows, `createdAt`/`updatedAt`, a task's
 * `nextRunAt`, the request log — comes from one `SimulatorClock`, so a test can run it at a chosen
 * instant or scaled down (`startSimulator({ clock })`) instead of waiting for real time to pass.
 */
export interface SimulatorClock {
  /**
   * Milliseconds since the epoch, as `Date.now()`. Named as the client's `Clock.date()`, so one test
   * clock can drive both the client and the simulator.
   */
  date(): number;
}

export const SYSTEM_CLOCK: SimulatorClock = { date: () => Date.now() };
