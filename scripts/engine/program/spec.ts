/**
 * The shape of the engine-test program's `spec` config (what `declare.ts` declares): the lifecycle's
 * own input shapes, one source for each. Types only, in a file of their own: the program imports
 * them, and the driver, which imports the program, re-exports them.
 */
import type { ProductInputs } from "../../../provider/resources/product";
import type { SiteInputs } from "../../../provider/resources/site";
import type { TaskInputs } from "../../../provider/resources/task";

/** What the engine-test program declares: the lifecycle's own input shapes, one source for each. */
export type ProductSpec = ProductInputs;
export type SiteSpec = SiteInputs;
export type TaskSpec = TaskInputs;
export interface ProgramSpec {
  products?: Record<string, ProductSpec>;
  sites?: Record<string, SiteSpec>;
  tasks?: Record<string, TaskSpec>;
  /** Every string input of products and tasks is passed as `pulumi.secret(…)`. */
  secretInputs?: boolean;
  /** The `import` resource option, by logical name. */
  imports?: Record<string, string>;
  /** `projectId: "$project"` uses the `projectName` lookup; `siteId: "$siteByName"` the `siteName` one. */
  lookups?: {
    projectName?: string;
    workspaceId?: string;
    sitesOf?: string;
    siteSubdomain?: string;
    siteName?: string;
    secretName?: boolean;
  };
}
