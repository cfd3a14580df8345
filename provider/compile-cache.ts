/**
 * Node.js's on-disk compile cache (`module.enableCompileCache`, Node.js ≥ 22.8) for this process and
 * every Node.js process below it. Why: each stack a catalog command runs starts `pulumi`, whose
 * language host runs a Node.js program and whose dynamic provider is another Node.js process, and
 * each of them compiles @pulumi/pulumi, grpc and protobuf anew — about 0.3 s of CPU a process
 * (1.38 → 1.08 s to load @pulumi/pulumi here), a sixth of an engine test file's CPU (40.5 → 33.2 s
 * measured on catalog-layout.test.ts). The variable is how it reaches the processes `pulumi` starts.
 *
 * Node.js's own settings apply (docs/catalog.md, "Settings"): Node keys each entry by the file's content
 * and its own version, so a changed file is compiled again; `NODE_COMPILE_CACHE=dir` moves the cache
 * (default: `<tmpdir>/node-compile-cache`), `NODE_DISABLE_COMPILE_CACHE=1` turns it off. Enabling it
 * never throws: a folder that cannot be written leaves Node.js as it was.
 */
import { enableCompileCache } from "node:module";

export function shareCompileCache(): void {
  // Set already: Node.js enabled it at startup, and the processes below inherit the variable as it is (the
  // directory Node.js reports then ends in its own version's subfolder, which a child would nest once more).
  if (process.env.NODE_DISABLE_COMPILE_CACHE || process.env.NODE_COMPILE_CACHE) return;
  const { directory } = enableCompileCache();
  if (directory !== undefined) process.env.NODE_COMPILE_CACHE = directory;
}
