/**
 * The policy runner (provider/catalog/policy.ts) with the real OPA: the default set's and the
 * example's Rego tests (`opa test`, defaults_test.rego beside this file), what a verdict looks like
 * whichever shape a rule gives it, the change a policy reads, and each refusal's one line. The
 * catalog's commands using it are proven with the real CLI in test/engine/catalog-policy.test.ts.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it, onTestFinished } from "vitest";
import type { PlannedChange } from "../../provider/catalog/changes";
import { DEFAULT_POLICIES, Policies, policyChanges, type PolicyOptions } from "../../provider/catalog/policy";
import type { StackReport } from "../../provider/catalog/stack-run";
import { REPO, opaBin } from "../../scripts/engine/driver";

const opa = () => join(opaBin(), "opa");
const env = () => ({ SERVICEAPI_OPA: opa() });
const none: PolicyOptions = { dirs: [], off: [], params: {} };

/** A work folder for one test (the tool's `--work-dir`: OPA's capabilities file goes there), removed after it. */
function work(): string {
  const dir = mkdtempSync(join(tmpdir(), "policy-work-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A folder of Rego files for one test, removed after it. */
function policyDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "policy-test-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/** The verdicts of a team's policies alone (every default off) over an empty plan of project "p". */
function teamVerdicts(dir: string, params: Record<string, string> = {}) {
  const policies = Policies.load({ dirs: [dir], off: [...DEFAULT_POLICIES], params }, "/catalog", work(), env())!;
  return policies.evaluate({ project: "p", stackPrefix: "catalog-", settings: {}, changes: [] });
}

const change = (key: string, op: PlannedChange["op"], fields: PlannedChange["fields"]): PlannedChange => ({ key, op, fields, reasons: [] });
const report = (stack: string, changes: PlannedChange[]) => ({ stack, changes }) as StackReport;

describe("the catalog's policies, run by OPA", () => {
  // OPA from scripts/install-opa.sh: on PATH, cached, or built once (about a minute), outside any test's timeout.
  beforeAll(() => void opaBin(), 15 * 60_000);

  it("the default set and the example's policies pass their Rego tests", () => {
    const out = execFileSync(
      opa(),
      ["test", "--format", "json", "provider/catalog/policies", "examples/catalog-tool/policy", "test/policy"],
      { cwd: REPO, encoding: "utf8" },
    );
    const results = JSON.parse(out) as { name: string; fail?: boolean; error?: unknown }[];
    expect(results.filter((r) => r.fail === true || r.error !== undefined).map((r) => r.name)).toEqual([]);
    expect(results.length).toBe(19);
  });

  it("reads what a rule gives — a message, or an object with key and field — under its package's name", () => {
    const dir = policyDir({
      "team.rego": [
        "package serviceapi.team.rules",
        'deny contains "a plain message" if input.params.mode == "strict"',
        'warn contains {"msg": "an object", "key": "k1", "field": "title"} if true',
      ].join("\n"),
    });
    expect(teamVerdicts(dir, { mode: "strict" })).toEqual([
      { level: "deny", policy: "team.rules", message: "a plain message" },
      { level: "warn", policy: "team.rules", message: "an object", key: "k1", field: "title" },
    ]);
  });

  it("gives a policy each change with its stack, file, what it archives and whether it writes", () => {
    const changes = policyChanges(
      [
        report("catalog-web.all", [
          change("a", "update", [{ field: "status", from: "active", to: "archived" }]),
          change("b", "archive", [{ field: "status", from: "active", to: "archived" }]),
          change("c", "adopt", [{ field: "onDelete", from: "archive", to: "retain", stackOnly: true }]),
        ]),
      ],
      (key) => (key === "b" ? undefined : "web.yaml"),
    );
    expect(changes).toEqual([
      {
        key: "a",
        kind: "product",
        op: "update",
        stack: "catalog-web.all",
        file: "web.yaml",
        archives: true,
        writes: true,
        fields: [{ field: "status", from: "active", to: "archived" }],
        reasons: [],
      },
      {
        key: "b",
        kind: "product",
        op: "archive",
        stack: "catalog-web.all",
        archives: true,
        writes: true,
        fields: [{ field: "status", from: "active", to: "archived" }],
        reasons: [],
      },
      {
        key: "c",
        kind: "product",
        op: "adopt",
        stack: "catalog-web.all",
        file: "web.yaml",
        archives: false,
        writes: false,
        fields: [{ field: "onDelete", from: "archive", to: "retain", stackOnly: true }],
        reasons: [],
      },
    ]);
  });

  it("refuses in one line: a default name misspelt, a folder that is not there, no opa, a rule that fails", () => {
    expect(() => Policies.load({ ...none, off: ["archive_limits"] }, "/catalog", work(), env())).toThrow(
      "--policy-off archive_limits: no such default policy (did you mean archive_limit?); they are https_checkout_urls, removal_keeps_archived, archive_limit",
    );
    expect(() => Policies.load({ ...none, dirs: ["/nowhere/policy"] }, "/catalog", work(), env())).toThrow(
      "--policy /nowhere/policy: no such folder",
    );
    expect(() => Policies.load(none, "/catalog", work(), { SERVICEAPI_OPA: "/nowhere/opa" })).toThrow(
      "the catalog's policies need OPA v1 (/nowhere/opa: ENOENT): put opa on PATH or set SERVICEAPI_OPA; or switch the default policies off with --policy-off (docs/policies.md)",
    );
    const dir = policyDir({
      "conflict.rego": "package serviceapi.conflict\n\nx := 1 if input.project\n\nx := 2 if input.project\n\ndeny contains x if true\n",
    });
    const policies = Policies.load({ ...none, dirs: [dir] }, "/catalog", work(), env())!;
    let message = "";
    try {
      policies.evaluate({ project: "p", stackPrefix: "catalog-", settings: {}, changes: [] });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(
      /^a policy failed: \S*conflict\.rego:5: eval_conflict_error: rule data\.serviceapi\.conflict\.x produced conflicting values:; 1 at \S+:3; 2 at \S+:5$/,
    );
    expect(message).not.toContain("\n");
  });

  it("a policy is a pure function of its input: no network, clock, randomness or environment — refused by file and line", () => {
    const calls: [string, string][] = [
      ['http.send({"method": "POST", "url": "http://127.0.0.1:9/", "body": input})', "http.send"],
      ["opa.runtime().env", "opa.runtime"],
      ["time.now_ns()", "time.now_ns"],
    ];
    for (const [call, name] of calls) {
      const dir = policyDir({ "impure.rego": `package serviceapi.impure\n\nwarn contains sprintf("%v", [x]) if {\n\tx := ${call}\n}\n` });
      expect(() => Policies.load({ ...none, dirs: [dir] }, "/catalog", work(), env())).toThrow(
        new RegExp(`^a policy does not compile: \\S*impure\\.rego:4: rego_type_error: undefined function ${name.replace(".", "\\.")}$`),
      );
    }
  });

  it("runs a Conftest policy's `package main` too (not skipped), named by its package", () => {
    const dir = policyDir({ "main.rego": 'package main\n\ndeny contains "from conftest" if input.project == "p"\n' });
    expect(teamVerdicts(dir)).toEqual([{ level: "deny", policy: "main", message: "from conftest" }]);
  });

  it("without OPA, a team's policies say they need it (switching the defaults off would not help)", () => {
    const dir = policyDir({ "t.rego": "package serviceapi.t\n" });
    expect(() => Policies.load({ ...none, dirs: [dir] }, "/catalog", work(), { SERVICEAPI_OPA: "/nowhere/opa" })).toThrow(
      /^the catalog's policies need OPA v1 \(\/nowhere\/opa: ENOENT\): put opa on PATH or set SERVICEAPI_OPA; the team's policies \(\S+\) need it too \(docs\/policies\.md\)$/,
    );
  });

  it("nothing to run when every default is off and the team has no policy", () => {
    expect(
      Policies.load({ ...none, off: ["https_checkout_urls", "removal_keeps_archived", "archive_limit"] }, "/catalog", work(), {
        SERVICEAPI_OPA: "/nowhere/opa",
      }),
    ).toBeUndefined();
  });
});
