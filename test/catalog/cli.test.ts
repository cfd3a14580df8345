/**
 * The command line of serviceapi-catalog (provider/catalog/cli.ts) before anything runs: a
 * misspelled option gets the closest one, `--version` and `help` answer on stdout with exit 0, and
 * every refusal is one line on stderr with exit 2. No request, no backend, no CLI.
 */
import { describe, expect, it } from "vitest";
import { version } from "../../package.json";
import { main } from "../../provider/catalog/cli";
import { SETTINGS } from "../../provider/resources/settings";

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

  it("a --config setting that does not exist: one line naming it and the closest setting; exit 2 before anything runs", async () => {
    const settings = Object.keys(SETTINGS).join(", ");
    expect(await run("plan", "--config", "serviceapi:maxRetrys=3")).toEqual({
      code: 2,
      out: [],
      err: [
        `serviceapi-catalog: --config serviceapi:maxRetrys: no such setting (did you mean serviceapi:maxRetries?); the settings are ${settings} (docs/resources.md#configuration)`,
      ],
    });
    expect((await run("preview", "--config", "serviceapi:adoptmanaged=allow")).err).toEqual([
      `serviceapi-catalog: --config serviceapi:adoptmanaged: no such setting (did you mean serviceapi:adoptManaged?); the settings are ${settings} (docs/resources.md#configuration)`,
    ]);
    expect((await run("plan", "--config", "serviceapi:zzzzzz=1")).err).toEqual([
      `serviceapi-catalog: --config serviceapi:zzzzzz: no such setting; the settings are ${settings} (docs/resources.md#configuration)`,
    ]);
  });

  it("the policy options: a malformed --policy-param, and any of them on a command (or a drift without --write) that judges nothing", async () => {
    expect(await run("preview", "--policy-param", "archive-limit")).toEqual({
      code: 2,
      out: [],
      err: [
        "serviceapi-catalog: --policy-param archive-limit: give NAME=VALUE (e.g. --policy-param archive-limit=40); a policy reads input.params[NAME]",
      ],
    });
    expect((await run("plan", "--policy-off", "archive_limit")).err).toEqual([
      "serviceapi-catalog: --policy-off is an option of preview, up, drift, not of plan",
    ]);
    expect((await run("drift", "--policy-param", "a=b")).err).toEqual([
      "serviceapi-catalog: --policy-param is an option of drift --write (a drift alone writes nothing for a policy to judge)",
    ]);
  });

  it("destroy without --yes: refused, naming what it would destroy (every stack, or those of --stack)", async () => {
    expect(await run("destroy")).toEqual({
      code: 2,
      out: [],
      err: [
        "serviceapi-catalog: destroy archives every product the catalog's stacks created (or gives back those they took over) and removes the stacks: run it again with --yes",
      ],
    });
    expect((await run("destroy", "--stack", "catalog-docs.all")).err).toEqual([
      "serviceapi-catalog: destroy archives every product the stack(s) catalog-docs.all created (or gives back those they took over) and removes them: run it again with --yes",
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
