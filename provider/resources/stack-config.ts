/**
 * The stack's `serviceapi:*` config as it is now, read from `Pulumi.<stack>.yaml` in the program's
 * folder — the provider process's working directory. Commands that do not run the program hand
 * the provider the config recorded at the last `pulumi up` instead (docs/resources.md), so this
 * is how a refresh can tell that the stack config now says otherwise. Only presence and plain
 * values are compared: a secret (`secure:`) is encrypted here and cannot be, so a changed secret
 * is not seen.
 *
 * What cannot be told is `undefined`, never a guess: no project file, no stack name, a stack file
 * that imports an ESC `environment` (which may set config), a value of a shape this small reader
 * does not know. Keys the project file (`Pulumi.yaml`) sets are left out the same way.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** A config value as the stack file holds it: plain text, or encrypted. */
export type StackValue = { kind: "plain"; value: string } | { kind: "secret" };

export interface StackConfig {
  /** The stack file read (`Pulumi.<stack>.yaml` in the program folder, or in its `stackConfigDir`). */
  file: string;
  /** `serviceapi:<key>` → its value; a key that is not set is absent. */
  values: Map<string, StackValue>;
  /** Keys whose current value cannot be told (set in `Pulumi.yaml`, or of an unknown shape). */
  unknown: Set<string>;
}

/**
 * The current `serviceapi:*` stack config of the project in `dir`, for the stack named `stack`
 * (`--stack`), else `PULUMI_STACK`, else the stack `pulumi stack select` chose; `undefined` when it cannot be told.
 */
export function readStackConfig(dir: string, stack: string | undefined, env: NodeJS.ProcessEnv = process.env): StackConfig | undefined {
  const projectFile = ["Pulumi.yaml", "Pulumi.yml"].map((name) => join(dir, name)).find((path) => existsSync(path));
  if (projectFile === undefined) return undefined;
  let project: string;
  try {
    project = readFileSync(projectFile, "utf8");
  } catch {
    return undefined;
  }
  const projectName = topLevel(project, "name");
  const name = stack ?? (env.PULUMI_STACK || undefined) ?? selectedStack(projectFile, projectName, env);
  if (name === undefined) return undefined;
  const configDir = topLevel(project, "stackConfigDir");
  const short = name.split("/").pop()!;
  const candidates = ["yaml", "yml"].map((ext) => join(dir, configDir ?? "", `Pulumi.${short}.${ext}`));
  const file = candidates.find((path) => existsSync(path)) ?? candidates[0]!;
  let text = "";
  try {
    if (existsSync(file)) text = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  // An ESC environment may set any config key: what the stack file says is then not the whole story.
  if (topLevel(text, "environment") !== undefined || /^environment:\s*$/m.test(text)) return undefined;
  const parsed = configBlock(text);
  if (parsed === undefined) return undefined;
  const fromProject = configBlock(project);
  for (const key of fromProject?.values.keys() ?? []) parsed.unknown.add(key);
  for (const key of fromProject?.unknown ?? []) parsed.unknown.add(key);
  return { file, ...parsed };
}

/** A top-level scalar (`name: x`) of a YAML file, quotes removed. */
function topLevel(text: string, key: string): string | undefined {
  const match = new RegExp(`^${key}:[ \\t]*(.+?)[ \\t]*$`, "m").exec(text);
  return match === null ? undefined : unquote(match[1]!);
}

/** The stack `pulumi stack select` recorded for this project (`~/.pulumi/workspaces/<project>-<sha1 of Pulumi.yaml's path>-workspace.json`). */
function selectedStack(projectFile: string, projectName: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (projectName === undefined) return undefined;
  const home = env.PULUMI_HOME || join(homedir(), ".pulumi");
  const hash = createHash("sha1").update(projectFile).digest("hex");
  try {
    const settings = JSON.parse(readFileSync(join(home, "workspaces", `${projectName}-${hash}-workspace.json`), "utf8")) as {
      stack?: unknown;
    };
    return typeof settings.stack === "string" && settings.stack !== "" ? settings.stack : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The `serviceapi:*` entries of the top-level `config:` block, as `pulumi config set` writes them:
 * `  serviceapi:baseUrl: https://…` or, for a secret, `  serviceapi:token:` with `    secure: …`
 * under it. A project file's `serviceapi:x: {default: …}` or `value:` forms come back as unknown keys.
 */
function configBlock(text: string): Omit<StackConfig, "file"> | undefined {
  const values = new Map<string, StackValue>();
  const unknown = new Set<string>();
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex((line) => /^config:\s*(#.*)?$/.test(line));
  if (start < 0) return /^config:/m.test(text) ? undefined : { values, unknown };
  let indent: number | undefined;
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\s*(#.*)?$/.test(line)) continue;
    const depth = line.length - line.trimStart().length;
    if (depth === 0) break;
    indent ??= depth;
    if (depth !== indent) continue;
    const entry = /^\s+(["']?)([^"'\s]+)\1:(?:[ \t]+(.*?))?[ \t]*$/.exec(line);
    if (entry === null) continue;
    const [, , fullKey, rest] = entry;
    if (!fullKey!.startsWith("serviceapi:")) continue;
    const key = fullKey!.slice("serviceapi:".length);
    if (rest !== undefined && rest !== "" && !rest.startsWith("#")) {
      if (/^[[{|>&*!]/.test(rest)) unknown.add(key);
      else values.set(key, { kind: "plain", value: unquote(rest.replace(/\s+#.*$/, "")) });
      continue;
    }
    // A nested value: `secure: …` is a secret; anything else is a shape we do not read.
    const next = lines.slice(i + 1).find((l) => !/^\s*(#.*)?$/.test(l));
    if (next !== undefined && /^\s+secure:\s*\S/.test(next) && next.length - next.trimStart().length > depth)
      values.set(key, { kind: "secret" });
    else unknown.add(key);
  }
  return { values, unknown };
}

function unquote(text: string): string {
  if (text.length >= 2 && text.startsWith('"') && text.endsWith('"')) {
    try {
      return JSON.parse(text) as string;
    } catch {
      return text.slice(1, -1);
    }
  }
  if (text.length >= 2 && text.startsWith("'") && text.endsWith("'")) return text.slice(1, -1).replace(/''/g, "'");
  return text;
}
