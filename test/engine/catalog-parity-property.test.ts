/**
 * The parity suite's three equalities (`parity-support.ts`) as a property: fast-check draws random
 * sequences of catalog edits — titles, statuses (archive, un-archive), descriptions set and cleared,
 * entries added, removed, renamed (`renamedFrom`), moved to the other file, adoptions of products made
 * elsewhere, `onDelete: retain` — applied to a small catalog, and after each step `preview --json`
 * and `up --json` must agree on the exit code and every line, the up's writes must be the ones the
 * preview announced, and the preview must write nothing. Each sequence runs on a backend of its own
 * against one simulator, with the real CLI. On a failure fast-check prints the seed and the
 * sequence (`SERVICEAPI_PARITY_SEED=<seed>` replays it); no shrinking, which would rerun the CLI for
 * minutes.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, it } from "vitest";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { ServiceApiClient } from "../../provider";
import { DEFAULT_IDS } from "../../simulator/seed";
import { simulator } from "../helpers";
import { ENGINE_TIMEOUT_MS, pulumiCli } from "../../scripts/engine/driver";
import { CatalogUser, type Entry } from "./catalog-support";
import { parity } from "./parity-support";

const KEYS = ["k1", "k2", "k3", "k4", "k5"] as const;
const FILES = ["a.yaml", "b.yaml"] as const;

type Edit =
  | { kind: "title"; key: string; value: string }
  | { kind: "status"; key: string; value: "draft" | "active" | "archived" }
  | { kind: "description"; key: string; value: string | null }
  | { kind: "remove"; key: string }
  | { kind: "add"; key: string }
  | { kind: "rename"; key: string }
  | { kind: "move"; key: string }
  | { kind: "retain"; key: string }
  | { kind: "adopt"; key: string };

const key = fc.constantFrom(...KEYS);
const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constant("title" as const), key, value: fc.constantFrom("Title one", "Title two") }),
  fc.record({
    kind: fc.constant("status" as const),
    key,
    value: fc.constantFrom("draft" as const, "active" as const, "archived" as const),
  }),
  fc.record({ kind: fc.constant("description" as const), key, value: fc.constantFrom(null, "one", "two") }),
  fc.record({ kind: fc.constant("remove" as const), key }),
  fc.record({ kind: fc.constant("add" as const), key }),
  fc.record({ kind: fc.constant("rename" as const), key }),
  fc.record({ kind: fc.constant("move" as const), key }),
  fc.record({ kind: fc.constant("retain" as const), key }),
  fc.record({ kind: fc.constant("adopt" as const), key }),
);
/** Three steps of one or two edits each, after a first deploy. */
const sequence = fc.array(fc.array(edit, { minLength: 1, maxLength: 2 }), { minLength: 3, maxLength: 3 });

describe("the preview is the contract, for random sequences of edits", { timeout: ENGINE_TIMEOUT_MS * 6 }, () => {
  let sim: Simulator;
  let client: ServiceApiClient;
  const users: CatalogUser[] = [];

  beforeAll(async () => {
    await pulumiCli();
    sim = await simulator();
    client = new ServiceApiClient({ baseUrl: sim.url, token: sim.token });
  }, 30 * 60_000);

  afterAll(async () => {
    await client?.close();
    for (const user of users) user.dispose();
  });

  /** Where a key's entry is: its file and entry, or undefined. */
  const find = (user: CatalogUser, k: string) => {
    for (const file of FILES) if (user.files[file]?.[k] !== undefined) return { file, entry: user.files[file][k] };
    return undefined;
  };

  async function apply(user: CatalogUser, step: Edit[], counter: { n: number }): Promise<void> {
    for (const e of step) {
      const at = find(user, e.key);
      switch (e.kind) {
        case "title":
          if (at) at.entry.title = e.value;
          break;
        case "status":
          if (at) at.entry.status = e.value;
          break;
        case "description":
          if (at && e.value === null) delete at.entry.description;
          else if (at) at.entry.description = e.value!;
          break;
        case "remove":
          if (at) delete user.files[at.file]![e.key];
          break;
        case "add":
          if (!at) user.files["a.yaml"]![e.key] = { project: "Acme Web", title: `New ${e.key}` };
          break;
        case "rename": {
          // The new key is outside the pool: later edits of the old key find nothing (or add it anew).
          if (!at) break;
          counter.n += 1;
          const renamed = `${e.key}-r${counter.n}`;
          delete user.files[at.file]![e.key];
          user.files[at.file]![renamed] = { ...at.entry, renamedFrom: e.key };
          break;
        }
        case "move":
          if (at) {
            delete user.files[at.file]![e.key];
            user.files[at.file === "a.yaml" ? "b.yaml" : "a.yaml"]![e.key] = at.entry;
          }
          break;
        case "retain":
          if (at) at.entry.onDelete = at.entry.onDelete === "retain" ? "archive" : "retain";
          break;
        case "adopt":
          if (!at) {
            counter.n += 1;
            const made = await client.createProduct({ projectId: DEFAULT_IDS.acmeWeb, title: `Made elsewhere ${counter.n}` });
            user.files["b.yaml"]![e.key] = { project: "Acme Web", title: `Adopted ${e.key}`, adoptId: made.id };
          }
          break;
      }
    }
    user.writeCatalog();
  }

  it("preview ≡ up after every step of random edit sequences (seed printed on failure)", async () => {
    const seed = process.env.SERVICEAPI_PARITY_SEED === undefined ? undefined : Number(process.env.SERVICEAPI_PARITY_SEED);
    await fc.assert(
      fc.asyncProperty(sequence, async (steps) => {
        const user = await CatalogUser.create(sim);
        users.push(user);
        user.files["a.yaml"] = {
          k1: { project: "Acme Web", title: "K1" },
          k2: { project: "Acme Web", title: "K2", status: "active" },
          k3: { project: "Acme Web", title: "K3", description: "three" },
        };
        user.files["b.yaml"] = { k4: { project: "Acme Web", title: "K4" } };
        user.writeCatalog();
        const projectId = () => DEFAULT_IDS.acmeWeb;
        await parity(user, sim, "first deploy", projectId);
        const counter = { n: 0 };
        for (const [i, step] of steps.entries()) {
          // Links of an earlier step are deployed: drop them, as the docs advise.
          for (const file of FILES) for (const entry of Object.values(user.files[file] ?? {}) as Entry[]) delete entry.renamedFrom;
          await apply(user, step, counter);
          await parity(user, sim, `step ${i + 1}: ${JSON.stringify(step)}`, projectId);
        }
        user.dispose();
      }),
      { numRuns: Number(process.env.SERVICEAPI_PARITY_RUNS ?? 2), endOnFailure: true, ...(seed !== undefined && { seed }) },
    );
  });
});
