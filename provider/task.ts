/**
 * `Task`: a scheduled prompt. The API can only create tasks, so every change replaces the task and
 * removing it only forgets it — the old task keeps running on the service, and preview and up say
 * so. The engine talks to `lifecycle/task.ts`; this file is the typed surface.
 */
import * as pulumi from "@pulumi/pulumi";
import * as lifecycle from "./lifecycle/task";
import { resourceProps } from "./resource-props";

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
  /**
   * When the service will run the task next, as it reported at create. Derived from `scheduledAt`
   * and `rrule`, so it is stored as a secret whenever either is given as an Output (which may be a
   * secret: that cannot be known before the resource is registered).
   */
  declare readonly nextRunAt: pulumi.Output<string | null>;
  declare readonly createdAt: pulumi.Output<string | null>;
  declare readonly updatedAt: pulumi.Output<string | null>;

  constructor(name: string, args: TaskArgs, opts?: pulumi.CustomResourceOptions) {
    const derivedFromOutputs = [args.scheduledAt, args.rrule].some((v) => pulumi.Output.isInstance(v) || v instanceof Promise);
    const options = derivedFromOutputs ? { ...opts, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), "nextRunAt"] } : opts;
    super(lifecycle, name, resourceProps("Task", name, args, lifecycle.TASK_OUTPUTS, opts), options, "serviceapi", "Task");
  }
}
