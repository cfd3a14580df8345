/**
 * `Task`: a scheduled prompt. The API can only create tasks, so every change replaces the task and
 * removing it only forgets it — the old task keeps running on the service, and preview and up say
 * so. The engine talks to `lifecycle/task.ts`; this file is the typed surface.
 */
import * as pulumi from "@pulumi/pulumi";
import * as lifecycle from "./lifecycle/task";

export interface TaskArgs {
  projectId: pulumi.Input<string>;
  /** Not empty. */
  title: pulumi.Input<string>;
  /** Not empty. */
  prompt: pulumi.Input<string>;
  /** RFC 3339 date-time with an offset, e.g. `2026-12-01T09:00:00Z`: the first run. */
  scheduledAt: pulumi.Input<string>;
  /** An RFC 5545 recurrence rule such as `FREQ=WEEKLY;BYDAY=MO`; checked before any request. */
  rrule?: pulumi.Input<string>;
  emoji?: pulumi.Input<string>;
}

export class Task extends pulumi.dynamic.Resource {
  declare readonly projectId: pulumi.Output<string>;
  declare readonly title: pulumi.Output<string>;
  declare readonly prompt: pulumi.Output<string>;
  declare readonly scheduledAt: pulumi.Output<string>;
  declare readonly rrule: pulumi.Output<string | undefined>;
  declare readonly emoji: pulumi.Output<string | undefined>;
  /** When the service will run the task next, as it reported at create. */
  declare readonly nextRunAt: pulumi.Output<string | null>;
  declare readonly createdAt: pulumi.Output<string | null>;
  declare readonly updatedAt: pulumi.Output<string | null>;

  constructor(name: string, args: TaskArgs, opts?: pulumi.CustomResourceOptions) {
    // Every output is listed (undefined when not given) so the resource gets an Output for each.
    const props = { rrule: undefined, emoji: undefined, ...args, nextRunAt: undefined, createdAt: undefined, updatedAt: undefined };
    super(lifecycle, name, props, opts, "serviceapi", "Task");
  }
}
