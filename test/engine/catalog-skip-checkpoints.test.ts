/**
 * The catalog tool's `up` on a folder backend skips Pulumi's intermediate checkpoints (issue 46:
 * `provider/catalog/run.ts` says why and when), and keeps the stack's create journal beside its
 * state instead: a line before each create is sent, one with its id when the answer arrives. With
 * the real CLI and the simulator, what a team sees:
 * 1. while the up runs, the state holds none of its creates and the journal beside it names them; at
 *    the end the state has them all and the journal is gone;
 * 2. the runner lost mid-up (the tool and everything below it killed, its work folder and
 *    PULUMI_HOME gone with it): from a fresh runner, plan blocks the stack and names every create the
 *    journal names, recover takes in each by the id the journal gives (one read each, one listing
 *    of the projects, nothing created), and the next up leaves every key with exactly one product,
 *    as declared, and a preview with no change;
 * 3. a key removed from the catalog after such a kill is not taken in: recover names it, exits 1 and
 *    the stack stays blocked; with the entry back, recover takes it in.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Simulator } from "pulumi-serviceapi-simulator";
import type { RunReport } from "../../provider/catalog/report";
import { until } from "../../scripts/engine/async";
import { ENGINE_TIMEOUT_MS } from "../../scripts/engine/driver";
import { killTree, processesWithEnv } from "../../scripts/engine/processes";
import { catalogUserFor, type CatalogUser, type Entry } from "./catalog-support";
import { step } from "./suite";

const STACK = "catalog-products.all";

describe("serviceapi-catalog up without Pulumi's checkpoints, the journal beside the state", { timeout: ENGINE_TIMEOUT_MS * 3 }, () => {
  let sim: Simulator;
  let user: CatalogUser;
  catalogUserFor((made) => ({ sim, user } = made));

  const journalFile = () => join(user.backendDir, ".pulumi", "serviceapi", "journal", "serviceapi-catalog", `${STACK}.jsonl`);
  /** The keys the journal beside the state names with an id: key → id. */
  const journaledIds = () =>
    new Map(user.journalBeside(STACK).flatMap((l) => (l.op === undefined && typeof l.id === "string" ? [[l.name as string, l.id]] : [])));
  const add = (from: number, count: number) =>
    user.edit("products.yaml", (entries) => {
      for (let n = from; n < from + count; n++) entries[`p${n}`] = { project: "Acme Web", title: `P ${n}`, slug: `p-${n}` };
    });
  /** Kills the whole run once `count` products exist on the service, and waits until nothing of it is left and the service is done. */
  async function lostRunner(count: number): Promise<void> {
    sim.addFault({ operation: "products.create", kind: "delay", delayMs: 150, times: 1000 });
    const run = user.start(["up", "--stack-size", "200"]);
    await until(`${count} products on the service`, () => sim.products().length >= count, ENGINE_TIMEOUT_MS);
    killTree(run.child.pid!);
    await run.run;
    await until("every process of the run gone", () => processesWithEnv("PULUMI_HOME", user.pulumiHome).length === 0, 20_000);
    sim.clearFaults();
    await until("the service done with what was sent", () => sim.openConnections() === 0, 20_000);
    // The runner is gone with its work folder (the journal of a checkpointed run lived there) and its PULUMI_HOME.
    user.cleanRunner();
  }
  /**
   * The creates whose answer the kill lost (the journal has the line before the request, not the one
   * after): each found on the service by its slug and adopted, as a person would, or — never sent —
   * created anew.
   */
  async function settleLostCreates(): Promise<void> {
    const preview = await user.tool(["preview", "--json", "--stack-size", "200"]);
    const lost = (JSON.parse(preview.stdout) as RunReport).results
      .flatMap((r) => r.notes)
      .flatMap((n) => (n.code === "lost-create" ? [n.key] : []));
    const anew: string[] = [];
    user.edit("products.yaml", (entries) => {
      for (const key of lost) {
        const found = sim.products().find((p) => p.slug === entries[key]!.slug);
        if (found !== undefined) entries[key]!.adoptId = found.id;
        else anew.push(key);
      }
    });
    if (anew.length > 0) {
      const cleared = await user.tool(["recover", "--stack-size", "200", ...anew.flatMap((key) => ["--create-anew", key])]);
      expect(cleared.code, cleared.stdout + cleared.stderr).toBe(0);
    }
  }

  /** Against the service: each key of the catalog exactly one product, with the declared title; the state records each with that id. */
  function wholeAsDeclared(): void {
    const catalog = user.files["products.yaml"]!;
    const live = sim.products();
    expect(live.length, "no product made twice, none left over").toBe(Object.keys(catalog).length);
    const recorded = user.products();
    for (const [key, entry] of Object.entries(catalog)) {
      const found = live.filter((p) => p.slug === (entry as Entry).slug);
      expect([key, found.length, found[0]?.title]).toEqual([key, 1, entry.title]);
      expect([key, recorded.get(key)?.id]).toEqual([key, found[0]!.id]);
    }
  }

  it("a mid-run state without the run's creates, a lost runner made whole from the journal, an undeclared key refused", async () => {
    await step("1. an up of 40: mid-run the state records none of its creates, the journal each; at the end the reverse", async () => {
      add(0, 40);
      sim.addFault({ operation: "products.create", kind: "delay", delayMs: 100, times: 1000 });
      const run = user.start(["up", "--stack-size", "200"]);
      await until("15 creates answered and journaled", () => journaledIds().size >= 15, ENGINE_TIMEOUT_MS);
      const journaled = journaledIds();
      const made = new Map(sim.products().map((p) => [p.slug, p.id]));
      for (const [key, id] of journaled) expect([key, made.get(user.files["products.yaml"]![key]!.slug!)]).toEqual([key, id]);
      expect(user.journalBeside(STACK)[0]).toMatchObject({ op: "run", command: "up" });
      expect(user.products().size, "the state records nothing of the run yet").toBe(0);
      const done = await run.run;
      sim.clearFaults();
      expect(done.code, done.stdout + done.stderr).toBe(0);
      expect(done.stderr.split("\n")).toContain(
        "checkpoints: skipped on 1 of 1 stack(s), each with its create journal beside the state " +
          "(PULUMI_SKIP_CHECKPOINTS=false keeps them all; docs/catalog.md#settings)",
      );
      expect(existsSync(journalFile())).toBe(false);
      wholeAsDeclared();
    });

    let inJournal = new Map<string, string>();
    await step("2. the runner lost mid-up: a fresh runner's plan blocks the stack and names the journal's creates", async () => {
      add(40, 60);
      user.edit("products.yaml", (entries) => {
        for (const key of ["p1", "p2", "p3"]) entries[key]!.title = `${entries[key]!.title} (renamed)`;
      });
      await lostRunner(60);
      inJournal = journaledIds();
      // Most of the 20 made before the kill were answered (a few may have been in flight); each id is that key's product.
      expect(inJournal.size).toBeGreaterThanOrEqual(10);
      for (const [key, id] of inJournal)
        expect([key, sim.products().find((p) => p.id === id)?.slug]).toEqual([key, user.files["products.yaml"]![key]!.slug]);
      const pending = await user.pendingCreates(STACK);
      const plan = await user.tool(["plan", "--stack-size", "200"]);
      expect(plan.code, plan.stderr).toBe(0);
      const shown = `${pending.slice(0, 5).join(", ")} and ${pending.length - 5} more`;
      expect(plan.stdout.split("\n")).toContain(
        `${STACK}: ${pending.length} create(s) left pending by a killed run (${shown}): an up now would create them again. ` +
          `\`serviceapi-catalog recover --stack ${STACK}\` takes in those whose answer the run recorded and names the others`,
      );
      sim.clearRequests();
      const up = await user.tool(["up", "--stack-size", "200"]);
      expect(up.code, up.stdout + up.stderr).toBe(1);
      expect(sim.requests("products.create")).toHaveLength(0);
    });

    await step(
      "3. recover from that runner: each journaled create taken in by its id, one read each; then up, and every key once",
      async () => {
        sim.clearRequests();
        const recover = await user.tool(["recover", "--stack-size", "200"]);
        expect(recover.code, recover.stdout + recover.stderr).toBe(0);
        const lines = recover.stdout.trimEnd().split("\n");
        expect(lines[0]).toBe(`${STACK}:`);
        expect(lines[1]).toMatch(/^ {2}unlocked: the lock of \S+@\S+ \(pid \d+\) since \S+ \(that process is gone\)$/);
        for (const [key, id] of inJournal)
          expect(lines).toContain(
            `  = ${key} (adopted ${id}: its create returned before the kill, and the run recorded its id; read, nothing created)`,
          );
        expect(lines.at(-1)).toBe(
          `  removed ${journalFile()}: the create journal of a run that skipped Pulumi's checkpoints; the state now holds what it named`,
        );
        expect(
          sim
            .requests()
            .map((r) => `${r.method} ${r.operation} ${JSON.stringify(r.body)}`)
            .sort(),
        ).toEqual(["GET projects.list null", ...[...inJournal.values()].map(() => "PATCH products.update {}")].sort());
        expect(await user.pendingCreates(STACK)).toEqual([]);
        await settleLostCreates();
        const up = await user.tool(["up", "--stack-size", "200"]);
        expect(up.code, up.stdout + up.stderr).toBe(0);
        wholeAsDeclared();
        const clean = await user.tool(["preview", "--json", "--stack-size", "200"]);
        expect([clean.code, (JSON.parse(clean.stdout) as RunReport).results.flatMap((r) => r.changes)]).toEqual([0, []]);
      },
    );

    await step(
      "4. a journaled key removed from the catalog after the kill: recover names it, exits 1, the stack stays blocked",
      async () => {
        add(100, 30);
        await lostRunner(115);
        const journaled = journaledIds();
        const [gone, id] = [...journaled].at(-1)!;
        const entry = user.files["products.yaml"]![gone]!;
        user.edit("products.yaml", (entries) => delete entries[gone]);
        const recover = await user.tool(["recover", "--stack-size", "200"]);
        expect(recover.code, recover.stdout).toBe(1);
        const words =
          `${gone}: created by the killed run as ${id}, but the catalog no longer declares it: not taken in, ` +
          `and ${STACK} stays blocked. Put its entry back and run \`serviceapi-catalog recover --stack ${STACK}\` ` +
          "(a later pull request that removes it archives it)";
        expect(recover.stdout.split("\n")).toContain(`  ! ${words}`);
        // plan (and preview, up) give the same way out, not "recover takes it in": recover cannot.
        const plan = await user.tool(["plan", "--stack-size", "200"]);
        expect(plan.stdout.split("\n")).toContain(`${STACK}: ${words}`);
        expect(plan.stdout).not.toContain("left pending by a killed run");
        expect(await user.pendingCreates(STACK)).toEqual([gone]);
        const up = await user.tool(["up", "--stack-size", "200"]);
        expect(up.code).toBe(1);

        user.edit("products.yaml", (entries) => (entries[gone] = entry));
        const again = await user.tool(["recover", "--stack-size", "200"]);
        expect(again.code, again.stdout + again.stderr).toBe(0);
        expect(again.stdout).toContain(`  = ${gone} (adopted ${id}: its create returned before the kill`);
        await settleLostCreates();
        const last = await user.tool(["up", "--stack-size", "200"]);
        expect(last.code, last.stdout + last.stderr).toBe(0);
        wholeAsDeclared();
        expect(processesWithEnv("PULUMI_HOME", user.pulumiHome)).toEqual([]);
      },
    );
  });
});
