/**
 * The engine tests' program, as a `pulumi` command run by hand (or by a test's `spawnCli`) starts it:
 * a Node.js process under the language host. What it declares is `declare.ts`'s, which the engine
 * driver also runs in the test's own process (an inline program); its exports are the stack outputs.
 */
import * as sdk from "pulumi-serviceapi";
import { declareSpec } from "./declare";

export = declareSpec(sdk);
