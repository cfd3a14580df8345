/**
 * Sites and tasks in the catalog (issue 44), with the real CLI against the simulator: a catalog of
 * products, the sites a team names (`kind: site`, by subdomain or as the project's default site)
 * and scheduled tasks (`kind: task`), in ordered steps — the first deploy takes the sites over (one
 * PATCH of the name each, none for a site already named so) and creates a task, a pull request
 * renames two sites and adds a task, a site renamed in the UI is found by `drift`, set back by
 * `up --refresh` and accepted by `drift --write`, a changed task is a new one (the old keeps
 * running), a task whose create answer was lost is named and never sent twice, and removed entries
 * give their sites back (or leave a site renamed since as it is) and stop no task. Each change runs through the parity
 * check (`parity-support.ts`): `preview --json` and `up --json` say the same, the up sends exactly
 * the writes its preview announced, and the preview writes nothing.
 */
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { ServiceApiClient } from "../../provider";
import type { RunReport } from "../../provider/catalog/report";
import { DEFAULT_IDS, seedId } from "../../simulator/seed";
import { simulator } from "../helpers";
import { ENGINE_TIMEOUT_MS, pulumiCli } from "../../scripts/engine/driver";
import { CatalogUser, reportLines, type Entry } from "./catalog-support";
import { parity } from "./parity-support";
import { step } from "./suite";

const WEB = "Acme Web";
/** A seeded site of Acme Web by its number (`acme-web-001` is the default site). */
const site = (n: number) => seedId(`site:acme-web:${String(n).padStart(3, "0")}`);
const SITES = "/v1/sites";
const TASKS = "/v1/tasks";
/** A weekly task's fields, its first run far ahead (the test does not depend on today's date). */
const weekly = (title: string): Entry => ({
  kind: "task",
  project: WEB,
  title,
  prompt: "Summarise last week's changes",
  scheduledAt: "2099-01-05T09:00:00Z",
  rrule: "FREQ=WEEKLY;BYDAY=MO",
});

