/**
 * `Task`: a scheduled prompt. The API can only create tasks, so every change replaces the task and
 * removing it only forgets it — the old task keeps running on the service, and preview and up say
 * so. The lifecycle is `lifecycle/task.ts`; the engine reaches it through `dynamic/task.ts`; this
 * file is the typed surface.
 */
import * as pulumi from "@pulumi/pulumi";
import * as provider from "./dynamic/task";
import { TASK_OUTPUTS, type TaskInputs } from "./lifecycle/task";
import { resourceProps, type ResourceArgs } from "./resource-props";

export type TaskArgs = ResourceArgs<TaskInputs>;

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
    super(provider, name, resourceProps("Task", name, args, TASK_OUTPUTS, opts), options, "serviceapi", "Task");
  }
}
