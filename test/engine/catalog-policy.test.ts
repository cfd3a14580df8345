/**
 * The catalog's policies (issue 45), with the real CLI, real OPA and the simulator, in ordered
 * steps: the default set denies a `javascript:` checkout URL in the preview and the up refuses it
 * with no write; a team's policy (the example's `archives_need_approval`, copied from
 * examples/catalog-tool/policy/) denies a pull request that archives 3 products — the preview fails
 * with exit 3, the combined report (the PR comment) names each, the up refuses with 0 writes — and
 * CI's approval input lets the same up through; the default archive limit counts; a warning is
 * shown and fails nothing; a Rego syntax error is named by file and line before any request. Each
 * change runs through the parity check (`parity-support.ts`): preview and up say the same, the up
 * writes exactly what the preview announced — nothing, when a policy denied it.
 */
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import type { Simulator } from "pulumi-serviceapi-simulator";
import { ServiceApiClient } from "../../provider";
import type { RunReport } from "../../provider/catalog/report";
import { DEFAULT_IDS } from "../../simulator/seed";
import { simulator } from "../helpers";
import { ENGINE_TIMEOUT_MS, REPO, pulumiCli } from "../../scripts/engine/driver";
import { CatalogUser, type Entry } from "./catalog-support";
import { parity } from "./parity-support";
import { step } from "./suite";

const WEB = "Acme Web";
const product = (title: string, more: Entry = {}): Entry => ({ project: WEB, title, slug: title.toLowerCase(), ...more });
const APPROVAL = "an archive needs the owners' approval: the pull request's archive-approved label (--policy-param archive-approved=yes)";

