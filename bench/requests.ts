import type { Simulator } from "pulumi-serviceapi-simulator";
import { requestSummary, type EngineStack } from "../scripts/engine/driver";

/**
 * Prints the API requests of `up`, a no-change `preview`, `preview --refresh` and `destroy` of one
 * stack, a row each. `beforeDestroy` runs (and may measure the state) before the destroy.
 */
export async function printRequestsPerOperation(engine: EngineStack, sim: Simulator, beforeDestroy?: () => Promise<void>): Promise<void> {
  console.log("   operation                 requests  by API operation");
  await engine.up();
  console.log(`   pulumi up                 ${requestSummary(sim)}`);
  await engine.preview();
  console.log(`   pulumi preview            ${requestSummary(sim)}`);
  await engine.preview({ refresh: true });
  console.log(`   pulumi preview --refresh  ${requestSummary(sim)}`);
  await beforeDestroy?.();
  await engine.destroy();
  console.log(`   pulumi destroy            ${requestSummary(sim)}`);
}
