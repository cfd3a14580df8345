/**
 * The protocol between a tool that runs many stacks — the catalog, `serviceapi-catalog` — and the
 * provider processes of those stacks, in one place: the environment variables the tool sets for a
 * stack's `pulumi` commands, and the formats of the files they name, each written and read here only.
 * Every record carries the protocol's version (`v`); a reader takes a record without one as version 1
 * (a create journal left on a runner by an earlier release), and refuses a newer one by name.
 *
 * | Variable | Who writes the file | Who reads it | What |
 * |---|---|---|---|
 * | `SERVICEAPI_SHARED_PACER_URL` | (a URL, not a file) | the client | the run's shared rate-limit pacer (`client/shared-pacer.ts`) |
 * | `SERVICEAPI_CREATED_JOURNAL` | the tool (a run's first line, when it skips Pulumi's checkpoints); the provider, a line before each create is sent and one the moment its answer arrives (its id, or that the service refused it) | plan, `recover` | each record created (or sent and never answered): a killed run's creates are taken in, never made twice |
 * | `SERVICEAPI_TAKE_IN` | `recover`, before its targeted `up` | the provider's create | the killed run's creates by key, each with its id (or none: the answer was lost): taken into the state without a request that creates |
 * | `SERVICEAPI_WRITES_FILE` | the provider, one line per adoption previewed and per give-back made | the report | what only the provider's read of the live record decides: each adoption's fields, live → declared; the fields a give-back sent, and those it left (changed since) |
 * | `SERVICEAPI_OTHER_STACKS_INDEX` | the tool, before the stack runs | the provider's adoption check | the products every other stack records |
 */
import { SHARED_PACER_URL_ENV } from "../client";
import { appendJsonLine, readJsonLines } from "./json-lines";

export const TOOL_PROTOCOL_VERSION = 1;

/** The environment variables, by what they carry. */
export const TOOL_ENV = {
  sharedPacer: SHARED_PACER_URL_ENV,
  createdJournal: "SERVICEAPI_CREATED_JOURNAL",
  takeIn: "SERVICEAPI_TAKE_IN",
  writes: "SERVICEAPI_WRITES_FILE",
  otherStacks: "SERVICEAPI_OTHER_STACKS_INDEX",
} as const;

/** Whether a record is one this version reads (none given: version 1). */
function readable(record: { v?: unknown }): boolean {
  return record.v === undefined || record.v === TOOL_PROTOCOL_VERSION;
}

// The create journal.

/** One line of the create journal. */
export interface CreatedRecord {
  v?: typeof TOOL_PROTOCOL_VERSION;
  /** None: a create answered (the only record of version 1). */
  op?: undefined;
  type: string;
  /** The resource's logical name (the catalog's key). */
  name: string;
  id: string;
  /** The resource's URN, where the face knows it. */
  urn?: string;
  at: string;
}

/** Appends a create to `file`, synchronously (on disk before the create returns to the engine); a problem's text, or undefined. */
export function appendCreated(file: string, record: Omit<CreatedRecord, "v">): string | undefined {
  return appendJsonLine(file, { v: TOOL_PROTOCOL_VERSION, ...record });
}

/** The records of a journal's text; a line a kill cut short, or of a newer version, is not one. */
export function readCreated(text: string): CreatedRecord[] {
  return readJsonLines<CreatedRecord>(
    text,
    (r) => readable(r) && r.op === undefined && typeof r.name === "string" && typeof r.id === "string",
  );
}

/** A create about to be sent: written before the request, so a run killed before the answer still names it. */
export interface CreatingRecord {
  v?: typeof TOOL_PROTOCOL_VERSION;
  op: "creating";
  type: string;
  name: string;
  /** Where the face knows it (the tool can tell it from the stack, the type and the name). */
  urn?: string;
  at: string;
}

/** A create the service certainly refused (an error that leaves nothing made): the line before it names no record. */
export interface NotCreatedRecord {
  v?: typeof TOOL_PROTOCOL_VERSION;
  op: "not-created";
  name: string;
  at: string;
}

/** A journal's first line, the tool's, where a run skips Pulumi's intermediate checkpoints: the state will not record the run until it ends. */
export interface RunRecord {
  v?: typeof TOOL_PROTOCOL_VERSION;
  op: "run";
  command: "up";
  at: string;
  hostname: string;
  pid: number;
}

/** Appends a create about to be sent, synchronously; a problem's text, or undefined. */
export function appendCreating(file: string, record: Omit<CreatingRecord, "v" | "op">): string | undefined {
  return appendJsonLine(file, { v: TOOL_PROTOCOL_VERSION, op: "creating", ...record });
}

/** Appends a create the service refused, synchronously; a problem's text, or undefined. */
export function appendNotCreated(file: string, record: Omit<NotCreatedRecord, "v" | "op">): string | undefined {
  return appendJsonLine(file, { v: TOOL_PROTOCOL_VERSION, op: "not-created", ...record });
}

/** A journal's text as its first line: the run that skips the checkpoints. */
export function runRecordText(record: Omit<RunRecord, "v" | "op">): string {
  return `${JSON.stringify({ v: TOOL_PROTOCOL_VERSION, op: "run", ...record })}\n`;
}

/** A journal read whole: the run (if it skipped the checkpoints), the creates sent by key, and those answered. */
export interface Journal {
  run?: RunRecord;
  creating: Map<string, CreatingRecord>;
  created: Map<string, CreatedRecord>;
}

