/**
 * The contract's one UUID rule, as ids read outside a request (a state, a journal, an ids file) are
 * checked with it (`isUuid`): any 8-4-4-4-12 hex id, either case, whatever its version and variant
 * bits — what the request schemas accept, so a state's id and a request's id cannot disagree.
 */
import { describe, expect, it } from "vitest";
import { isUuid, uuid } from "../../provider/contract/schemas";

describe("isUuid", () => {
  it("accepts what the uuid schema accepts, and nothing else", () => {
    const valid = ["ccdf56a4-8fd7-0d19-e8ad-d64bc232702d", "CCDF56A4-8FD7-0D19-E8AD-D64BC232702D", "00000000-0000-0000-0000-000000000000"];
    const invalid = [
      "",
      "ccdf56a4-8fd7-0d19-e8ad-d64bc232702",
      "ccdf56a48fd70d19e8add64bc232702d",
      " ccdf56a4-8fd7-0d19-e8ad-d64bc232702d",
      "pending-1",
    ];
    for (const id of valid) expect([id, isUuid(id), uuid.safeParse(id).success]).toEqual([id, true, true]);
    for (const id of invalid) expect([id, isUuid(id), uuid.safeParse(id).success]).toEqual([id, false, false]);
  });
});