describe(
  "policies over the catalog's plan: denied in the preview, refused by the up before any write",
  { timeout: ENGINE_TIMEOUT_MS * 2 },
  () => {
    let sim: Simulator;
    let user: CatalogUser;
    const edit = (change: (entries: Record<string, Entry>) => void) => user.edit("web.yaml", change);
    /** The service's writes: every request but the reads (GET, and the empty PATCH that is the API's read of a product). */
    const writes = () =>
      sim
        .requests()
        .filter((r) => r.operation !== null && r.method !== "GET" && !(r.body !== null && Object.keys(r.body as object).length === 0))
        .map((r) => `${r.method} ${r.path} ${JSON.stringify(r.body)}`);
    const json = (stdout: string) => JSON.parse(stdout) as RunReport;

    it("the default set, a team's policy with CI's approval, a warning and a broken policy, each preview equal to its up", async () => {
      await pulumiCli();
      sim = await simulator();
      user = await CatalogUser.create(sim);
      onTestFinished(() => user.dispose());

      await step(
        "1. the default set: a javascript: checkout URL is denied by the preview and refused by the up, nothing sent",
        async () => {
          edit((e) => {
            e.alpha = product("Alpha", { externalCheckoutUrl: "javascript:alert(1)" });
            e.beta = product("Beta");
            e.c1 = product("C1");
            e.c2 = product("C2");
            e.c3 = product("C3");
          });
          const text = await user.tool(["preview"]);
          expect(text.code, text.stdout + text.stderr).toBe(3);
          expect(text.stdout).toContain(
            '      externalCheckoutUrl: DENIED by policy https_checkout_urls: "javascript:alert(1)" is not an https:// URL: a checkout page must be https',
          );
          expect(text.stdout).toContain("; 1 DENIED by policy (nothing written: an up refuses the whole change); ");
          const { up, previewReport, upReport } = await parity(user, sim, "a javascript: URL", () => DEFAULT_IDS.acmeWeb);
          expect(up.code).toBe(3);
          expect(upReport!.command).toBe("preview for up — REFUSED before any write (denied by policy)");
          expect(previewReport!.results[0]!.changes.find((c) => c.key === "alpha")!.reasons).toEqual([
            {
              code: "policy",
              level: "deny",
              policy: "https_checkout_urls",
              message: '"javascript:alert(1)" is not an https:// URL: a checkout page must be https',
              field: "externalCheckoutUrl",
            },
          ]);
          expect(user.stacks(), "the refused up made no stack").toEqual([]);
          // Switched off by name, the same change is allowed (and a misspelt name is refused with the right one).
          const off = await user.tool(["preview", "--policy-off", "https_checkout_urls"]);
          expect(off.code, off.stdout + off.stderr).toBe(0);
          const misspelt = await user.tool(["preview", "--policy-off", "https_checkout_url"]);
          expect([misspelt.code, misspelt.stderr.trim()]).toEqual([
            2,
            "serviceapi-catalog: --policy-off https_checkout_url: no such default policy (did you mean https_checkout_urls?); they are https_checkout_urls, removal_keeps_archived, archive_limit",
          ]);
        },
      );

      await step("2. fixed to https, the first up creates the five", async () => {
        edit((e) => (e.alpha!.externalCheckoutUrl = "https://shop.example.com/alpha"));
        const { up } = await parity(user, sim, "https", () => DEFAULT_IDS.acmeWeb);
        expect(up.code, up.stdout + up.stderr).toBe(0);
        expect(user.products().size).toBe(5);
      });

      await step(
        "3. a team's policy: a pull request archiving 3 products is denied, in the PR comment too, and its up writes nothing",
        async () => {
          cpSync(join(REPO, "examples", "catalog-tool", "policy"), join(user.repo, "policy"), { recursive: true });
          edit((e) => {
            delete e.c1;
            delete e.c2;
            delete e.c3;
          });
          // The pull request's preview, as the workflow's batch job writes it and its report job combines it.
          const preview = await user.tool(["preview", "--json"]);
          expect(preview.code, preview.stdout + preview.stderr).toBe(3);
          writeFileSync(join(user.repo, "report-0.json"), preview.stdout);
          const comment = await user.tool(["report", "report-0.json"]);
          expect(comment.code).toBe(3);
          for (const key of ["c1", "c2", "c3"])
            expect(comment.stdout).toContain(
              `  - ${key} (archived: this stack created it)\n      status: "draft" → "archived"   ← archives it\n      DENIED by policy archives_need_approval: ${APPROVAL}\n`,
            );
          expect(comment.stdout).toContain("; 3 DENIED by policy (nothing written: an up refuses the whole change); ");
          const { up, writes: sent } = await parity(user, sim, "3 archives without approval", () => DEFAULT_IDS.acmeWeb);
          expect([up.code, sent]).toEqual([3, []]);
          expect(user.products().size, "nothing left the stack").toBe(5);
        },
      );

      await step("4. the default archive limit counts archives: 3 over a limit of 2 is denied even when approved", async () => {
        const { up } = await parity(user, sim, "over the limit", () => DEFAULT_IDS.acmeWeb, [
          "--policy-param",
          "archive-approved=yes",
          "--policy-param",
          "archive-limit=2",
        ]);
        expect(up.code).toBe(3);
        expect(json(up.stdout).notes).toEqual([
          {
            code: "policy",
            level: "deny",
            policy: "archive_limit",
            message:
              "3 products archived by one change, above the limit of 2: if that is meant, run again with --policy-param archive-limit=3",
          },
        ]);
      });

      await step("5. CI's approval input lets the same change through: three PATCHes, as previewed", async () => {
        sim.clearRequests();
        const { up, writes: sent } = await parity(user, sim, "approved", () => DEFAULT_IDS.acmeWeb, [
          "--policy-param",
          "archive-approved=yes",
        ]);
        expect(up.code, up.stdout + up.stderr).toBe(0);
        expect(sent.map((w) => w.replace(/\/[0-9a-f-]{36} /, "/:id "))).toEqual(
          Array(3).fill('PATCH /api/v1/public/products/:id {"status":"archived"}'),
        );
        expect(writes().length).toBe(3);
      });

      await step("6. a warning is shown and fails nothing", async () => {
        writeFileSync(
          join(user.repo, "policy", "titles.rego"),
          'package serviceapi.titles\n\nwarn contains {"msg": "a title in capitals shouts", "key": change.key, "field": "title"} if {\n\tsome change in input.changes\n\tsome field in change.fields\n\tfield.field == "title"\n\tfield.to == upper(field.to)\n}\n',
        );
        edit((e) => (e.beta!.title = "BETA"));
        const text = await user.tool(["preview"]);
        expect(text.code, text.stdout + text.stderr).toBe(0);
        expect(text.stdout).toContain(
          '      title: "Beta" → "BETA"\n      title: warning from policy titles: a title in capitals shouts\n',
        );
        const { up } = await parity(user, sim, "a warning", () => DEFAULT_IDS.acmeWeb);
        expect(up.code).toBe(0);
        expect(up.stdout).toContain('"level":"warn"');
      });

      await step("7. drift --write: a javascript: URL set in the UI is found, and not written into the catalog", async () => {
        const client = new ServiceApiClient({ baseUrl: sim.url, token: sim.token });
        const beta = user.products().get("beta")!.id;
        await client.updateProduct(beta, { externalCheckoutUrl: "javascript:alert(2)" });
        const drift = await user.tool(["drift"]);
        expect(drift.code, drift.stdout + drift.stderr).toBe(7);
        const before = readFileSync(join(user.repo, "catalog", "web.yaml"), "utf8");
        const write = await user.tool(["drift", "--write"]);
        expect(write.code, write.stdout + write.stderr).toBe(3);
        expect(write.stdout).toContain(
          '      externalCheckoutUrl: DENIED by policy https_checkout_urls: "javascript:alert(2)" is not an https:// URL: a checkout page must be https\n',
        );
        expect(write.stdout).toContain("nothing written into the catalog: a policy denies what the next up would send (above)");
        expect(readFileSync(join(user.repo, "catalog", "web.yaml"), "utf8")).toBe(before);
        // The catalog wins again: up --refresh sets the URL back to none (a clearing is allowed).
        const fix = await user.tool(["up", "--refresh"]);
        expect(fix.code, fix.stdout + fix.stderr).toBe(0);
        expect((await user.tool(["drift"])).code).toBe(0);
      });

      await step("8. a Rego syntax error: named by file and line, before any request or stack", async () => {
        mkdirSync(join(user.repo, "policy"), { recursive: true });
        writeFileSync(join(user.repo, "policy", "broken.rego"), 'package serviceapi.broken\n\ndeny contains "x" if {\n\tinput.x ==\n}\n');
        edit((e) => (e.beta!.title = "Beta again"));
        for (const command of ["preview", "up"]) {
          sim.clearRequests();
          const run = await user.tool([command]);
          expect([run.code, run.stdout, run.stderr]).toEqual([
            2,
            "",
            "serviceapi-catalog: a policy does not compile: policy/broken.rego:5: rego_parse_error: unexpected } token\n",
          ]);
          expect(sim.requests().filter((r) => r.operation !== null)).toEqual([]);
        }
        rmSync(join(user.repo, "policy", "broken.rego"));
      });
    });

    it("a pull request's job with read-only access to the state: its preview works and writes nothing; an up fails before any write", async () => {
      await pulumiCli();
      sim = await simulator();
      user = await CatalogUser.create(sim);
      onTestFinished(() => user.dispose());
      edit((e) => {
        e.one = product("One");
        e.two = product("Two");
      });
      expect((await user.tool(["up"])).code).toBe(0);
      edit((e) => (e.two!.title = "Two, renamed"));
      const state = user.backendDigest();
      sim.clearRequests();
      // The workflow's Preview job: what it can read it reads, and it reports the change as any preview does.
      const preview = await user.toolWithReadOnlyState(["preview", "--json"]);
      expect(preview.code, preview.stdout + preview.stderr).toBe(0);
      const changes = json(preview.stdout).results.flatMap((r) => r.changes);
      expect(changes.map((c) => [c.key, c.op, c.fields])).toEqual([
        ["two", "update", [{ field: "title", from: "Two", to: "Two, renamed" }]],
      ]);
      expect(user.backendDigest(), "the preview wrote nothing to the state").toBe(state);
      // The same access cannot deploy: the up fails at the state's first write, with nothing sent to the service.
      const up = await user.toolWithReadOnlyState(["up"]);
      expect(up.code, up.stdout + up.stderr).toBe(1);
      expect(up.stdout).toMatch(/read-only file system/);
      expect(writes()).toEqual([]);
      expect(user.backendDigest(), "the up wrote nothing to the state").toBe(state);
    });
  },
);
