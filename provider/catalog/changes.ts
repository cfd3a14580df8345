/**
 * The typed plan: what a command does to each product, and why — the one vocabulary that `plan`,
 * `preview`, `up`, `recover`, the report and `--json` share (Terraform's plan JSON is the model:
 * every action with its before and after). Codes with data, never sentences: the words are made in
 * one place, `report.ts`, from these; `--json` carries these as they are, so a CI step or a policy
 * reads `op` and `code`, not English.
 *
 * The operations and what each sends to the service (a test derives the writes it expects from
 * these alone, and compares them with what an `up` sent: test/engine/catalog-parity.test.ts):
 *
 * | op | sends |
 * |---|---|
 * | `create` | one POST with the fields a create carries, then one PATCH of those it cannot (`status`) when the new record's differ |
 * | `adopt` | a read (an empty PATCH; a site: its project's listing, shared), then one PATCH of the fields listed, if any (a site entry is always a take-over) |
 * | `update` | one PATCH of exactly the fields listed (those not `stackOnly`) |
 * | `state` | nothing: only what the stack keeps changes (`onDelete`, `adoptId`) |
 * | `replace` | a new record (create or adopt), then the old one's removal (`then`: archive, give back, …) |
 * | `archive` | one PATCH `{status: "archived"}` (a removed entry of a product this stack created) |
 * | `give-back` | one PATCH of the fields listed, back to what they were when taken over; none listed, nothing (a site: the name it had) |
 * | `retain` | nothing (`onDelete: retain`): the stack forgets it |
 * | `forget` | nothing: a lost create, whose record nobody knows |
 * | `rename` | nothing: the same record under a new key (`from`), in the state only |
 * | `move` | nothing: the state moves to another stack (`pulumi state move`) |
 * | `drift` | (drift, refresh) nothing: the service's values differ from the state (`from` recorded → `to` live) |
 * | `gone` | (drift, refresh) nothing: the record is gone from the service (404) |
 */

/** A field's value before and after, as the engine shows them (`[secret]` for a secret). */
export interface FieldChange {
  field: string;
  /** Absent (`undefined`, which JSON leaves out): the field had no value before (a create). */
  from?: unknown;
  /** Absent: the field has no value after (cleared, or gone with the record). */
  to?: unknown;
  /** Kept by the stack only (`onDelete`, `adoptId`): nothing is sent for it. */
  stackOnly?: true;
}

export const OPERATIONS = [
  "create",
  "adopt",
  "update",
  "state",
  "replace",
  "archive",
  "give-back",
  "retain",
  "forget",
  "rename",
  "move",
  "drift",
  "gone",
] as const;
export type Operation = (typeof OPERATIONS)[number];

/** The operations that remove a product from the stacks (its entry is gone): what happens to its record. */
export const REMOVALS: readonly Operation[] = ["archive", "give-back", "retain", "forget"];

/** A stack (outside the catalog, or another of its stacks) that records a product, and under which name. */
export interface Manager {
  stack: string;
  name: string;
}

/** A lock a killed or running command holds on a stack. */
export interface LockHolder {
  username: string;
  hostname: string;
  pid: number;
  /** As Pulumi wrote it (RFC 3339). */
  since: string;
}

/**
 * Why: what stops a stack, what a reviewer must see, what a change carries. Each has a `code` and
 * the data its words need; a reason about one product names it (`key`).
 */
