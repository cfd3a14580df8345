/**
 * The Node.js the simulator needs, which its bin (`cli.ts`) checks before anything loads `node:sqlite`,
 * its storage: on an older Node that import fails as the modules load (`ERR_UNKNOWN_BUILTIN_MODULE`,
 * with a stack trace). So this module imports nothing and must parse on any Node.js.
 *
 * The minimum is pulumi-serviceapi's (`provider/node-minimum.ts`, read from its `engines`), which the
 * simulator cannot import: it shares only the contract with the package (eslint.config.mjs). The
 * constant is kept equal to that one, and to the simulator's own `engines`, by
 * test/simulator/cli.test.ts. What the simulator itself uses needs less (simulator/README.md): one
 * minimum for the two packages, which are released and tested together.
 */

/** The oldest Node.js the simulator runs on, as `22.19`. */
export const MIN_NODE = "22.19";

/** Whether `version` (`22.19.0`, as `process.versions.node` gives it) is at least {@link MIN_NODE}. */
export function nodeSupported(version: string): boolean {
  const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number);
  const [needMajor = 0, needMinor = 0] = MIN_NODE.split(".").map(Number);
  return major > needMajor || (major === needMajor && minor >= needMinor);
}
