/**
 * Sources compiled as `npm run build` compiles them — TypeScript's own emit with the repository's
 * compiler options, file by file (`transpileModule`; its output is tsc's, byte for byte) — into a
 * scratch folder, under the same relative paths, beside a copy of package.json. So the fast tier
 * runs the bin and the reaper as real processes from the source under test, without a build first
 * and never from a stale dist/. Dependencies resolve from the repository's node_modules
 * ({@link nodePath}, for the child's NODE_PATH).
 */
import { cpSync, globSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import ts from "typescript";
import { REPO } from "../../scripts/repo";

export const nodePath = join(REPO, "node_modules");

/** Compiles every file matching `patterns` (relative to the repository) into `outDir`; returns `outDir`. */
export function transpile(patterns: string[], outDir: string): string {
  const { config } = ts.readConfigFile(join(REPO, "tsconfig.build.json"), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, REPO);
  for (const file of globSync(patterns, { cwd: REPO })) {
    const { outputText } = ts.transpileModule(readFileSync(join(REPO, file), "utf8"), {
      compilerOptions: { ...options, declaration: false },
      fileName: file,
    });
    const target = join(outDir, file.replace(/\.ts$/, ".js"));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, outputText);
  }
  cpSync(join(REPO, "package.json"), join(outDir, "package.json"));
  return outDir;
}
