/**
 * States of an older shape, turned into the shape today's lifecycles read, in one place: as
 * pulumi-go-provider's `infer` does with its StateMigrations, each step recognises one older shape
 * and returns the current one, and the lifecycles read only the current shape. Applied where a
 * state enters a lifecycle — `withDefaults` (`with-defaults.ts`), for both faces: the state of a
 * diff, read, update or delete — and by `fateOf` (`product/taken-over.ts`), which the catalog tool
 * also calls on the states it reads itself.
 *
 * A step gives what the lifecycles' own fallbacks gave before it existed, so an old stack behaves
 * as it did; it sends nothing and says nothing. Its result is stored at the resource's next write
 * or refresh, as today's state would be; a step's result is the current shape, so no step
 * recognises it again. What a state cannot tell stays as it was: a state that never kept the
 * logical name has none (messages name the record by id), and a site from before the name this
 * stack set was kept (`setKey` in `site.ts`) is judged by its name at delete (docs/architecture.md says why).
 */
import type { Values } from "./lifecycle";
import { ADOPTED_WITHOUT_RECORD, CREATED_HERE, PRODUCT_FIELDS, TAKEN_OVER } from "./product/inputs-and-state";
import { SITE, SITE_FIELDS, originalKey } from "./site";
import { DECLARED, declaredKeys } from "./stored-state";

/** One older shape of a resource's state, and how it becomes today's. */
export interface StateMigration<Old extends Values = Values> {
  /** The older shape, as a sentence (the tests name it). */
  readonly shape: string;
  /** Whether `state` is of that shape. */
  recognises(state: Values): state is Old;
  /** The state in today's shape. */
  migrate(state: Old): Values;
}

/**
 * A product's state that is the inputs of a create left pending by a killed `pulumi up`, as
 * `serviceapi-catalog recover` takes it in (its outputs are the create's inputs, read at once by a
 * targeted refresh; a placeholder of a lost create the same, with `__unconfirmedCreate`): nothing
 * the provider writes, so no `__declared`.
 */
type PendingProductCreate = Values & { [DECLARED]?: undefined };

/**
 * A product adopted (`adoptId`) by a version that did not record what it found (0.1.0, before
 * `__takenOver`): neither `__takenOver` nor `__createdByThisStack`. What it was is unknown, so
 * deleting it leaves it as it is (`fateOf`).
 */
type AdoptedWithoutRecord = Values & { adoptId: string; [TAKEN_OVER]?: undefined; [CREATED_HERE]?: undefined };

export const PRODUCT_STATE_MIGRATIONS: readonly StateMigration[] = [
  {
    shape: "a pending create taken in as its inputs: no __declared",
    recognises: (state): state is PendingProductCreate => state[DECLARED] === undefined,
    // The inputs it holds are the ones its program declared.
    migrate: (state: PendingProductCreate) => ({ ...state, [DECLARED]: declaredKeys(inputsIn(state, Object.keys(PRODUCT_FIELDS.inputs))) }),
  } satisfies StateMigration<PendingProductCreate>,
  {
    shape: "adopted by a version that did not record what it found: adoptId, no __takenOver, no __createdByThisStack",
    recognises: (state): state is AdoptedWithoutRecord =>
      state.adoptId !== undefined &&
      state[TAKEN_OVER] === undefined &&
      state[CREATED_HERE] === undefined &&
      state[ADOPTED_WITHOUT_RECORD] === undefined,
    migrate: (state: AdoptedWithoutRecord) => ({ ...state, [ADOPTED_WITHOUT_RECORD]: true }),
  } satisfies StateMigration<AdoptedWithoutRecord>,
];

/**
 * A site's state that is the inputs of a create left pending (Pulumi's `refresh
 * --import-pending-creates`, which a refresh then reads): no `__declared`, no `originalName`.
 */
type PendingSiteCreate = Values & { [DECLARED]?: undefined };

/** What a site's program must declare: a refresh of a pending create records these as its declared inputs. */
const SITE_REQUIRED = Object.keys(SITE_FIELDS.inputs)
  .filter((key) => SITE_FIELDS.inputs[key as keyof typeof SITE_FIELDS.inputs].required)
  .sort();

export const SITE_STATE_MIGRATIONS: readonly StateMigration[] = [
  {
    shape: "a pending create taken in as its inputs: no __declared, no originalName",
    recognises: (state): state is PendingSiteCreate => state[DECLARED] === undefined,
    // What each field it holds was before the take-over was never read: unknown, so a delete leaves it as it is.
    migrate: (state: PendingSiteCreate) => ({
      ...state,
      ...Object.fromEntries(
        SITE.updatable
          .filter((field) => state[SITE.property(field)] !== undefined)
          .map((field) => [originalKey(field), state[originalKey(field)] ?? null]),
      ),
      [DECLARED]: SITE_REQUIRED,
    }),
  } satisfies StateMigration<PendingSiteCreate>,
];

const MIGRATIONS: Readonly<Record<string, readonly StateMigration[]>> = {
  Product: PRODUCT_STATE_MIGRATIONS,
  Site: SITE_STATE_MIGRATIONS,
  Task: [],
};

/** `state` of a `resource` (`Product`, `Site`, `Task`) in today's shape: each step that recognises it, in order. */
export function migrateState(resource: string, state: Values): Values {
  let current = state;
  for (const step of MIGRATIONS[resource] ?? []) if (step.recognises(current)) current = step.migrate(current);
  return current;
}

/** The input fields a state holds, `null` dropped. */
function inputsIn(state: Values, keys: readonly string[]): Values {
  return Object.fromEntries(keys.flatMap((key) => (state[key] === undefined || state[key] === null ? [] : [[key, state[key]]])));
}
