/**
 * The contract every resource's lifecycle meets, whatever face serves it: plain functions over
 * the values the engine hands over, with the process's context passed in. As in
 * pulumi-go-provider's `infer`, only `create` is required; a face supplies the rest's defaults
 * (`check`: the inputs as given; `read`: the stored state; `update`: the stored outputs; `remove`:
 * nothing; `importRecord`: "cannot be imported"). The types are ours, not `pulumi.dynamic.*`: the
 * plugin serves the same lifecycles without the dynamic-provider SDK.
 */
import type { ProviderContext } from "./context";

/** Values as the engine hands them over: each lifecycle checks and narrows its own. */
export type Values = Record<string, unknown>;

/** An input problem. `property` stays empty: the engine prints a named property's value beside it, and any value may be a secret. */
export interface CheckFailure {
  property: string;
  reason: string;
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
 * `Outputs` is what the lifecycle stores. Its methods are declared as methods (not properties), so a
 * `Lifecycle<ProductOutputs>` is also a `Lifecycle` to a face that only passes values through.
 */
export interface Lifecycle<Outputs extends object = object> {
  /** Every problem with the inputs — before any write; a read only where a problem can be seen no other way — and the inputs as stored. */
  check?(ctx: ProviderContext, olds: Values, news: Values): Promise<{ inputs: Values; failures: CheckFailure[] }>;
  /** What an update would change, and what forces a replacement. */
  diff?(ctx: ProviderContext, id: string, olds: Outputs, news: Values): Promise<DiffResult>;
  create(ctx: ProviderContext, inputs: Values): Promise<{ id: string; outs: Outputs }>;
  /** The live record, and the inputs that match it (so a refresh names what drifted); `{}` when it is gone. */
  read?(ctx: ProviderContext, id: string, props: Outputs): Promise<ReadResult<Outputs>>;
  update?(ctx: ProviderContext, id: string, olds: Outputs, news: Values): Promise<{ outs: Outputs }>;
  remove?(ctx: ProviderContext, id: string, props: Outputs): Promise<void>;
  /**
   * An existing record taken into a stack by `pulumi import` (or `--import-pending-creates`): found
   * from the id alone, with whatever inputs the engine still has (`hint`).
   */
  importRecord?(ctx: ProviderContext, id: string, hint: Values): Promise<ReadResult<Outputs>>;
}
