/**
 * The README's install lines work as written on a fresh folder: its `install:begin … install:end`
 * block runs line by line in bash — clone (of this repository's committed HEAD, the one change to
 * the text), `npm ci && npm run pack`, `npm init`, `npm pkg set main=index.ts`, the Pulumi.yaml, the
 * tarball and `@pulumi/pulumi` as npm resolves them today — then the README's own `index.ts` and
 * `tsconfig.json` go beside it, and the real CLI previews it against the simulator.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { engineSuite, scratchFolder } from "./suite";
import { REPO } from "../../scripts/engine/driver";
import { repository } from "../../package.json";

const scratch = scratchFolder("serviceapi-readme-");

const readme = readFileSync(join(REPO, "README.md"), "utf8");
const section = readme.slice(readme.indexOf("## Use it in a Pulumi program"));

/** The first fenced block of `language` in `text` after `after`. */
function block(text: string, language: string, after = ""): string {
  const start = text.indexOf(after);
  const match = new RegExp("```" + language + "\\n([\\s\\S]*?)```").exec(text.slice(start));
  if (!match) throw new Error(`no \`\`\`${language} block after ${JSON.stringify(after)} in the README`);
  return match[1]!;
}

describe("the README's install lines", { timeout: 600_000 }, () => {
  const suite = engineSuite();

  it("run as written in an empty folder, and the README's program previews under the real CLI", async () => {
    const marked = readme.slice(readme.indexOf("<!-- install:begin"), readme.indexOf("<!-- install:end -->"));
    const lines = block(marked, "sh");
    const url = `${repository.url.replace(/^git\+/, "")}`;
    expect(lines).toContain(`git clone ${url}`);
    // The one change: clone this repository (its committed HEAD) into the folder the URL would give.
    const script = lines.replace(`git clone ${url}`, `git clone -q ${REPO} pulumi-serviceapi`);
    // A user's shell: Node.js >= 22.19 first on PATH, none of `npm test`'s npm_* settings.
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
    env.PATH = `${dirname(process.execPath)}:${process.env.PATH}`;
    execFileSync("bash", ["-euo", "pipefail", "-c", script], { cwd: scratch, env, stdio: ["ignore", "ignore", "pipe"], timeout: 480_000 });

    const catalog = join(scratch, "catalog");
    expect(JSON.parse(readFileSync(join(catalog, "package.json"), "utf8")).main).toBe("index.ts");
    writeFileSync(join(catalog, "index.ts"), block(section, "ts"));
    writeFileSync(join(catalog, "tsconfig.json"), block(section, "json", "`tsconfig.json` beside"));
    const engine = await suite.newStack({ program: catalog, inPlace: true, env: { PULUMI_NODEJS_TRANSPILE_ONLY: "false" } });
    const preview = await engine.preview();
    expect(preview.result.changeSummary).toEqual({ create: 4 });
  });
});
