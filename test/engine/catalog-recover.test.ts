/**
 * A killed `serviceapi-catalog up` (issue 32, "kills it can see and recover"), with the real CLI:
 * 100 new products being created, and the run killed as a lost runner takes it — the tool and every
 * process below it at once. Then what a team sees and does, in order: `plan` names the locked stack
 * and its pending creates, `up` refuses that stack with the same words (and runs the others),
 * `recover` clears the lock and takes in the pending creates — the one whose answer the provider
 * journaled by its id (read, not created), the others as creates in flight named with their title
 * and slug — and the next `up` creates the rest and nothing twice. Each in-flight product is then
 * found as a person would find it (by its title, on the service), adopted with `adoptId`, or created
 * anew with `recover --create-anew` when it never reached the service. At the end every key has
 * exactly one product, and no process of any run is alive.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { describeReason } from "../../provider/catalog/report";
import { journalCreate } from "../../provider/resources/journal";
import { readCreated, TOOL_ENV } from "../../provider/resources/tool-protocol";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { until } from "../../scripts/engine/async";
import { ENGINE_TIMEOUT_MS } from "../../scripts/engine/driver";
import { killTree, processesWithEnv } from "../../scripts/engine/processes";
import { catalogUserFor, type CatalogUser, reportLines, type Entry } from "./catalog-support";
import { step } from "./suite";

const BULK = "catalog-bulk.all";

/** Products on the service, by title (what a person searches for in the service's UI). */
function byTitle(sim: Simulator): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const p of sim.products()) out.set(p.title, [...(out.get(p.title) ?? []), p.id]);
  return out;
}

