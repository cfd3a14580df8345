/**
 * The dynamic provider behind `Task` (`task.ts`). The API can create a task and nothing else: no
 * read, no update, no delete. So every input change is a replacement (a new task), refresh keeps
 * the stored state, and delete only forgets the task — which keeps running on the service. Both
 * the replacement (at preview and up) and the delete say so, naming the task id.
 */
import type { Task } from "../client";
import { CreateTaskBody, uuid } from "../client/schemas";
import { checkRecurrence, validateRecurrence } from "../client/rrule";
import { requireId } from "../omitted-id";
import { UNKNOWN, apiClient, checkField, checkRequired, cleanInputs, currentSettings, warn, type CheckFailure } from "./common";

export { configure } from "./common";

export interface TaskInputs {
  projectId: string;
  title: string;
  prompt: string;
  scheduledAt: string;
  rrule?: string;
  emoji?: string;
}

export interface TaskOutputs extends TaskInputs {
  nextRunAt: string | null;
  createdAt: string | null;
  updatedAt: string | null;
}

export const TASK_INPUT_KEYS = ["projectId", "title", "prompt", "scheduledAt", "rrule", "emoji"] as const;

export async function check(_olds: unknown, news: Record<string, unknown>): Promise<{ inputs: TaskInputs; failures: CheckFailure[] }> {
  currentSettings();
  const failures: CheckFailure[] = [];
  const fields = CreateTaskBody.shape;
  for (const key of ["projectId", "title", "prompt", "scheduledAt"] as const) checkRequired(failures, key, news[key]);
  checkField(failures, "projectId", uuid, news.projectId);
  checkField(failures, "title", fields.title, news.title);
  checkField(failures, "prompt", fields.prompt, news.prompt);
  checkField(failures, "scheduledAt", fields.scheduledAt, news.scheduledAt);
  checkField(failures, "emoji", fields.emoji, news.emoji);
  checkField(failures, "rrule", fields.rrule, news.rrule);
  // Needs both values known and each valid on its own: is any occurrence reachable from scheduledAt?
  const { rrule, scheduledAt } = news;
  if (typeof rrule === "string" && rrule !== UNKNOWN && typeof scheduledAt === "string" && scheduledAt !== UNKNOWN
    && validateRecurrence(rrule) === undefined && fields.scheduledAt.safeParse(scheduledAt).success) {
    const problem = checkRecurrence(rrule, scheduledAt);
    if (problem) failures.push({ property: "rrule", reason: `rrule ${problem}` });
  }
  return { inputs: cleanInputs<TaskInputs>(news, TASK_INPUT_KEYS) as TaskInputs, failures };
}

/** Any change replaces the task; the old one cannot be removed from the service, so say which. */
export async function diff(id: string, olds: TaskOutputs, news: Record<string, unknown>) {
  const desired = cleanInputs<TaskInputs>(news, TASK_INPUT_KEYS);
  const replaces = TASK_INPUT_KEYS.filter((k) => desired[k] !== olds[k]);
  if (replaces.length > 0) {
    warn(`Task ${id} (${JSON.stringify(olds.title)}) will be replaced because ${replaces.join(", ")} changed. Tasks cannot be changed ` +
      `or deleted through the API: task ${id} keeps running on the service beside the new task.`);
  }
  return { changes: replaces.length > 0, replaces, deleteBeforeReplace: false };
}

export async function create(inputs: TaskInputs) {
  const desired = cleanInputs<TaskInputs>(inputs as unknown as Record<string, unknown>, TASK_INPUT_KEYS) as TaskInputs;
  let task: Task;
  try {
    task = await apiClient().createTask(desired);
  } catch (error) {
    if (!(error as { mayHaveSucceeded?: boolean }).mayHaveSucceeded) throw error;
    throw new Error(`${(error as Error).message} Tasks cannot be listed or deleted through the API: check the service for a task ` +
      `titled ${JSON.stringify(desired.title)} before running \`pulumi up\` again, which would create another one.`, { cause: error });
  }
  const { id } = requireId(task, "tasks.create", "task", "Pulumi needs it as the resource id, so the task is not in this stack, " +
    "but it was created: check the service before running `pulumi up` again, which would create another one.");
  return { id, outs: outputs(task, desired) };
}

/** Never reached through `diff` (every change replaces); kept so a forced update cannot erase the outputs. */
export async function update(_id: string, olds: TaskOutputs) {
  return { outs: olds };
}

/** The API cannot read a task: the stored state is the best knowledge there is. */
export async function read(id: string, props: TaskOutputs) {
  return { id, props };
}

export async function remove(id: string, props: TaskOutputs): Promise<void> {
  const next = props.nextRunAt ? ` (next run ${props.nextRunAt})` : "";
  warn(`Task ${id} (${JSON.stringify(props.title)}) was removed from the stack only. The API cannot delete tasks: ` +
    `it keeps running on the service${next}; remove it there if it should stop.`);
}
export { remove as delete };

function outputs(task: Task, desired: TaskInputs): TaskOutputs {
  // Input values are kept as declared (not as echoed) so a server that normalizes them cannot cause a replacement.
  return {
    ...desired,
    nextRunAt: task.nextRunAt ?? null,
    createdAt: task.createdAt ?? null,
    updatedAt: task.updatedAt ?? null,
  };
}
