/** The program's warning about a token stored in plain stack config: when it is due, and that it never quotes the token. */
import { describe, expect, it } from "vitest";
import { tokenWarning } from "../../provider/program/token-warning";

describe("the token warning", () => {
  it("is due only for a token set in stack config without --secret", () => {
    expect(tokenWarning(false, false)).toBeUndefined();
    expect(tokenWarning(true, true)).toBeUndefined();
    expect(tokenWarning(true, false)).toBe(
      "serviceapi:token is set in plain text in the stack config, so the token is readable in " +
        "Pulumi.<stack>.yaml and in the state. Set it with `pulumi config set --secret serviceapi:token <token>`, or better, remove it " +
        "(`pulumi config rm serviceapi:token`) and provide SERVICEAPI_TOKEN in the environment of pulumi.",
    );
  });
});
