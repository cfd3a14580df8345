/**
 * The contract every resource's lifecycle meets, whatever face serves it. As in
 * pulumi-go-provider's `infer`, each operation takes one typed request and the process's context,
 * and only `create` is required: `withDefaults` (`with-defaults.ts`) supplies the rest, the same for
 * both faces, and is what a face calls.
 *
 * A request's inputs are already decoded by the resource's field table (`I` is its stored-inputs
 * type: `Stored<ProductInputs>`, …); `olds` of a diff or update, and `state`, are the outputs the
 * lifecycle itself wrote (`O`). `name` is the resource's logical name, which each face supplies
 * (the plugin from the request or the URN, the dynamic face from the state: `stored-state.ts`);
 * it names the resource in messages and is `undefined` only for state from before names were kept.
 * Outputs carry no name: a face that must keep one in the state adds it.
 *
 * The types are ours, not `pulumi.dynamic.*`: the plugin serves the same lifecycles without the
 * dynamic-provider SDK.
 */
import type { ProviderContext } from "./context";
import type { ResourceFields } from "./field-table";

/** Values as the engine hands them over, before `withDefaults` decodes them. */
export type Values = Record<string, unknown>;

/** An input problem. `property` stays empty: the engine prints a named property's value beside it, and any value may be a secret. */
export interface CheckFailure {
  property: string;
  reason: string;
  /** The field the reason names (for callers that report in their own words, as the catalog tool does); never sent to the engine. */
  field?: string;
}

interface Named {
  /** The resource's logical name; `undefined` only in state from before names were kept. */
  name: string | undefined;
}

/**
 * The inputs the program marked secret, as far as the face can tell (the plugin sees the engine's
 * secret marks; the dynamic face is told by the program's resource class): `undefined` when it
 * cannot tell, so every value is to be taken as a secret. Only names: the values are in the inputs, plain.
 */
interface WithSecrets {
  secrets: ReadonlySet<string> | undefined;
}

/** `news` passed the field table's checks; `olds` are the inputs of the last `up` (`{}` for a new resource). */
export interface CheckRequest<I> extends Named, WithSecrets {
  olds: Partial<I>;
  news: I;
}

/**
 * `planning`: `check` saw the resource in this command, so `news` is the program's; otherwise the
 * engine is refreshing and `news` is what the state holds (any field may be missing then).
 */
export interface DiffRequest<I, O> extends Named, WithSecrets {
  id: string;
  olds: O;
  news: Partial<I>;
  planning: boolean;
}

export interface CreateRequest<I> extends Named {
  inputs: I;
}

export interface ReadRequest<O> extends Named {
  id: string;
  state: O;
}

export interface UpdateRequest<I, O> extends Named {
  id: string;
  olds: O;
  news: I;
}

export interface DeleteRequest<O> extends Named {
  id: string;
  state: O;
}

/** `pulumi import` (or `--import-pending-creates`): the id the user gave, and whatever inputs the engine still has. */
export interface ImportRequest extends Named {
  id: string;
  hint: Values;
}

export interface DiffResult {
  /** Whether an update (or a replacement) is needed. */
  changes: boolean;
  /** Inputs whose change forces a replacement. */
  replaces: string[];
  /** Every input that changes, replaces included: the plugin's detailed diff names exactly these. */
  changed: string[];
  deleteBeforeReplace?: boolean;
}

/** What a read (refresh or import) found; no `id` means the record is gone. */
export interface ReadResult<Outputs> {
  id?: string;
  props?: Outputs;
  /** The inputs that describe the live record, so a refresh names what drifted. */
  inputs?: Values;
}

/**
 * `I`: the stored inputs (decoded by `fields`); `O`: what the lifecycle stores as outputs.
 * What each operation may leave for a later one of the same command is listed in `ledger.ts`.
 */
export interface Lifecycle<I extends object, O extends object> {
  /** The resource's field table: its type name, its checks, how its inputs are decoded. */
  readonly fields: ResourceFields<I>;
  /**
   * Problems only a read can show (the table's own checks ran already and passed), each naming the
   * field: a failed check stops the preview before any write.
   */
  check?(ctx: ProviderContext, req: CheckRequest<I>): Promise<CheckFailure[]>;
  /**
   * What an update would change, and what forces a replacement. Sends nothing but a read to preview an adoption.
   * Not left out: the alternative, "unknown" (`DIFF_UNKNOWN` on the wire, `{}` from a dynamic provider), lets the
   * engine compare the inputs itself, and the engine knows nothing of `replaces`: a change that must replace the
   * record would update it in place.
   */
  diff(ctx: ProviderContext, req: DiffRequest<I, O>): Promise<DiffResult>;
  create(ctx: ProviderContext, req: CreateRequest<I>): Promise<{ id: string; outs: O }>;
  /** The live record, and the inputs that match it (so a refresh names what drifted); `{}` when it is gone. */
  read?(ctx: ProviderContext, req: ReadRequest<O>): Promise<ReadResult<O>>;
  update?(ctx: ProviderContext, req: UpdateRequest<I, O>): Promise<{ outs: O }>;
  remove?(ctx: ProviderContext, req: DeleteRequest<O>): Promise<void>;
  /** An existing record taken into a stack, found from the id alone. */
  importRecord?(ctx: ProviderContext, req: ImportRequest): Promise<ReadResult<O>>;
}
