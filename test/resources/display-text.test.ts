/**
 * Names people read — a product's title and slug, a site's name, a task's title — are refused at
 * preview when they hold characters a storefront shows differently than a diff: invisible ones and
 * the bidi overrides. Each failure names the field, the code point and its position, never the value.
 */
import { describe, expect, it } from "vitest";
import { productInputFailures } from "../../provider/resources/product";

const project = "9326cccf-2faa-56aa-bc60-30d0b53b88a3";
const reasons = (inputs: Record<string, unknown>) =>
  productInputFailures({ projectId: project, title: "T", ...inputs }).map((f) => f.reason);
const ADVICE = "a storefront shows the text differently than the diff does";
const RTL = `${ADVICE}; right-to-left text may use U+200E, U+200F and U+061C`;

describe("invisible and direction-overriding characters in names", () => {
  it("a right-to-left override, a zero-width space and a BOM are refused by code point and position", () => {
    expect(reasons({ title: "Pro \u202Enalp" })).toEqual([
      `title must not contain direction-overriding characters (U+202E RIGHT-TO-LEFT OVERRIDE at character 5): ${RTL}`,
    ]);
    expect(reasons({ slug: "pro\u200Bplan" })).toEqual([
      `slug must not contain invisible characters (U+200B ZERO WIDTH SPACE at character 4): ${ADVICE}`,
    ]);
    expect(reasons({ title: "\uFEFFPro" })).toEqual([
      `title must not contain invisible characters (U+FEFF ZERO WIDTH NO-BREAK SPACE at character 1): ${ADVICE}`,
    ]);
    expect(reasons({ title: "a\u2067b" })).toEqual([
      `title must not contain direction-overriding characters (U+2067 RIGHT-TO-LEFT ISOLATE at character 2): ${RTL}`,
    ]);
    // A tag character outside a flag sequence (ASCII smuggled invisibly) has no name in our table.
    expect(reasons({ title: "Pro\u{E0041}" })).toEqual([`title must not contain invisible characters (U+E0041 at character 4): ${ADVICE}`]);
  });

  it("positions count characters, not UTF-16 units, after an emoji or a flag sequence", () => {
    const england = "\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}";
    expect(reasons({ title: `${england}😀\u200B` })).toEqual([
      `title must not contain invisible characters (U+200B ZERO WIDTH SPACE at character 9): ${ADVICE}`,
    ]);
  });

  it("C1 controls are refused in every string, like C0 controls", () => {
    expect(reasons({ description: "Sale \u009B31m now" })).toEqual([
      "description must not contain control characters (U+009B at character 6); only tab, line feed and carriage return are allowed",
    ]);
  });

  it("what real text needs passes: RTL marks, ZWJ emoji, ZWNJ, variation selectors, flags", () => {
    const england = "\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}";
    for (const title of [
      "\u05D7\u05E0\u05D5\u05EA \u200FPro\u200F", // Hebrew with RIGHT-TO-LEFT MARK
      "\u0645\u062A\u062C\u0631\u061C 2", // Arabic with ARABIC LETTER MARK
      "Family 👨\u200D👩\u200D👧", // ZWJ sequence
      "\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645", // Persian with ZWNJ
      "Heart \u2764\uFE0F", // emoji presentation selector
      `Made in ${england}`,
    ]) {
      expect(reasons({ title })).toEqual([]);
    }
  });

  it("descriptions keep the invisible characters long text may use; the value is never quoted", () => {
    expect(reasons({ description: "\u0E20\u0E32\u0E29\u0E32\u200B\u0E44\u0E17\u0E22 \u202E" })).toEqual([]);
    const secret = "Launch\u202Ecodename-falcon";
    expect(reasons({ title: secret }).join()).not.toContain("falcon");
  });
});
