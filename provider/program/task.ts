/**
 * `Task`: a scheduled prompt. The API can only create tasks, so every change replaces the task and
 * removing it only forgets it — the old task keeps running on the service, and preview and up say
 * so. The lifecycle is `resources/task.ts`; the engine reaches it through `dynamic/task.ts`; this
 * file is the typed surface: `TaskArgs` and the outputs are the lifecycle's own types.
 */
import * as pulumi from "@pulumi/pulumi";
import * as provider from "../dynamic/task";
import { TASK_FIELDS, type TaskInputs, type TaskOutputs } from "../resources/task";
import { ServiceApiResource } from "./dynamic-resource";
import type { ResourceArgs, ResourceOutputs } from "./resource-props";

export type TaskArgs = ResourceArgs<TaskInputs>;

// The outputs (the inputs, and nextRunAt, createdAt, updatedAt as reported at create), typed from
// the lifecycle's `TaskOutputs`; the SDK sets each on the instance. `nextRunAt` is derived from
// `scheduledAt` and `rrule`, so it is stored as a secret whenever either is given as an Output
// (which may be a secret: that cannot be known before the resource is registered).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- the SDK defines these properties at run time
export interface Task extends ResourceOutputs<TaskOutputs> {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class Task extends ServiceApiResource<TaskInputs> {
  constructor(name: string, args: TaskArgs, opts?: pulumi.CustomResourceOptions) {
    super(provider, "Task", TASK_FIELDS, name, args, opts, withSecretNextRunAt(args, opts));
  }
}

/** `opts`, with `nextRunAt` a secret output when `scheduledAt` or `rrule` is an Output (see the interface above). */
function withSecretNextRunAt(args: TaskArgs, opts: pulumi.CustomResourceOptions | undefined): pulumi.CustomResourceOptions | undefined {
  const derivedFromOutputs = [args.scheduledAt, args.rrule].some((v) => pulumi.Output.isInstance(v) || v instanceof Promise);
  return derivedFromOutputs ? { ...opts, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), "nextRunAt"] } : opts;
}
