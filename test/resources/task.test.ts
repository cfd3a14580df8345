/**
 * The Task lifecycle called as a face calls it (`withDefaults`), on a fresh context: every change replaces (the old task keeps
 * running, and the warning says which), adoption records a task on trust with no request, and a
 * schedule that would never run is refused before any request.
 */
import { describe, expect, it } from "vitest";
import { task as lifecycle } from "../../provider/resources/task";
import { withDefaults } from "../../provider/resources/with-defaults";
import { DEFAULT_IDS } from "../../simulator/seed";
import { NULL_TASK_OUTPUTS } from "../helpers";
import { harness } from "./harness";
import { daysAhead } from "../support/time";

const task = withDefaults(lifecycle);
const name = "weekly";
const inputs = {
  projectId: DEFAULT_IDS.acmeWeb,
  title: "Weekly",
  prompt: "Summarize",
  scheduledAt: daysAhead(365),
  rrule: "FREQ=WEEKLY;BYDAY=MO",
};

describe("Task lifecycle", () => {
  it("create sends the body; every change is a replacement, naming the task that keeps running", async () => {
    const { ctx, sim, bodies, messages } = await harness();
    const { id, outs } = await task.create(ctx, { name, inputs });
    expect(bodies()).toEqual([inputs]);
    expect(await task.diff(ctx, { name, id, olds: outs, news: inputs })).toEqual({
      changes: false,
      replaces: [],
      changed: [],
      deleteBeforeReplace: false,
    });
    expect(await task.diff(ctx, { name, id, olds: outs, news: { ...inputs, rrule: "FREQ=DAILY", emoji: "📈" } })).toEqual({
      changes: true,
      replaces: ["rrule", "emoji"],
      changed: ["rrule", "emoji"],
      deleteBeforeReplace: false,
    });
    expect(messages.at(-1)!.message).toBe(
      `serviceapi: Task "weekly" (id ${id}) will be replaced because rrule, emoji changed. Tasks cannot be ` +
        `changed or deleted through the API: task ${id} keeps running on the service beside the new task.`,
    );
    await task.remove(ctx, { name, id, state: outs });
    expect(sim.requests()).toHaveLength(1);
  });

  it("adoptId records an existing task with no request; removing it later changes nothing", async () => {
    const { ctx, sim, messages } = await harness();
    const id = "7a8b91c2-0000-4000-8000-000000000001";
    const adopted = await task.create(ctx, { name, inputs: { ...inputs, adoptId: id } });
    expect(adopted).toEqual({
      id,
      outs: { ...inputs, adoptId: id, ...NULL_TASK_OUTPUTS },
    });
    expect(messages.at(-1)!.message).toBe(
      `serviceapi: adopted Task "weekly" (id ${id}): recorded as the program declares it; nothing sent (the API cannot read tasks).`,
    );
    expect(await task.diff(ctx, { name, id, olds: adopted.outs, news: inputs })).toEqual({
      changes: true,
      replaces: [],
      changed: ["adoptId"],
      deleteBeforeReplace: false,
    });
    expect((await task.update(ctx, { name, id, olds: adopted.outs, news: inputs })).outs).not.toHaveProperty("adoptId");
    expect(sim.requests()).toEqual([]);
  });

  it("check refuses an rrule that never reaches an occurrence, and a one-off in the past, before any request", async () => {
    const { ctx, sim } = await harness();
    const never = await task.check(ctx, { name, olds: {}, news: { ...inputs, rrule: "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30" } });
    expect(never.failures.map((f) => f.reason)).toEqual([
      "rrule is not a valid RRULE: no date matches its BYMONTH and BYMONTHDAY together, so it has no occurrence",
    ]);
    const { rrule: _rrule, ...oneOff } = inputs;
    const past = await task.check(ctx, { name, olds: {}, news: { ...oneOff, scheduledAt: "2020-01-01T00:00:00Z" } });
    expect(past.failures.map((f) => f.reason)).toEqual([
      "scheduledAt is in the past, so a one-off task would never run; choose a future time, or add an rrule",
    ]);
    expect(sim.requests()).toEqual([]);
  });
});
