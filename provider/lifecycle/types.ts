/**
 * One implementation per resource, whatever serves it: plain functions over typed inputs and
 * outputs. The dynamic provider (`../dynamic/`) adapts these to Pulumi's dynamic-provider server.
 * The result types are Pulumi's own.
 */
import type * as pulumi from "@pulumi/pulumi";

export interface Lifecycle<Inputs, Outputs> {
  /** Every problem with the inputs (no request), and the inputs as they will be stored. */
  check(olds: Record<string, unknown>, news: Record<string, unknown>): Promise<{ inputs: Inputs; failures: pulumi.dynamic.CheckFailure[] }>;
  /** What an update would change, and what forces a replacement; reads only to preview an adoption. */
  diff(id: string, olds: Outputs, news: Inputs): Promise<DiffResult>;
  create(inputs: Inputs): Promise<{ id: string; outs: Outputs }>;
  /** The live record, and the inputs that match it (so a refresh names what drifted); `{}` when it is gone. */
  read(id: string, props: Outputs): Promise<ReadResult<Outputs>>;
  update(id: string, olds: Outputs, news: Inputs): Promise<{ outs: Outputs }>;
  remove(id: string, props: Outputs): Promise<void>;
  /**
   * An existing record taken into a stack by `pulumi import` (or `--import-pending-creates`): found
   * from the id alone, with whatever inputs the engine still has (`hint`). Returns the record's id,
   * its outputs and the inputs that describe it.
   */
  importRecord(id: string, hint: Record<string, unknown>): Promise<ReadResult<Outputs>>;
}

/** Pulumi's `dynamic.ReadResult`, with the refreshed inputs typed as inputs rather than as outputs. */
export interface ReadResult<Outputs> {
  id?: string;
  props?: Outputs;
  inputs?: Record<string, unknown>;
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
