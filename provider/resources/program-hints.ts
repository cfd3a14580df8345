/**
 * What the program's resource classes tell the dynamic face beside a resource's inputs, which the
 * engine tells a dynamic provider nowhere: the stack the program runs in, and which inputs it
 * marked secret (names only). Both are hidden inputs (`__` keys, which the CLI does not show) that
 * the face reads at `check` and drops from the inputs it returns, so no state ever holds them. The
 * plugin needs neither: every request carries the URN, and the engine marks secrets on its wire.
 */

/** `organization/<project>/<stack>`, as `pulumi.getOrganization()`, `getProject()` and `getStack()` say in the program. */
export const STACK_KEY = "__stack";
/** The input names whose values the program passed as secrets (`pulumi.secret`, or outputs derived from one). */
export const SECRETS_KEY = "__secretInputs";

export interface ProgramHints {
  stack: string | undefined;
  /** `undefined` when the program said nothing (the face cannot tell which inputs are secret). */
  secrets: string[] | undefined;
}

/** The hints among a `check`'s new inputs. */
export function programHints(news: object): ProgramHints {
  const values = news as Record<string, unknown>;
  const stack = values[STACK_KEY];
  const secrets = values[SECRETS_KEY];
  return {
    stack: typeof stack === "string" ? stack : undefined,
    secrets: Array.isArray(secrets) && secrets.every((s) => typeof s === "string") ? (secrets as string[]) : undefined,
  };
}
