/**
 * The package needs the Node.js its `engines` field names (undici 8 and `String#isWellFormed`).
 * This module is the first thing the package's entry points load, so an older `node` first on
 * PATH gets one line naming both versions — not `TypeError: Cannot read properties of undefined
 * (reading 'bind')` from inside undici. The error carries the marker of Pulumi's `RunError`
 * (`__pulumiRunError`), so the CLI prints its message without a stack trace; the SDK itself is not
 * loaded for that, as the check must run before any dependency does. In the provider process
 * (refresh, destroy) the same check runs when the state's `require("pulumi-serviceapi/dynamic/…")`
 * loads (or, in a stack made before the restructure, `…/lifecycle/…`). It sits in the dynamic face
 * because that face's modules load it first and it uses that face's print filter; the package entry
 * (`../index.ts`) imports it from here, downward. The minimum and the comparison are
 * `../node-minimum.ts`'s, which the catalog tool's bin shares.
 */
import { MIN_NODE, nodeAtLeast } from "../node-minimum";
import { expectPrintOf } from "./expected-prints";

if (!nodeAtLeast(process.versions.node, MIN_NODE)) {
  const error = new Error(
    `pulumi-serviceapi needs Node.js ${MIN_NODE} or later; this is Node.js ${process.version} (${process.execPath}). ` +
      "Put a newer `node` first on PATH where pulumi runs.",
  );
  Object.defineProperty(error, "__pulumiRunError", { value: true });
  // One line wherever it is printed: the program's late-error handler prints `stack`, and the
  // dynamic-provider server's print of it is dropped (the engine shows the message).
  error.stack = error.message;
  expectPrintOf(error);
  throw error;
}