describe(
  "sites and tasks in the catalog: taken over, renamed, drift found and fixed, given back; tasks created once",
  { timeout: ENGINE_TIMEOUT_MS * 3 },
  () => {
    // The first test's service, team and client (the second has its own).
    let sim: Simulator;
    let user: CatalogUser;
    let client: ServiceApiClient;
    const edit = (change: (entries: Record<string, Entry>) => void) => user.edit("web.yaml", change);
    const projectId = () => DEFAULT_IDS.acmeWeb;
    const rename = (id: string, name: string) => client.updateSite(id, { name });
    const liveName = async (id: string) => {
      for await (const s of client.listSites({ projectId: DEFAULT_IDS.acmeWeb, limit: 100 })) if (s.id === id) return s.name;
      return undefined;
    };
    /** A command refused before any stack: exit 2, the line on stderr, and no write (the listings only). */
    const refused = async (args: string[], line: string) => {
      sim.clearRequests();
      const run = await user.tool(args);
      expect(run.code, run.stdout + run.stderr).toBe(2);
      expect(run.stderr).toContain(line);
      expect(sim.requests().filter((r) => r.operation !== null && r.method !== "GET")).toEqual([]);
    };
    /** The site writes the simulator saw: `PATCH /v1/sites/<id> {body}`. */
    const siteWrites = () =>
      sim
        .requests()
        .filter((r) => r.method === "PATCH" && r.path.startsWith(SITES))
        .map((r) => `${r.path} ${JSON.stringify(r.body)}`);

    it("a catalog's sites through preview, up, drift and removal, each preview equal to its up", async () => {
      await pulumiCli();
      sim = await simulator();
      user = await CatalogUser.create(sim);
      onTestFinished(() => user.dispose());
      client = new ServiceApiClient({ baseUrl: sim.url, token: sim.token });
      onTestFinished(() => client.close());
      await step("1. the first deploy: a product and three sites taken over, two renamed, one already named so", async () => {
        edit((web) => {
          web.basic = { project: WEB, title: "Basic plan" };
          // `default: true`, a YAML boolean (the helper's entries are otherwise strings).
          web.home = { kind: "site", project: WEB, default: true, name: "Acme Home" } as unknown as Entry;
          web.shop = { kind: "site", project: WEB, subdomain: "acme-web-002", name: "Acme Shop" };
          web.blog = { kind: "site", project: WEB, subdomain: "acme-web-003", name: "Acme Web 003" };
          web.digest = weekly("Weekly digest");
        });
        const run = await parity(user, sim, "first deploy", projectId);
        expect(run.up.code, run.up.stdout + run.up.stderr).toBe(0);
        const changes = run.previewReport!.results.flatMap((r) => r.changes).sort((a, b) => (a.key < b.key ? -1 : 1));
        expect(
          changes.map((c) => [c.key, c.kind ?? "product", c.op, c.fields.map((f) => `${f.field}: ${String(f.from)} → ${String(f.to)}`)]),
        ).toEqual([
          ["basic", "product", "create", ["title: undefined → Basic plan"]],
          ["blog", "site", "adopt", []],
          [
            "digest",
            "task",
            "create",
            [
              "title: undefined → Weekly digest",
              "prompt: undefined → Summarise last week's changes",
              "scheduledAt: undefined → 2099-01-05T09:00:00Z",
              "rrule: undefined → FREQ=WEEKLY;BYDAY=MO",
            ],
          ],
          ["home", "site", "adopt", ["name: Acme Web 001 → Acme Home"]],
          ["shop", "site", "adopt", ["name: Acme Web 002 → Acme Shop"]],
        ]);
        expect(run.writes.filter((w) => w.includes(SITES))).toEqual([
          `PATCH ${SITES}/${site(1)} {"name":"Acme Home"}`,
          `PATCH ${SITES}/${site(2)} {"name":"Acme Shop"}`,
        ]);
        // In words: each site taken over by its id, the name before → after.
        const text = await user.tool(["preview"]);
        expect(text.code).toBe(0);
        expect(reportLines(text.stdout)).toContain("catalog-web.all (1 product, 3 sites, 1 task): no changes; 0 request(s), N s");
        expect(sim.tasks().length).toBe(1);
        user.git("add", "catalog");
        user.git("commit", "--quiet", "-m", "sites");
      });

      await step(
        "2. a pull request renames two sites and adds a task: the preview shows exactly those, the up sends exactly those",
        async () => {
          edit((web) => {
            web.home!.name = "Acme Home 2027";
            web.shop!.name = "Acme Store";
            web.standup = { ...weekly("Monday check"), prompt: "Check the sites" };
          });
          const preview = await user.tool(["preview", "--base", "HEAD"]);
          expect(preview.code, preview.stdout + preview.stderr).toBe(0);
          expect(reportLines(preview.stdout).slice(1, 12)).toEqual([
            "catalog-web.all (1 product, 3 sites, 2 tasks): 1 to create, 2 to update; 0 request(s), N s",
            "  + standup",
            '      title: "Monday check"',
            '      prompt: "Check the sites"',
            '      scheduledAt: "2099-01-05T09:00:00Z"',
            '      rrule: "FREQ=WEEKLY;BYDAY=MO"',
            "  ~ home",
            '      name: "Acme Home" → "Acme Home 2027"',
            "  ~ shop",
            '      name: "Acme Shop" → "Acme Store"',
            "Total: 1 to create, 0 to adopt, 2 to update, 0 to replace, 0 to remove; 4 request(s) sent (the project listing included); 0 stack(s) failed",
          ]);
          const run = await parity(user, sim, "two renames and a task", projectId);
          expect(run.writes).toEqual([
            `PATCH ${SITES}/${site(1)} {"name":"Acme Home 2027"}`,
            `PATCH ${SITES}/${site(2)} {"name":"Acme Store"}`,
            `POST ${TASKS} {"projectId":"${DEFAULT_IDS.acmeWeb}","prompt":"Check the sites","rrule":"FREQ=WEEKLY;BYDAY=MO","scheduledAt":"2099-01-05T09:00:00Z","title":"Monday check"}`,
          ]);
          // Its id the moment it exists, for a killed run's log (`recover --created-log`).
          expect(run.up.stderr).toMatch(/^catalog-web\.all: created Task "standup" [0-9a-f-]{36}$/m);
          user.git("commit", "--quiet", "-am", "renames");
        },
      );

      await step("3. a site renamed in the UI: drift names it, reading sites by listing (pages of 100), writing nothing", async () => {
        await rename(site(2), "Renamed in the UI");
        user.cleanRunner();
        sim.clearRequests();
        const drift = await user.tool(["drift"]);
        expect(drift.code, drift.stdout + drift.stderr).toBe(7);
        expect(reportLines(drift.stdout).slice(1, 4)).toEqual([
          "catalog-web.all (1 product, 3 sites, 2 tasks): 1 drifted; 4 request(s), N s",
          "  ~ shop",
          '      name: "Acme Store" → "Renamed in the UI"',
        ]);
        // 250 sites: the tool's listing and the stack's, three pages each; the product's read (an empty PATCH); no site write.
        const listings = sim.requests().filter((r) => r.operation === "sites.list").length;
        expect(listings).toBe(6);
        expect(siteWrites()).toEqual([]);
      });

      await step("4. up --refresh sets the name back, exactly that field, as preview --refresh showed", async () => {
        const run = await parity(user, sim, "up --refresh", projectId, ["--refresh"]);
        expect(run.writes).toEqual([`PATCH ${SITES}/${site(2)} {"name":"Acme Store"}`]);
        expect((await user.tool(["drift"])).code).toBe(0);
      });

      await step(
        "5. drift --write takes the UI's name into the catalog file; the up after the merge sends it once, as it says",
        async () => {
          await rename(site(2), "Named by marketing");
          const write = await user.tool(["drift", "--write"]);
          expect(write.code, write.stdout + write.stderr).toBe(7);
          const diff = user
            .git("diff", "--", "catalog")
            .split("\n")
            .filter((line) => /^[-+]\s/.test(line));
          expect(diff).toEqual(["-  name: Acme Store", "+  name: Named by marketing"]);
          user.files["web.yaml"]!.shop!.name = "Named by marketing";
          user.git("commit", "--quiet", "-am", "accept the UI's name");
          // The state still holds the name the stack set: a plain up sends the accepted one (a PATCH that changes nothing live).
          const run = await parity(user, sim, "after drift --write", projectId);
          expect(run.writes).toEqual([`PATCH ${SITES}/${site(2)} {"name":"Named by marketing"}`]);
          expect((await user.tool(["drift"])).code).toBe(0);
        },
      );

      await step("6. entries removed: one site given back its name; one renamed since is left as it is, said so", async () => {
        await rename(site(1), "Changed since");
        edit((web) => {
          delete web.home;
          delete web.shop;
        });
        const run = await parity(user, sim, "removals", projectId, ["--refresh"]);
        const changes = run.previewReport!.results.flatMap((r) => r.changes).sort((a, b) => (a.key < b.key ? -1 : 1));
        expect(
          changes.map((c) => [c.key, c.op, c.fields.map((f) => `${f.field}: ${String(f.from)} → ${String(f.to)}`), c.reasons]),
        ).toEqual([
          ["home", "give-back", [], [{ code: "changed-since", fields: ["name"] }]],
          ["shop", "give-back", ["name: Named by marketing → Acme Web 002"], []],
        ]);
        expect(run.writes).toEqual([`PATCH ${SITES}/${site(2)} {"name":"Acme Web 002"}`]);
        expect(await liveName(site(1))).toBe("Changed since");
        expect(await liveName(site(2))).toBe("Acme Web 002");
      });

      await step("7. a changed task is a new one: one POST, and the old one keeps running, as the preview says", async () => {
        edit((web) => {
          web.digest!.title = "Weekly digest (v2)";
        });
        const preview = await user.tool(["preview"]);
        // The old task named by its id: the API cannot stop it, so the reviewer learns which one to stop by hand.
        const oldId = sim.tasks().find((t) => t.title === "Weekly digest")!.id;
        expect(reportLines(preview.stdout)).toContain(
          `  +- digest (a new task replaces it; the old one (task ${oldId}) keeps running on the service (the API cannot change or stop a task))`,
        );
        const run = await parity(user, sim, "a changed task", projectId);
        expect(run.writes).toEqual([
          `POST ${TASKS} {"projectId":"${DEFAULT_IDS.acmeWeb}","prompt":"Summarise last week's changes","rrule":"FREQ=WEEKLY;BYDAY=MO","scheduledAt":"2099-01-05T09:00:00Z","title":"Weekly digest (v2)"}`,
        ]);
        expect(
          sim
            .tasks()
            .map((t) => t.title)
            .sort(),
        ).toEqual(["Monday check", "Weekly digest", "Weekly digest (v2)"]);
      });

      await step("8. a task whose create answer was lost: named by both, never sent again; its adoptId takes it in", async () => {
        edit((web) => {
          web.lost = weekly("Lost one");
        });
        // The create reaches the service, and its answer is lost on the way back.
        sim.addFault({ operation: "tasks.create", kind: "reset", when: "after" });
        const lost = await user.tool(["up"]);
        expect(lost.code).toBe(1);
        sim.clearFaults();
        const run = await parity(user, sim, "a lost task create", projectId);
        const notes = run.previewReport!.results.flatMap((r) => r.notes);
        expect(
          notes.filter((n) => n.code === "lost-create").map((n) => [(n as { key: string }).key, (n as { kind?: string }).kind]),
        ).toEqual([["lost", "task"]]);
        expect(run.writes).toEqual([]);
        const made = sim.tasks().filter((t) => t.title === "Lost one");
        expect(made.length).toBe(1);
        user.files["web.yaml"]!.lost!.adoptId = made[0]!.id;
        user.writeCatalog();
        const adopted = await parity(user, sim, "the lost task adopted", projectId);
        expect(adopted.previewReport!.results.flatMap((r) => r.changes).map((c) => [c.key, c.op])).toEqual([["lost", "adopt"]]);
        expect(adopted.writes).toEqual([]);
      });

      await step("9. tasks' entries removed: nothing sent, each said to keep running", async () => {
        const before = sim.tasks().length;
        edit((web) => {
          delete web.digest;
          delete web.standup;
        });
        const run = await parity(user, sim, "tasks removed", projectId);
        const changes = run.previewReport!.results.flatMap((r) => r.changes).sort((a, b) => (a.key < b.key ? -1 : 1));
        const idOf = (title: string) => sim.tasks().find((t) => t.title === title)!.id;
        expect(changes.map((c) => [c.key, c.kind, c.op, c.runningId])).toEqual([
          ["digest", "task", "retain", idOf("Weekly digest (v2)")],
          ["standup", "task", "retain", idOf("Monday check")],
        ]);
        expect(run.writes).toEqual([]);
        expect(sim.tasks().length).toBe(before);
      });

      await step("10. one site named two ways, and a new task that would never run: refused before any stack, nothing sent", async () => {
        user.git("add", "catalog");
        user.git("commit", "--quiet", "-m", "before the mistakes");
        edit((web) => {
          // The project's default site is acme-web-001: `default: true` and its subdomain name one site.
          web.front = { kind: "site", project: WEB, subdomain: "acme-web-001", name: "Front" };
          web.home = { kind: "site", project: WEB, default: true, name: "Home" } as unknown as Entry;
        });
        await refused(
          ["preview"],
          "serviceapi-catalog: the catalog has 1 problem(s) with its sites; nothing was run:\n  web.yaml: home: names the same site as front: one site, one entry (remove one of the two)",
        );
        user.git("checkout", "--", "catalog");
        user.files["web.yaml"] = parseYaml(readFileSync(join(user.repo, "catalog", "web.yaml"), "utf8")) as Record<string, Entry>;
        edit((web) => {
          web.once = { ...weekly("Once, last year"), scheduledAt: "2020-01-06T09:00:00Z" };
          delete web.once!.rrule;
        });
        await refused(
          ["up"],
          "the catalog has 1 problem(s); nothing was run:\n  web.yaml: once: scheduledAt is in the past, so a one-off task would never run; choose a future time, or add an rrule",
        );
      });
    });
    it("import --sites on a fresh catalog: every project's sites with their live names; the next up sends nothing", async () => {
      const fresh = await simulator();
      const team = await CatalogUser.create(fresh);
      onTestFinished(() => team.dispose());
      const imported = await team.tool(["import", "--sites"]);
      expect(imported.code, imported.stdout + imported.stderr).toBe(0);
      expect(imported.stdout.trimEnd().split("\n")).toEqual([
        "import --sites: 259 site(s) written into 4 file(s) of catalog; 7 request(s), none a write",
        "  acme-docs-sites.yaml: 3",
        "  acme-web-sites.yaml: 250",
        "  globex-shop-sites.yaml: 5",
        "  project-caf283c0-sites.yaml: 1",
        "Next: review the files (git diff), then `serviceapi-catalog preview`: sites taken over with their names, nothing sent",
      ]);
      expect(
        readFileSync(join(team.repo, "catalog", "acme-docs-sites.yaml"), "utf8")
          .split("\n")
          .slice(0, 5),
      ).toEqual(["acme-docs-001:", "  kind: site", "  project: Acme Docs", "  subdomain: acme-docs-001", "  name: Acme Docs 001"]);
      // Every site taken over with no field to set: the preview and the up agree, and nothing is written.
      const run = await parity(team, fresh, "import --sites, then preview and up", () => DEFAULT_IDS.acmeWeb);
      const changes = run.previewReport!.results.flatMap((r) => r.changes);
      expect(changes.length).toBe(259);
      expect(changes.filter((c) => c.kind !== "site" || c.op !== "adopt" || c.fields.length > 0)).toEqual([]);
      expect(run.writes).toEqual([]);
      const after = await team.tool(["preview", "--json"]);
      expect(after.code).toBe(0);
      expect((JSON.parse(after.stdout) as RunReport).results.flatMap((r) => r.changes)).toEqual([]);
    });
  },
);
