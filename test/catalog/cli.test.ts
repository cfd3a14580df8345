/**
 * The command line of serviceapi-catalog (provider/catalog/cli.ts) before anything runs: a
 * misspelled option gets the closest one, `--version` and `help` answer on stdout with exit 0, and
 * every refusal is one line on stderr with exit 2. No request, no backend, no CLI.
 */
import { describe, expect, it } from "vitest";
import { version } from "../../package.json";
import { main } from "../../provider/catalog/cli";

async function run(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (line) => out.push(line), err: (line) => err.push(line) }, new AbortController().signal);
  return { code, out, err };
}

describe("serviceapi-catalog's command line", () => {
  it("a misspelled option: one line naming it, the closest option, and --help; exit 2", async () => {
    expect(await run("plan", "--paralel", "2")).toEqual({
      code: 2,
      out: [],
      err: ["serviceapi-catalog: unknown option --paralel (did you mean --parallel?): see serviceapi-catalog --help"],
    });
    expect((await run("plan", "--zzzzzz")).err).toEqual(["serviceapi-catalog: unknown option --zzzzzz: see serviceapi-catalog --help"]);
    expect((await run("plan", "--parallel")).err).toEqual([
      "serviceapi-catalog: option --parallel <value> argument missing: see serviceapi-catalog --help",
    ]);
  });

  it("--version prints the package's version; help and --help print the usage on stdout; exit 0", async () => {
    expect(await run("--version")).toEqual({ code: 0, out: [`serviceapi-catalog ${version}`], err: [] });
    const help = await run("help");
    expect(help.code).toBe(0);
    expect(help.out[0]).toMatch(/^usage: serviceapi-catalog <command> \[options\]/);
    expect((await run("--help")).out).toEqual(help.out);
    expect(await run()).toEqual({ code: 2, out: [], err: help.out });
  });
});
