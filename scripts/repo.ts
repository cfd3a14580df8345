import { existsSync } from "node:fs";
import { dirname, join } from "node:path";

/** The repository root, found from this file whether it runs as TypeScript (tests) or from dist/. */
export const REPO = findRepo(__dirname);

function findRepo(from: string): string {
  for (let dir = from; dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, "scripts", "install-pulumi.sh")) && existsSync(join(dir, "package.json"))) return dir;
  }
  throw new Error(`cannot find the repository root above ${from}`);
}
