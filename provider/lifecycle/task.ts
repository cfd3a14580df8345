/**
 * `Task`: a scheduled prompt. The API can create a task and nothing else: no
 * read, no update, no delete. So every input change is a replacement (a new task), refresh keeps
 * the stored state, and delete only forgets the task — which keeps running on the service. Both
 * the replacement (at preview and up) and the delete say so, naming the task id.
 */
import type { Task } from "../client";
import { CreateTaskBody, uuid } from "../contract/schemas";
import { nextRun, validateRecurrence } from "../contract/rrule";
import { requireId } from "../omitted-id";
import { Failures, UNKNOWN, checkInputs } from "./checks";
import { propertyNames, type ResourceFields } from "./fields";
import { withTaskRecoveryHint } from "./errors";
import { label, logCreated, warn } from "./messages";
import { apiClient, currentSettings } from "./service";
import { NAME_KEY, cleanInputs, type Named } from "./stored-state";
import type { Lifecycle } from "./types";

/** What a program declares for a task (`TaskArgs` is this with `Input<…>` values). Every change replaces the task. */
export interface TaskInputs {
  projectId: string;
  /** Not empty. */
  title: string;
  /** Not empty. */
  prompt: string;
  /** RFC 3339 date-time with an offset, e.g. `2026-12-01T09:00:00Z`: the first run. */
  scheduledAt: string;
  /** An RFC 5545 recurrence rule such as `FREQ=WEEKLY;BYDAY=MO`; checked before any request. */
  rrule?: string;
  emoji?: string;
}

export interface TaskOutputs extends TaskInputs, Named {
  /** When the service will run the task next, as it reported at create. */
  nextRunAt: string | null;
  createdAt: string | null;
  updatedAt: string | null;
}

/** The task's fields: what `check` refuses, what the plugin schema says, what docs/resources.md lists. */
export const TASK_FIELDS: ResourceFields<TaskInputs> = {
  resource: "Task",
  description: "A scheduled prompt. The API can only create tasks: every change replaces the task, and deleting the resource " +
    "only forgets it — the old task keeps running on the service (the CLI output says so, with its id).",
  inputs: {
    projectId: { schema: uuid, required: true, replaces: true, description: "The project the task belongs to (a UUID)." },
    title: { schema: CreateTaskBody.shape.title, required: true, replaces: true, description: "The title; not empty." },
    prompt: { schema: CreateTaskBody.shape.prompt, required: true, replaces: true, description: "The prompt; not empty." },
    scheduledAt: { schema: CreateTaskBody.shape.scheduledAt, required: true, replaces: true,
      description: "The first run: an RFC 3339 date-time with an offset, e.g. 2026-12-01T09:00:00Z. A one-off time in the past is refused." },
    rrule: { schema: CreateTaskBody.shape.rrule, replaces: true,
      description: "An RFC 5545 recurrence rule such as FREQ=WEEKLY;BYDAY=MO. A rule with no run at or after now is refused." },
    emoji: { schema: CreateTaskBody.shape.emoji, replaces: true, description: "An emoji for the task." },
  },
  outputs: {
    nextRunAt: { type: "string", nullable: true, description: "When the service will run the task next, as it reported at create." },
    createdAt: { type: "string", nullable: true, description: "When the service created the task." },
    updatedAt: { type: "string", nullable: true, description: "When the service last changed the task." },
  },
};

const TASK_INPUT_KEYS = Object.keys(TASK_FIELDS.inputs) as (keyof TaskInputs)[];
/** Every property of the resource, for the resource class. */
export const TASK_OUTPUTS = propertyNames(TASK_FIELDS);

async function check(olds: Record<string, unknown>, news: Record<string, unknown>) {
  currentSettings();
  const failures = new Failures();
  checkInputs(failures, TASK_FIELDS, news);
  if (failures.list.length === 0 && willCreate(olds, news)) checkSchedule(failures, news.scheduledAt, news.rrule);
  return { inputs: cleanInputs<TaskInputs>(news, TASK_INPUT_KEYS), failures: failures.list };
}

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
async function diff(id: string, olds: TaskOutputs, news: TaskInputs) {
  const desired = cleanInputs<TaskInputs>(news, TASK_INPUT_KEYS);
  const replaces = TASK_INPUT_KEYS.filter((k) => desired[k] !== olds[k]);
  if (replaces.length > 0) {
    warn(`${label("Task", id, desired)} will be replaced because ${replaces.join(", ")} changed. Tasks cannot be changed ` +
      `or deleted through the API: task ${id} keeps running on the service beside the new task.`);
  }
  return { changes: replaces.length > 0, replaces, deleteBeforeReplace: false };
}

async function create(inputs: TaskInputs & Named) {
  const desired = cleanInputs<TaskInputs>(inputs, TASK_INPUT_KEYS);
  const { [NAME_KEY]: _name, ...body } = desired;
  let task: Task;
  try {
    task = await apiClient().createTask(body);
  } catch (error) {
    throw withTaskRecoveryHint(error);
  }
  const { id } = requireId(task, "tasks.create", "task", "Pulumi needs it as the resource id, so the task is not in this stack, " +
    "but it was created: check the service before running `pulumi up` again, which would create another one.");
  logCreated("Task", id, desired);
  return { id, outs: outputs(task, desired) };
}

/** Never reached through `diff` (every change replaces); kept so a forced update cannot erase the outputs. */
async function update(_id: string, olds: TaskOutputs) {
  return { outs: olds };
}

/** The API cannot read a task: the stored state is the best knowledge there is. */
async function read(id: string, props: TaskOutputs) {
  return { id, props };
}

async function remove(id: string, props: TaskOutputs): Promise<void> {
  warn(`${label("Task", id, props)} was removed from the stack only; nothing sent. The API cannot delete tasks: ` +
    "it keeps running on the service; remove it there if it should stop.");
}

function outputs(task: Task, desired: TaskInputs & Named): TaskOutputs {
  // Input values are kept as declared (not as echoed) so a server that normalizes them cannot cause a replacement.
  return {
    ...desired,
    nextRunAt: task.nextRunAt ?? null,
    createdAt: task.createdAt ?? null,
    updatedAt: task.updatedAt ?? null,
  };
}

/** The API cannot read a task, so there is nothing to import from. */
async function importRecord(id: string): Promise<never> {
  throw new Error(`Task ${id} cannot be imported: the API cannot read tasks, so their fields cannot be known. ` +
    "Leave the existing task unmanaged, or declare a Task and let Pulumi create it (the existing one keeps running).");
}

export const task: Lifecycle<TaskInputs & Named, TaskOutputs> = { check, diff, create, read, update, remove, importRecord };
