/**
 * The ids file of `serviceapi-catalog import` (provider/catalog/ids-file.ts): CSV with a header row
 * or a JSON array, read and checked in full before any request; a row that cannot be used is named
 * by its line and left out, and a file that cannot be used at all is one line naming what it lacks.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { readIdsFile } from "../../provider/catalog/ids-file";

const A = "6F1C2A8E-5B7C-4F1E-9A6D-2C4E8F0A1B3D";
const B = "0b3f2a8e-5b7c-4f1e-9a6d-2c4e8f0a1b3d";

function file(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), "ids-file-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, name), text);
  return join(dir, name);
}

describe("the ids file of import", () => {
  it("CSV: a header row, any column order, quoted names with commas, a BOM; ids lower-cased; bad rows named by line", () => {
    const ids = readIdsFile(
      file(
        "ids.csv",
        `\uFEFFproject,id,key,owner\n"Acme, Web",${A},pro,ann\nAcme Docs,${B},,bob\nAcme Docs,not-an-id,x,\n,${B.replace("0b", "1b")},,\nAcme Web,${A},again,\n`,
      ),
    );
    expect(ids).toEqual({
      rows: [
        { at: "line 2", id: A.toLowerCase(), project: "Acme, Web", key: "pro" },
        { at: "line 3", id: B, project: "Acme Docs" },
      ],
      problems: ["line 4: the id is not a UUID", "line 5: no project", "line 6: the same id as line 2; read once"],
      hasKeys: true,
    });
  });

  it("JSON: an array of objects", () => {
    expect(readIdsFile(file("ids.json", JSON.stringify([{ id: A, project: "Acme Web" }, { id: B }])))).toEqual({
      rows: [{ at: "item 1", id: A.toLowerCase(), project: "Acme Web" }],
      problems: ["item 2: no project"],
      hasKeys: false,
    });
  });

  it("a file it cannot use: one line naming the file and what it lacks", () => {
    expect(() => readIdsFile(file("ids.csv", `product,project\n${A},Acme Web\n`))).toThrow(
      /ids\.csv has no id column: it needs id and project \(and may have key\)$/,
    );
    expect(() => readIdsFile(file("ids.json", `{"id": "${A}"}`))).toThrow(/ids\.json is not a JSON array of objects: expected/);
    expect(() => readIdsFile("/nonexistent/ids.csv")).toThrow(
      "import: cannot read the ids file /nonexistent/ids.csv: give a CSV or JSON file of id and project",
    );
  });
});
