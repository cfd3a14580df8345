/**
 * Every resource of the program whose inputs are bad, named in one preview. The engine stops a
 * preview at the first resource whose `check` fails: pulumi/pulumi's step generator returns the
 * failures as a bail error (`resource … is invalid`, `pkg/resource/deploy/step_generator.go`), the
 * deployment executor cancels on any step-generation error (`deployment_executor.go`; so does
 * `--continue-on-error`, which covers failed operations only), and the engine checks resources one
 * at a time as they register — so the provider never hears of the others, and a catalog with two bad
 * entries took two runs. The program does know them all: each resource class runs its field
 * table's checks (the provider's own, `resources/checks.ts`) on the inputs it already holds as
 * plain values as it is declared, and when two or more resources declared together have problems,
 * one warning lists every one of them, before the engine fails the preview at whichever it checks
 * first. (A warning, not an error: the engine's own failure is what fails the run, and a resource
 * left out by `--target` is never checked.) Values not known yet (an `Output`, a `Promise`) are
 * checked by the provider only, as before. The plugin's programs (YAML, the generated SDKs) run
 * none of this code: docs/troubleshooting.md says so.
 */
import * as log from "@pulumi/pulumi/log"; // by module: see resource-props.ts
import { Failures, ILL_FORMED, UNKNOWN, checkInputs } from "../resources/checks";
import type { ResourceFields } from "../resources/field-table";

/** Problems of the resources declared since the last report: `Product "plan1": title must be …`. */
const pending: string[] = [];
let resources = 0;

/**
 * Checks what the program declared for one resource, and lists its problems for the report that
 * follows once the program's current synchronous run (a loop over a catalog) is over.
 */
export function noteInputProblems<I>(fields: ResourceFields<I>, name: string, args: object): void {
  const failures = new Failures();
  checkInputs(failures, fields, Object.fromEntries(Object.entries(args).map(([key, value]) => [key, known(value) ? value : UNKNOWN])));
  if (failures.list.length === 0) return;
  if (pending.length === 0) setImmediate(report);
  resources += 1;
  for (const failure of failures.list) pending.push(`${fields.resource} ${JSON.stringify(name)}: ${failure.reason}`);
}

/** One resource's problems are the engine's to report (it names the resource, as it always has); two or more, ours. */
function report(): void {
  const lines = pending.splice(0);
  const count = resources;
  resources = 0;
  if (count < 2) return;
  void log.warn(
    `serviceapi: ${count} resources of this program have input problems; \`pulumi preview\` fails at the first of them the engine checks, ` +
      `so here are all of them (no value is shown):\n  ${lines.join("\n  ")}`,
  );
}

/** A value the program holds itself: not an `Output` or a `Promise` (their values are checked by the provider). */
function known(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return true;
  return ILL_FORMED in value;
}
