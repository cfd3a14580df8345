/**
 * `Task`: a scheduled prompt. The API can create a task and nothing else: no
 * read, no update, no delete. So every input change is a replacement (a new task), refresh keeps
 * the stored state, and delete only forgets the task — which keeps running on the service. Both
 * the replacement (at preview and up) and the delete say so, naming the task id.
 */
import type { CreateTaskBody, Task } from "../client";
import { TASK_FIELD_SPECS, uuid, type TaskSpecs } from "../contract/schemas";
import { nextRun } from "../contract/rrule";
import { apiFields, type DeclaredFields, type KeptFields } from "./api-fields";
import { requireId } from "./omitted-id";
import { UNKNOWN } from "./checks";
import { replacedInputs, type InputField, type ResourceFields } from "./field-table";
import { PartialFailure, UserError } from "./errors";
import { label, logCreated } from "./messages";
import { journalCreating, journalNotCreated, takenIn } from "./journal";
import type { Stored } from "./stored-state";
import { UNCONFIRMED, isUnconfirmed, mayHaveSucceeded, placeholderId, recordedAsUnconfirmed, refusal, unconfirmed } from "./unconfirmed";
import type { ProviderContext } from "./context";
import type * as lifecycle from "./lifecycle";

/** The contract's task table (`TASK_FIELD_SPECS`) as the resource reads it (`api-fields.ts`). */
export const TASK = apiFields(TASK_FIELD_SPECS);

/**
 * What a program declares for a task (`TaskArgs` is this with `Input<…>` values): its project, the
 * fields of the contract's table a create takes (`title`, `prompt`, `scheduledAt`, …). Every change replaces the task.
 */
export type TaskInputs = {
  projectId: string;
} & DeclaredFields<TaskSpecs> & {
    /**
     * The id of a task that exists on the service to take over instead of creating one — after a
     * create whose answer was lost, say. The API cannot read tasks, so it is recorded as the program
     * declares it, on trust, with no request.
     */
    adoptId?: string;
  };

/** The inputs as a lifecycle request carries them: decoded by `TASK_FIELDS`, a `null` left out (`Stored`). */
type StoredTaskInputs = Stored<TaskInputs>;

/**
 * The inputs as declared (not as echoed: a server that normalizes them cannot cause a replacement),
 * and what the service sets, as it reported it at create (`nextRunAt`, `createdAt`, …; null when
 * unknown).
 */
export type TaskOutputs = TaskInputs &
  KeptFields<TaskSpecs> & {
    /** Only on the placeholder of a create whose outcome is unknown (`unconfirmed.ts`). */
    [UNCONFIRMED]?: unknown;
  };

/** The task's fields: what `check` refuses, what the plugin schema says, what docs/resources.md lists. */
export const TASK_FIELDS: ResourceFields<TaskInputs> = {
  resource: "Task",
  description:
    "A scheduled prompt. The API can only create tasks: every change replaces the task, and deleting the resource " +
    "only forgets it — the old task keeps running on the service (the CLI output says so, with its id).",
  inputs: {
    projectId: { schema: uuid, required: true, replaces: true, description: "The project the task belongs to (a UUID)." },
    ...(TASK.inputFields() as Record<keyof DeclaredFields<TaskSpecs>, InputField>),
    adoptId: {
      schema: uuid,
      hint: " (the id of an existing task to take over)",
      description:
        "The id of a task that exists on the service to take over instead of creating one (after a create whose answer was lost). " +
        "The API cannot read tasks, so it is recorded as declared, on trust, with no request. Removing it, or setting the task's own id, changes nothing; another id replaces the resource.",
    },
  },
  outputs: TASK.outputFields(),
};

/** What the service sets, unknown: an adopted task, or a create whose answer was lost. */
const NOTHING_REPORTED = TASK.kept({}) as KeptFields<TaskSpecs>;

/** The schedule, judged now, when a task will be created: an adopted task is not, so its schedule is not judged again. */
async function check(_ctx: ProviderContext, { olds, news }: lifecycle.CheckRequest<StoredTaskInputs>): Promise<lifecycle.CheckFailure[]> {
  if (news.adoptId !== undefined || !willCreate(olds, news)) return [];
  return scheduleFailures(news.scheduledAt, news.rrule);
}

/**
 * Every change replaces a task, so a task is created when there is no old one or any input
 * differs. Only then do the time-dependent checks apply: a series that has ended since the task
 * was created must not fail every later preview of a stack that does not touch it.
 */
function willCreate(olds: Partial<StoredTaskInputs>, news: StoredTaskInputs): boolean {
  return replacedInputs(TASK_FIELDS, olds, news).length > 0;
}

/** The service's own rule (`nextRun`), applied now: a task that would never run is refused at preview (and by the catalog tool, before any stack). */
export function scheduleFailures(scheduledAt: string, rrule: string | undefined): lifecycle.CheckFailure[] {
  if (scheduledAt === UNKNOWN || rrule === UNKNOWN) return [];
  // An rrule the table's schema refused was reported already; this one is valid.
  const now = new Date();
  const next = nextRun(scheduledAt, rrule, now);
  if (!next.ok) return [{ property: "", reason: `${next.field} ${next.problem}` }];
  if (rrule === undefined && new Date(next.nextRunAt) < now) {
    return [
      { property: "", reason: "scheduledAt is in the past, so a one-off task would never run; choose a future time, or add an rrule" },
    ];
  }
  return [];
}

/**
 * Any change replaces the task; the old one cannot be removed from the service, so say which.
 * `adoptId` replaces only when it names another task (removing it, or the task's own id, is nothing).
 */
