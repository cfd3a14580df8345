/**
 * The "did you mean" rule the lookups, the input checks and the catalog share: which names are a
 * typo away, in what order, and how many.
 */
import { describe, expect, it } from "vitest";
import { closeNames } from "../../provider/resources/close-names";

const PROJECTS = ["Acme Web", "Acme Docs", "Globex Shop", "Acme Webs", "Acme Wbe2", "Acme We"];

describe("closeNames", () => {
  it("offers names a typo away, closest first, ties in code-unit order, at most `max`", () => {
    // From "Acme Wbe": "Acme Wbe2" and "Acme We" are 1 edit, "Acme Web" 2, "Acme Webs" 3 (its limit:
    // a third of 9 characters), "Acme Docs" 4, "Globex Shop" 9; three are offered.
    expect(closeNames("Acme Wbe", PROJECTS)).toEqual(["Acme Wbe2", "Acme We", "Acme Web"]);
    expect(closeNames("Acme Wbe", PROJECTS, 5)).toEqual(["Acme Wbe2", "Acme We", "Acme Web", "Acme Webs"]);
    expect(closeNames("Acme Web!", PROJECTS)).toEqual(["Acme Web", "Acme Webs", "Acme We"]);
    expect(closeNames("Acme Web!", PROJECTS, 1)).toEqual(["Acme Web"]);
    expect(closeNames("Acme Web!", PROJECTS, 0)).toEqual([]);
  });

  it("a difference of case alone is the closest of all; a name listed twice is offered once", () => {
    expect(closeNames("acme docs", ["Acme Dogs", "ACME DOCS", "Acme Docs", "Acme Docs"])).toEqual(["ACME DOCS", "Acme Docs", "Acme Dogs"]);
  });

  it("nothing close, nothing offered: short names allow two edits, longer ones a third of their length", () => {
    expect(closeNames("Nope", PROJECTS)).toEqual([]);
    expect(closeNames("ab", ["xy", "ax", "abcd", "abcde"])).toEqual(["ax", "abcd", "xy"]);
    // "Globex Shop" (11 characters) allows 3 edits: "Glbx Shp" is 3 away, "Glbx Sh" 4.
    expect(closeNames("Glbx Shp", PROJECTS)).toEqual(["Globex Shop"]);
    expect(closeNames("Glbx Sh", PROJECTS)).toEqual([]);
    expect(closeNames("Acme Web", [])).toEqual([]);
  });
});