describe("serviceapi-catalog after a kill", { timeout: ENGINE_TIMEOUT_MS * 3 }, () => {
  let sim: Simulator;
  let user: CatalogUser;
  catalogUserFor((made) => ({ sim, user } = made));

  it("plan names the lock and the pending creates, up refuses, recover takes them in, nothing is created twice", async () => {
    const titles = new Map<string, string>();
    let inFlight: string[] = [];
    /** A lost create as plan, preview, up and recover all word it. */
    const lost = (key: string) =>
      describeReason({
        code: "lost-create",
        key,
        stack: BULK,
        title: titles.get(key)!,
        slug: titles.get(key)!.replace("Bulk ", "bulk-"),
        file: "bulk.yaml",
      });

    await step("1. an up of 100 new products, killed with everything below it once 30 exist", async () => {
      const bulk: Record<string, Entry> = {};
      for (let n = 0; n < 100; n++) {
        const key = `bulk-${String(n).padStart(3, "0")}`;
        bulk[key] = { project: "Acme Web", title: `Bulk ${n}`, slug: `bulk-${n}` };
        titles.set(key, `Bulk ${n}`);
      }
      // The other stack deployed first and left out of the killed run: step 4b needs its product recorded, and a kill
      // racing that stack's own run (CI once killed it before the stack existed) would leave nothing to point at.
      user.files["plans.yaml"] = { pro: { project: "Acme Web", title: "Pro plan" } };
      user.writeCatalog();
      const plans = await user.tool(["up"]);
      expect(plans.code, plans.stdout + plans.stderr).toBe(0);
      user.files["bulk.yaml"] = bulk;
      user.writeCatalog();
      // Slow creates, so that several are in flight at the kill; each is processed even if its client is gone.
      sim.addFault({ operation: "products.create", kind: "delay", delayMs: 300, times: 1000 });
      const run = user.start(["up", "--stack", BULK]);
      await until("30 products on the service", () => sim.products().length >= 30);
      killTree(run.child.pid!);
      await run.run;
      await until("every process of the run gone", () => processesWithEnv("PULUMI_HOME", user.pulumiHome).length === 0, 20_000);
      sim.clearFaults();
      // The creates in flight at the kill are processed by the service all the same: each request sent becomes a product.
      await until("the service done with what was sent", () => sim.products().length === sim.requests("products.create").length, 20_000);
    });

    await step("2. plan names the locked stack and its pending creates, with the way out", async () => {
      inFlight = await user.pendingCreates(BULK);
      expect(inFlight.length).toBeGreaterThan(0);
      const plan = await user.tool(["plan"]);
      expect(plan.code, plan.stderr).toBe(0);
      const lines = plan.stdout.split("\n");
      expect(lines).toContainEqual(
        expect.stringMatching(
          new RegExp(
            `^${BULK.replace(".", "\\.")}: LOCKED by \\S+@\\S+ \\(pid \\d+\\) since \\S+: a run on it was killed, or is still running\\. ` +
              `When no run is left \\(a killed or cancelled job\\), \`serviceapi-catalog recover --stack ${BULK.replace(".", "\\.")}\` clears it$`,
          ),
        ),
      );
      const shown = inFlight.length <= 5 ? inFlight.join(", ") : `${inFlight.slice(0, 5).join(", ")} and ${inFlight.length - 5} more`;
      expect(lines).toContain(
        `${BULK}: ${inFlight.length} create(s) left pending by a killed run (${shown}): an up now would create them again. ` +
          `\`serviceapi-catalog recover --stack ${BULK}\` takes in those whose answer the run recorded and names the others`,
      );
    });

    await step(
      "3. up refuses the stack with the same words, before running it (its preview for the policies too); no create is sent for it",
      async () => {
        // A kill while Pulumi wrote the state can also leave its `.attrs` file empty (about 1 run of 4); made certain here,
        // because the up's preview for the policies once tried that stack, could not load it, and refused the whole up.
        const attrs = join(user.backendDir, ".pulumi", "stacks", "serviceapi-catalog", `${BULK}.json.attrs`);
        expect(existsSync(attrs)).toBe(true);
        writeFileSync(attrs, "");
        sim.clearRequests();
        const up = await user.tool(["up"]);
        expect(up.code, up.stdout + up.stderr).toBe(1);
        const lines = reportLines(up.stdout);
        const at = lines.findIndex((l) => l.startsWith(`${BULK} `));
        expect(lines[at]).toBe(`${BULK} (100 products): not run; 0 request(s), N s — BLOCKED`);
        const notes = lines.slice(at + 1).filter((l) => l.startsWith("  ! "));
        expect(notes.some((l) => l.startsWith("  ! LOCKED by "))).toBe(true);
        expect(notes.some((l) => /^ {2}! \d+ create\(s\) left pending by a killed run /.test(l))).toBe(true);
        expect(sim.requests("products.create").length).toBeLessThanOrEqual(1);
      },
    );

    await step(
      "4. recover: unlocked, each create whose answer the run recorded taken in by its id, the others named in flight",
      async () => {
        // A create that returned before the kill has its id on the pending operation (the engine wrote it) or in the
        // create journal (the provider writes it the moment the answer arrives). The window for the journal alone is
        // milliseconds, too narrow to hit with a timed kill: when no pending create has an id, this writes the line the
        // provider writes (the same function) for one in-flight product the service did create.
        const live = byTitle(sim);
        const journalFile = join(user.repo, ".serviceapi-catalog", "journal", `${BULK}.jsonl`);
        const journaled = new Map(readCreated(existsSync(journalFile) ? readFileSync(journalFile, "utf8") : "").map((e) => [e.name, e.id]));
        const known = new Map<string, string>();
        for (const { key, id } of await user.pendingIds(BULK)) {
          const recorded = id ?? journaled.get(key);
          if (recorded !== undefined) known.set(key, recorded);
        }
        if (known.size === 0) {
          const key = inFlight.find((k) => live.get(titles.get(k)!)?.length === 1)!;
          const id = live.get(titles.get(key)!)![0]!;
          expect(
            journalCreate({ type: "Product", name: key, id, at: new Date().toISOString() }, { [TOOL_ENV.createdJournal]: journalFile }),
          ).toEqual({ written: true });
          known.set(key, id);
        }

        // Where the run skipped Pulumi's checkpoints (the default on a folder backend), the journal beside the state names its creates.
        const skipped = user.journalBeside(BULK).length > 0;
        sim.clearRequests();
        const recover = await user.tool(["recover"]);
        expect(recover.code, recover.stdout + recover.stderr).toBe(0);
        const lines = recover.stdout.trimEnd().split("\n");
        expect(lines[0]).toBe(`${BULK}:`);
        // The empty `.attrs` file (step 3) is repaired first.
        expect(lines[1]).toMatch(
          /^ {2}repaired: removed \S+\.json\.attrs, an empty attributes file the kill left, which stopped Pulumi from loading the state$/,
        );
        expect(lines[2]).toMatch(/^ {2}unlocked: the lock of \S+@\S+ \(pid \d+\) since \S+ \(that process is gone\)$/);
        for (const [key, id] of known)
          expect(lines).toContain(
            `  = ${key} (adopted ${id}: its create returned before the kill, and the run recorded its id; read, nothing created)`,
          );
        // The lost creates, in the words plan and preview use for them (one place makes them: report.ts).
        for (const key of inFlight.filter((k) => !known.has(k))) expect(lines).toContain(`  ? ${lost(key)}`);
        // Recovering sent one read of each product taken in by id, and nothing else — but, where the run skipped
        // the checkpoints, one listing of the projects: its targeted up declares the products again, each project
        // resolved by name as the up did.
        expect(
          sim
            .requests()
            .map((r) => `${r.method} ${r.path} ${JSON.stringify(r.body)}`)
            .filter((r) => !(skipped && /^GET \S*\/projects\?/.test(r)))
            .sort(),
        ).toEqual([...known.values()].map((id) => `PATCH /api/v1/public/products/${id} {}`).sort());
        if (skipped) expect(sim.requests("projects.list").length).toBe(1);
        expect(await user.pendingCreates(BULK)).toEqual([]);
        inFlight = inFlight.filter((k) => !known.has(k));
      },
    );

    await step(
      "4b. recover again with a log whose one line names another stack's product, and plan: that id refused, every lost create named alike",
      async () => {
        if (inFlight.length === 0) return;
        // A line pasted from the wrong log: the id of a product the plans stack records.
        const wrong = user.products().get("pro")!.id;
        const log = join(user.repo, "wrong.log");
        writeFileSync(log, `${BULK}: created Product "${inFlight[0]}" ${wrong}\n`);
        sim.clearRequests();
        const again = await user.tool(["recover", "--created-log", log]);
        expect(again.code, again.stdout + again.stderr).toBe(0);
        const lines = again.stdout.trimEnd().split("\n");
        expect(lines[0]).toBe(`${BULK}:`);
        expect(lines.slice(1).sort()).toEqual(
          [
            `  ! ${inFlight[0]}: not taken in as ${wrong}, the id ${log} gives for its create: stack organization/serviceapi-catalog/catalog-plans.all (as pro) already records that product. Check the log line; it stays a lost create until the right id is found`,
            ...inFlight.map((key) => `  ? ${lost(key)} (still: no id for it in the journals or logs given)`),
          ].sort(),
        );
        // Refused before any read: nothing was sent.
        expect(sim.requests().filter((r) => r.operation !== null)).toEqual([]);
        const plan = await user.tool(["plan"]);
        for (const key of inFlight) expect(plan.stdout.split("\n")).toContain(`! ${lost(key)}`);
      },
    );

    await step("5. up creates the rest, leaves the in-flight ones named; no key has two products", async () => {
      const up = await user.tool(["up"]);
      expect(up.code, up.stdout + up.stderr).toBe(0);
      const lines = reportLines(up.stdout);
      for (const key of inFlight) expect(lines).toContainEqual(expect.stringContaining(`  ! ${key}: in flight, find and adopt`));
      // A run that exits 0 with products not deployed says how many in its total.
      const leftOut =
        inFlight.length > 0 ? `, ${inFlight.length} left out until adopted (in flight, find and adopt: see above);` : " left out ";
      if (inFlight.length > 0) expect(lines.at(-1)).toContain(leftOut);
      else expect(lines.at(-1)).not.toContain(leftOut);
      const live = byTitle(sim);
      for (const [key, title] of titles) {
        const count = live.get(title)?.length ?? 0;
        if (inFlight.includes(key)) expect([key, count <= 1]).toEqual([key, true]);
        else expect([key, count]).toEqual([key, 1]);
      }
    });

    await step(
      "6. each in-flight product found by its title and adopted, or created anew: every key one product, reported as adopted",
      async () => {
        const live = byTitle(sim);
        const found = inFlight.filter((key) => live.has(titles.get(key)!));
        const missing = inFlight.filter((key) => !live.has(titles.get(key)!));
        for (const key of found) user.files["bulk.yaml"]![key]!.adoptId = live.get(titles.get(key)!)![0]!;
        user.writeCatalog();
        for (const key of missing) {
          const anew = await user.tool(["recover", "--create-anew", key]);
          expect(anew.stdout).toContain(
            `  + ${key}: forgotten as a lost create (--create-anew): the next up creates it (once more, if it was on the service after all)`,
          );
        }
        sim.clearRequests();
        const up = await user.tool(["up"]);
        expect(up.code, up.stdout + up.stderr).toBe(0);
        const lines = reportLines(up.stdout);
        for (const key of found)
          expect(lines).toContainEqual(
            expect.stringMatching(
              new RegExp(`^ {2}= ${key} \\(adopted [0-9a-f-]{36}; the record a killed or failed create of this stack made\\)$`),
            ),
          );
        expect(sim.requests("products.create")).toHaveLength(missing.length);
        const after = byTitle(sim);
        for (const [key, title] of titles) expect([key, after.get(title)?.length]).toEqual([key, 1]);
        expect(user.products().size).toBe(101);
        const drift = await user.tool(["drift"]);
        expect(drift.code, drift.stdout).toBe(0);
        expect(processesWithEnv("PULUMI_HOME", user.pulumiHome)).toEqual([]);
      },
    );
  });
});