export type Reason =
  /** The stack's state cannot be loaded (a checkpoint cut off by a kill). Blocks. */
  | { code: "state-unloadable"; stack: string; detail: string }
  /** A lock a killed (or running) command left. Blocks. */
  | { code: "locked"; stack: string; by: LockHolder }
  /** Creates a killed run left pending: an up now would create them again. Blocks. */
  | { code: "pending-creates"; stack: string; keys: string[] }
  /**
   * Creates a killed run that skipped the checkpoints sent, of keys the catalog no longer declares:
   * `recover` cannot take them in (the up that would has nothing to declare them with). Blocks.
   */
  | { code: "pending-undeclared"; stack: string; keys: { key: string; id?: string }[] }
  /** Other operations a killed run left pending. Blocks. */
  | { code: "pending-operations"; stack: string; operations: { key: string; op: string }[] }
  /** An adoption of a product another stack already manages. Blocks, unless `allowed` (adoptManaged=allow). */
  | { code: "adopts-managed"; key: string; managers: Manager[]; allowed: boolean }
  /** A create whose answer was lost: left out of every up until it is adopted or created anew. */
  | { code: "lost-create"; key: string; stack: string; title?: string; slug?: string; file?: string; kind?: "task" }
  /** A product that a stack outside this one also records. */
  | { code: "managed-elsewhere"; key: string; managers: Manager[] }
  /** A key in the state of two stacks: the later is ignored. */
  | { code: "in-two-stacks"; key: string; kept: string; ignored: string }
  /** A move that waits for a blocked stack. */
  | { code: "move-waits"; key: string; from: string; to: string; waitsFor: string }
  /** A removed entry and an added one with the same fields and no link: an archive and a create, unless linked (`renamedFrom`). */
  | { code: "rename-candidate"; key: string; from: string }
  /** Most of a stack's records removed by one change: worth a second look (another catalog's stacks under the same prefix and file names?). */
  | { code: "removes-most"; stack: string; removed: number; total: number }
  /** A stack the layout no longer has, removed once the moves emptied it. */
  | { code: "stack-removed"; stack: string }
  /** On a change: a product of a stack run whole (`--base`) whose change is not the one under review. */
  | { code: "outside-change" }
  /** On a give-back: the status stays as it is, since giving back what was found would make the product more live. */
  | { code: "keeps-status"; status: string; found: string }
  /** On a give-back: fields changed since this stack set them (by a person, another stack): left as they are. */
  | { code: "changed-since"; fields: string[] }
  /** On a give-back made: fields the preview listed that were already as found on the service (nothing to send). */
  | { code: "already-as-found"; fields: string[] }
  /** On a removal made: the product was gone from the service (404); nothing was sent. */
  | { code: "already-gone" }
  /** On a give-back whose record of the take-over could not be read before the run: its fields are not listed. */
  | { code: "give-back-unread" }
  /** On a removal: adopted by a version that kept no record of what it found, so it is left as it is. */
  | { code: "adopted-without-record" }
  /** On an adoption or a replacement: the record a killed or failed create of this stack made. */
  | { code: "lost-create-adopted" }
  /**
   * A policy's verdict (`policy.ts`, docs/policies.md): `deny` stops the run (a preview fails, an up
   * refuses before any write), `warn` is shown. On the change it names (`key`), else on the run.
   */
  | { code: "policy"; level: "deny" | "warn"; policy: string; message: string; key?: string; field?: string };

export type ReasonCode = Reason["code"];

/** What the plan or a run does to one product. */
export interface PlannedChange {
  key: string;
  /** What the record is: absent for a product (the first kind, and the only one of version 2's first reports). */
  kind?: "site" | "task";
  op: Operation;
  /** Each field it sets, before → after: the request body of a write, the values of a drift. */
  fields: FieldChange[];
  /** `rename`: the key it had; any other op of a renamed product too. */
  renamedFrom?: string;
  /** `adopt`, `replace` by adoption: the record taken over. */
  adoptId?: string;
  /** A task removed or replaced: the id of the one left running on the service (where to stop it). */
  runningId?: string;
  /** `move`: the stacks it moves between. */
  fromStack?: string;
  toStack?: string;
  /** `replace`: what happens to the record it replaces. */
  then?: Operation;
  reasons: Reason[];
}

/** An update that sets status to archived: called out, since it takes the product off sale. */
export function archives(change: PlannedChange): boolean {
  return change.fields.some((f) => f.field === "status" && f.to === "archived" && f.from !== "archived");
}

/** Whether the change sends anything that changes a record (what a reviewer approves as a write). */
export function writes(change: PlannedChange): boolean {
  switch (change.op) {
    case "create":
    case "replace":
    case "archive":
      return true;
    case "adopt":
    case "update":
    case "give-back":
      return change.fields.some((f) => f.stackOnly !== true);
    default:
      return false;
  }
}

/** What `recover` did (or could not do) on a stack, typed: `report.ts` words it (`describeRecovery`). */
export type Recovery =
  | { code: "repaired"; file: string }
  | { code: "unlocked"; by: LockHolder; forced: boolean }
  | { code: "locked-running"; pid: number }
  | { code: "locked-elsewhere"; by: LockHolder; stack: string }
  /** Taken into the state by its id: recorded by the killed run (on the pending create, in the create journal) or named by a log given. */
  | { code: "taken-in"; key: string; id: string; was: "pending" | "lost"; source: "run" | "log" }
  /** An id a log gave for a create, not taken in: another stack records that product, or it is not the product declared. */
  | {
      code: "id-refused";
      key: string;
      id: string;
      log: string;
      managers?: Manager[];
      differs?: { field: string; live: unknown; declared: unknown };
    }
  /** A create whose answer was lost: taken in as its placeholder now, or still one (the same reason plan and preview name). */
  | { code: "lost"; reason: Extract<Reason, { code: "lost-create" }>; now: boolean }
  | { code: "create-anew"; key: string }
  /** A lost create the catalog now adopts (`adoptId`): the next up takes it over, nothing to recover. */
  | { code: "adopt-next"; key: string; adoptId: string }
  | { code: "cleared"; operations: string[] }
  /** A create the killed run sent (its journal names it) of a key the catalog no longer declares: not taken in; the stack stays blocked. */
  | { code: "undeclared"; key: string; id?: string; stack: string }
  /** The journal beside the state of a run that skipped the checkpoints, removed: the state has all it held. */
  | { code: "journal-removed"; file: string }
  | { code: "nothing" };