export function readJournal(text: string): Journal {
  type Line = { op?: unknown; name?: unknown; type?: unknown; id?: unknown; v?: unknown };
  const journal: Journal = { creating: new Map(), created: new Map() };
  for (const line of readJsonLines<Line>(text, (r) => readable(r))) {
    if (line.op === "run") journal.run ??= line as unknown as RunRecord;
    else if (line.op === "creating" && typeof line.name === "string" && typeof line.type === "string")
      journal.creating.set(line.name, line as unknown as CreatingRecord);
    else if (line.op === "not-created" && typeof line.name === "string") journal.creating.delete(line.name);
    else if (line.op === undefined && typeof line.name === "string" && typeof line.id === "string")
      journal.created.set(line.name, line as unknown as CreatedRecord);
  }
  return journal;
}

// Taking a killed run's creates in (`recover`).

/** What recover hands its targeted up's providers: each key's id, or null where the create's answer was lost. */
export interface TakeIn {
  v: typeof TOOL_PROTOCOL_VERSION;
  records: Record<string, string | null>;
}

export function takeInText(records: Record<string, string | null>): string {
  return JSON.stringify({ v: TOOL_PROTOCOL_VERSION, records } satisfies TakeIn);
}

/** The file's records, or why it is not one (a reader of another version). */
export function parseTakeIn(text: string): { records: Record<string, string | null> } | { problem: string } {
  try {
    const value = JSON.parse(text) as Partial<TakeIn> | null;
    if (value?.v !== TOOL_PROTOCOL_VERSION)
      return { problem: `a file of version ${String(value?.v)} (this provider reads ${TOOL_PROTOCOL_VERSION})` };
    if (typeof value.records !== "object" || value.records === null) return { problem: "a file that names no records" };
    return { records: value.records };
  } catch {
    return { problem: "not JSON" };
  }
}

// What the provider decided against the live record.

/** One adoption previewed: the resource's logical name (a catalog key), the product it adopts, and what `up` sends to it. */
export interface AdoptionRecord {
  v?: typeof TOOL_PROTOCOL_VERSION;
  /** Left out by the first version of the format, which had adoptions only. */
  op?: "adopt";
  name: string;
  id: string;
  fields: { field: string; from: unknown; to: unknown }[];
}

/**
 * One give-back made at a delete: the fields its PATCH sent, and those it left as the service shows
 * them (changed since this stack set them; the status kept when giving it back would raise it). Names
 * only: the values are the take-over's record, a secret of the state.
 */
export interface GiveBackRecord {
  v?: typeof TOOL_PROTOCOL_VERSION;
  op: "give-back";
  name: string;
  id: string;
  sent: string[];
  since: string[];
  /** The product was gone (404): nothing sent. */
  gone?: boolean;
}

export type WriteRecord = AdoptionRecord | GiveBackRecord;

export function appendWrite(file: string, record: WriteRecord): string | undefined {
  return appendJsonLine(file, { ...record, v: TOOL_PROTOCOL_VERSION });
}

/** The records of a file's text by operation, the last line of each name winning (the engine may preview an adoption twice). */
export function readWrites(text: string): { adoptions: Map<string, AdoptionRecord>; giveBacks: Map<string, GiveBackRecord> } {
  const records = readJsonLines<WriteRecord>(text, (r) => readable(r) && typeof r.name === "string");
  const adoptions = new Map<string, AdoptionRecord>();
  const giveBacks = new Map<string, GiveBackRecord>();
  for (const record of records) {
    if ((record.op ?? "adopt") === "adopt" && Array.isArray((record as AdoptionRecord).fields))
      adoptions.set(record.name, record as AdoptionRecord);
    else if (record.op === "give-back" && Array.isArray(record.sent) && Array.isArray(record.since)) giveBacks.set(record.name, record);
  }
  return { adoptions, giveBacks };
}

// The other stacks' products.

/** A stack that records a product, and the logical name its resource has there. */
export interface Manager {
  /** `organization/<project>/<stack>`, as `--stack` takes it. */
  stack: string;
  name: string;
}

/** The index: every stack of the backend but the one whose providers read it, by product id (lower case). */
export interface OtherStacksIndex {
  v: typeof TOOL_PROTOCOL_VERSION;
  products: Record<string, Manager[]>;
}

/** The index's text. */
export function otherStacksText(products: Record<string, Manager[]>): string {
  return JSON.stringify({ v: TOOL_PROTOCOL_VERSION, products } satisfies OtherStacksIndex);
}

/** The index of a file's text, or why it is not one. */
export function parseOtherStacks(text: string): { index: OtherStacksIndex } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: "which is not JSON" };
  }
  const index = value as Partial<OtherStacksIndex> | null;
  if (index === null || typeof index !== "object" || typeof index.products !== "object" || index.products === null)
    return { problem: "which is not an index of product ids to stacks" };
  if (index.v !== TOOL_PROTOCOL_VERSION)
    return { problem: `which is of version ${String(index.v)} (this provider reads ${TOOL_PROTOCOL_VERSION})` };
  for (const list of Object.values(index.products)) {
    if (!Array.isArray(list) || !list.every((m) => typeof m?.stack === "string" && typeof m?.name === "string"))
      return { problem: "which is not an index of product ids to stacks" };
  }
  return { index: index as OtherStacksIndex };
}