async function diff(ctx: ProviderContext, { name, id, olds, news, planning }: lifecycle.DiffRequest<StoredTaskInputs, TaskOutputs>) {
  if (isUnconfirmed(olds)) {
    // Refreshing it (diff against the last inputs, before any check) has nothing to compare.
    if (!planning) return { changes: false, replaces: [], changed: [], deleteBeforeReplace: false };
    if (news.adoptId === undefined) throw refusal(ctx, "Task", name ?? id, olds);
    return { changes: true, replaces: ["adoptId"], changed: ["adoptId"], deleteBeforeReplace: false };
  }
  // Every input the create sends replaces the task (the table's `change: "replace"`; adoptId has its own rule).
  const replaces = replacedInputs(TASK_FIELDS, olds, news);
  if (news.adoptId !== undefined && news.adoptId !== id) replaces.push("adoptId");
  if (replaces.length > 0) {
    ctx.warn(
      `${label("Task", id, name)} will be replaced because ${replaces.join(", ")} changed. Tasks cannot be changed ` +
        `or deleted through the API: task ${id} keeps running on the service beside the new task.`,
    );
  }
  const adoptIdChanged = !replaces.includes("adoptId") && (news.adoptId ?? null) !== (olds.adoptId ?? null);
  const changed = [...replaces, ...(adoptIdChanged ? ["adoptId"] : [])];
  return { changes: changed.length > 0, replaces, changed, deleteBeforeReplace: false };
}

async function create(ctx: ProviderContext, { name, inputs: desired }: lifecycle.CreateRequest<StoredTaskInputs>) {
  // `recover`'s targeted up (`journal.ts`): a task a killed run created, taken in by its id as the
  // program declares it (the API cannot read a task), or the placeholder of a create whose answer was lost.
  const taken = takenIn("Task", name ?? "");
  if (taken !== undefined) {
    if (taken.id === null)
      return { id: placeholderId(), outs: { ...desired, ...NOTHING_REPORTED, ...unconfirmed("tasks.create", new Date(), true) } };
    return { id: taken.id, outs: { ...desired, ...NOTHING_REPORTED } };
  }
  const { adoptId } = desired;
  if (adoptId !== undefined) {
    ctx.info(`adopted ${label("Task", adoptId, name)}: recorded as the program declares it; nothing sent (the API cannot read tasks).`);
    return { id: adoptId, outs: { ...desired, ...NOTHING_REPORTED } };
  }
  // The project and every declared field a create takes (the contract's table).
  const body = { projectId: desired.projectId, ...TASK.declared(desired, TASK.created) } as CreateTaskBody;
  let task: Task;
  const sent = new Date();
  journalCreating({ type: "Task", name: name ?? "", urn: ctx.urn(), at: sent.toISOString() });
  try {
    task = await ctx.client().createTask(body);
  } catch (error) {
    if (!mayHaveSucceeded(error)) {
      journalNotCreated(name ?? "");
      throw error;
    }
    // Recorded with a placeholder id, so a re-run refuses instead of creating a second task.
    throw new PartialFailure(
      placeholderId(),
      { ...desired, ...NOTHING_REPORTED, ...unconfirmed("tasks.create", sent) },
      `${(error as Error).message} ${recordedAsUnconfirmed(ctx, "Task", name ?? "(unnamed)")}`,
    );
  }
  const { id } = requireId(
    task,
    "tasks.create",
    "task",
    "Pulumi needs it as the resource id, so the task is not in this stack, " +
      "but it was created: check the service before running `pulumi up` again, which would create another one.",
  );
  logCreated(ctx, "Task", id, name);
  return { id, outs: outputs(task, desired) };
}

/**
 * Reached only when `adoptId` is removed or set to the task's own id (every other change replaces):
 * the new inputs are recorded, nothing is sent.
 */
async function update(ctx: ProviderContext, { name, id, olds, news }: lifecycle.UpdateRequest<StoredTaskInputs, TaskOutputs>) {
  if (isUnconfirmed(olds)) throw refusal(ctx, "Task", name ?? id, olds);
  const { adoptId: _adoptId, ...kept } = olds;
  return { outs: { ...kept, ...(news.adoptId !== undefined && { adoptId: news.adoptId }) } };
}

async function remove(ctx: ProviderContext, { name, id, state }: lifecycle.DeleteRequest<TaskOutputs>): Promise<void> {
  if (isUnconfirmed(state)) {
    ctx.info(
      `${label("Task", id, name)}: its create was never confirmed, so there is no task id to name; removed from the stack. ` +
        "If that create did reach the service and the task was not adopted, it runs there.",
    );
    return;
  }
  ctx.warn(
    `${label("Task", id, name)} was removed from the stack only; nothing sent. The API cannot delete tasks: ` +
      "it keeps running on the service; remove it there if it should stop.",
  );
}

function outputs(task: Task, desired: StoredTaskInputs): TaskOutputs {
  // Input values are kept as declared (not as echoed) so a server that normalizes them cannot cause a replacement.
  return { ...desired, ...(TASK.kept(task) as KeptFields<TaskSpecs>) };
}

/** The API cannot read a task, so there is nothing to import from. */
async function importRecord(_ctx: ProviderContext, { id }: lifecycle.ImportRequest): Promise<never> {
  throw new UserError(
    `Task ${id} cannot be imported: the API cannot read tasks, so their fields cannot be known. ` +
      "Leave the existing task unmanaged, or declare a Task and let Pulumi create it (the existing one keeps running).",
  );
}

/**
 * No `read`: the API cannot read a task, so refresh keeps the stored state (each face's default).
 */
export const task: lifecycle.Lifecycle<StoredTaskInputs, TaskOutputs> = {
  fields: TASK_FIELDS,
  check,
  diff,
  create,
  update,
  remove,
  importRecord,
};
