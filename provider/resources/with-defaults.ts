/**
 * `withDefaults(lifecycle)`: what both faces call, so a lifecycle behaves the same behind either.
 * It turns the engine's values into each operation's typed request — inputs decoded here, as each
 * request arrives, by the field table (`stored-state.ts`); a state of an older shape migrated to
 * today's (`state-migrations.ts`); the logical name as the face supplies it — runs the table's
 * checks, records in the ledger what a later operation of the command needs (a `check` makes the
 * next `diff` of the resource a planning one), adds the configuration advice to the failures of
 * record operations (`errors.ts`), and supplies what the lifecycle leaves out:
 *
 * | Left out | Default | Why |
 * |---|---|---|
 * | `check` | the table's checks only | they need no read |
 * | `read` | the stored state, unchanged | nothing can be read (Task): refresh keeps what was stored |
 * | `update` | the stored outputs | nothing is sent |
 * | `remove` | nothing | the record is only forgotten |
 * | `importRecord` | refused, naming the type | the record cannot be found from its id |
 */
import { Failures, checkInputs } from "./checks";
import type { ProviderContext } from "./context";
import { UserError, adviseOnFailure } from "./errors";
import type { CheckFailure, DiffResult, Lifecycle, ReadResult, Values } from "./lifecycle";
import { migrateState } from "./state-migrations";
import { inputCodec, withoutName } from "./stored-state";

interface Named {
  /** The logical name, as the face found it (`undefined` in state from before names were kept). */
  name: string | undefined;
}

/**
 * Every operation, over the values as the engine hands them over (minus what is the face's own,
 * such as `__provider`): any object, read as the table says.
 */
export interface Handlers<O extends object = object> {
  /** `Product`, `Site`, `Task`. */
  readonly type: string;
  /** `secrets`: the input names the program marked secret, as the face can tell them (`undefined`: it cannot). */
  check(
    ctx: ProviderContext,
    req: Named & { olds: object; news: object; secrets?: readonly string[] },
  ): Promise<{ inputs: object; failures: CheckFailure[] }>;
  /** `secrets`: as for `check`, when the face sees them in the diff's own values; else what this resource's `check` was told. */
  diff(ctx: ProviderContext, req: Named & { id: string; olds: object; news: object; secrets?: readonly string[] }): Promise<DiffResult>;
  create(ctx: ProviderContext, req: Named & { inputs: object }): Promise<{ id: string; outs: O }>;
  read(ctx: ProviderContext, req: Named & { id: string; state: object }): Promise<ReadResult<O>>;
  update(ctx: ProviderContext, req: Named & { id: string; olds: object; news: object }): Promise<{ outs: O }>;
  remove(ctx: ProviderContext, req: Named & { id: string; state: object }): Promise<void>;
  importRecord(ctx: ProviderContext, req: Named & { id: string; hint: object }): Promise<ReadResult<O>>;
}

export function withDefaults<I extends object, O extends object>(lifecycle: Lifecycle<I, O>): Handlers<O> {
  const { fields } = lifecycle;
  const type = fields.resource;
  const codec = inputCodec<I>(fields);
  // The outputs this lifecycle wrote, minus the name a face may keep beside them, in today's shape (`state-migrations.ts`).
  const state = (values: object) => migrateState(type, withoutName(values as Values)) as O;
  const decode = (values: object) => codec.decode(values as Values);
  return {
    type,

    async check(ctx, { name, olds, news, secrets: marked }) {
      ctx.settings(); // a missing token or base URL fails the preview here, before any request
      ctx.ledger.noteChecked(type, name);
      const secrets = marked === undefined ? undefined : new Set(marked);
      ctx.ledger.noteSecrets(type, name, secrets);
      const failures = new Failures();
      checkInputs(failures, fields, news as Values);
      if (failures.list.length > 0) return { inputs: codec.pick(news as Values), failures: failures.list };
      const inputs = decode(news);
      const more = lifecycle.check
        ? await lifecycle.check(ctx, { name, olds: codec.decodePartial(olds as Values), news: inputs, secrets })
        : [];
      return { inputs, failures: more };
    },

    async diff(ctx, { name, id, olds, news, secrets }) {
      const request = {
        name,
        id,
        olds: state(olds),
        news: codec.decodePartial(news as Values),
        planning: ctx.ledger.wasChecked(type, name),
        secrets: secrets === undefined ? ctx.ledger.secretsOf(type, name) : new Set(secrets),
      };
      return lifecycle.diff(ctx, request);
    },

    create: adviseOnFailure("other", async (ctx: ProviderContext, { name, inputs }: Named & { inputs: object }) => {
      ctx.noteWork();
      return lifecycle.create(ctx, { name, inputs: decode(inputs) });
    }),

    read: adviseOnFailure("read", async (ctx: ProviderContext, { name, id, state: stored }: Named & { id: string; state: object }) => {
      return lifecycle.read ? lifecycle.read(ctx, { name, id, state: state(stored) }) : { id, props: state(stored) };
    }),

    update: adviseOnFailure(
      "other",
      async (ctx: ProviderContext, { name, id, olds, news }: Named & { id: string; olds: object; news: object }) => {
        ctx.noteWork();
        return lifecycle.update ? lifecycle.update(ctx, { name, id, olds: state(olds), news: decode(news) }) : { outs: state(olds) };
      },
    ),

    remove: adviseOnFailure("remove", async (ctx: ProviderContext, { name, id, state: stored }: Named & { id: string; state: object }) => {
      ctx.noteWork();
      await lifecycle.remove?.(ctx, { name, id, state: state(stored) });
    }),

    importRecord: adviseOnFailure("other", async (ctx: ProviderContext, { name, id, hint }: Named & { id: string; hint: object }) => {
      if (!lifecycle.importRecord)
        throw new UserError(`${type} ${id} cannot be imported: this resource type cannot read a record from its id.`);
      return lifecycle.importRecord(ctx, { name, id, hint: hint as Values });
    }),
  };
}
