/**
 * The dynamic provider behind `Task` (`task.ts`). The API can create a task and nothing else: no
 * read, no update, no delete. So every input change is a replacement (a new task), refresh keeps
 * the stored state, and delete only forgets the task — which keeps running on the service. Both
 * the replacement (at preview and up) and the delete say so, naming the task id.
 */
import type { Task } from "../client";
import { CreateTaskBody, uuid } from "../client/schemas";
import { nextRun, validateRecurrence } from "../client/rrule";
import { requireId } from "../omitted-id";
import { Failures, checkField, checkKnownKeys, checkRequired } from "./checks";
import { NAME_KEY, UNKNOWN, apiClient, cleanInputs, currentSettings, label, logCreated, warn, type Named } from "./common";
import { userFacing, withAuthHint, withHint } from "./errors";

export { configure } from "./common";

export interface TaskInputs {
  projectId: string;
  title: string;
  prompt: string;
  scheduledAt: string;
  rrule?: string;
  emoji?: string;
}

export interface TaskOutputs extends TaskInputs, Named {
  nextRunAt: string | null;
  createdAt: string | null;
  updatedAt: string | null;
}

export const TASK_INPUT_KEYS = ["projectId", "title", "prompt", "scheduledAt", "rrule", "emoji"] as const;
const OUTPUT_ONLY = ["nextRunAt", "createdAt", "updatedAt"] as const;
/** Every property of the resource, for the resource class. */
export const TASK_OUTPUTS = [...TASK_INPUT_KEYS, ...OUTPUT_ONLY] as const;

export const check = userFacing(async (olds: Record<string, unknown>, news: Record<string, unknown>) => {
  currentSettings();
  const failures = new Failures();
  const fields = CreateTaskBody.shape;
  checkKnownKeys(failures, "Task", news, TASK_INPUT_KEYS, OUTPUT_ONLY);
  checkRequired(failures, "projectId", uuid, news.projectId);
  checkRequired(failures, "title", fields.title, news.title);
  checkRequired(failures, "prompt", fields.prompt, news.prompt);
  checkRequired(failures, "scheduledAt", fields.scheduledAt, news.scheduledAt);
  checkField(failures, "emoji", fields.emoji, news.emoji);
  checkField(failures, "rrule", fields.rrule, news.rrule);
  if (failures.list.length === 0 && willCreate(olds, news)) checkSchedule(failures, news.scheduledAt, news.rrule);
  return { inputs: cleanInputs<TaskInputs>(news, TASK_INPUT_KEYS), failures: failures.list };
});

/**
 * Every change replaces a task, so a task is created when there is no old one or any input
 * differs. Only then do the time-dependent checks apply: a series that has ended since the task
 * was created must not fail every later preview of a stack that does not touch it.
 */
function willCreate(olds: Record<string, unknown>, news: Record<string, unknown>): boolean {
  return TASK_INPUT_KEYS.some((key) => (olds[key] ?? null) !== (news[key] ?? null));
}

/** The service's own rule (`nextRun`), applied now: a task that would never run is refused at preview. */
function checkSchedule(failures: Failures, scheduledAt: unknown, rrule: unknown): void {
  if (typeof scheduledAt !== "string" || scheduledAt === UNKNOWN || rrule === UNKNOWN) return;
  if (typeof rrule === "string" && validateRecurrence(rrule) !== undefined) return;
  const now = new Date();
  const next = nextRun(scheduledAt, rrule as string | undefined, now);
  if (!next.ok) {
    failures.add(next.field, next.problem);
    return;
  }
  if (rrule === undefined && new Date(next.nextRunAt) < now) {
    failures.add("scheduledAt", "is in the past, so a one-off task would never run; choose a future time, or add an rrule");
  }
}

/** Any change replaces the task; the old one cannot be removed from the service, so say which. */
export const diff = userFacing(async (id: string, olds: TaskOutputs, news: Record<string, unknown>) => {
  const desired = cleanInputs<TaskInputs>(news, TASK_INPUT_KEYS);
  const replaces = TASK_INPUT_KEYS.filter((k) => desired[k] !== olds[k]);
  if (replaces.length > 0) {
    warn(`${label("Task", id, desired)} will be replaced because ${replaces.join(", ")} changed. Tasks cannot be changed ` +
      `or deleted through the API: task ${id} keeps running on the service beside the new task.`);
  }
  return { changes: replaces.length > 0, replaces, deleteBeforeReplace: false };
});

export async function create(inputs: TaskInputs & Named) {
  const desired = cleanInputs<TaskInputs>(inputs, TASK_INPUT_KEYS);
  const { [NAME_KEY]: _name, ...body } = desired;
  let task: Task;
  try {
    task = await apiClient().createTask(body);
  } catch (error) {
    if (!(error as { mayHaveSucceeded?: boolean }).mayHaveSucceeded) throw withAuthHint(error);
    throw withHint(error, "Tasks cannot be listed or deleted through the API: look on the service for the task this resource " +
      "declares before running `pulumi up` again, which would create another one.");
  }
  const { id } = requireId(task, "tasks.create", "task", "Pulumi needs it as the resource id, so the task is not in this stack, " +
    "but it was created: check the service before running `pulumi up` again, which would create another one.");
  logCreated("Task", id, desired);
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

const remove = userFacing(async (id: string, props: TaskOutputs): Promise<void> => {
  warn(`${label("Task", id, props)} was removed from the stack only; nothing sent. The API cannot delete tasks: ` +
    "it keeps running on the service; remove it there if it should stop.");
});
export { remove as delete };

function outputs(task: Task, desired: TaskInputs & Named): TaskOutputs {
  // Input values are kept as declared (not as echoed) so a server that normalizes them cannot cause a replacement.
  return {
    ...desired,
    nextRunAt: task.nextRunAt ?? null,
    createdAt: task.createdAt ?? null,
    updatedAt: task.updatedAt ?? null,
  };
}
