/**
 * The package: Pulumi resources and data sources, and the typed client they are built on. The
 * client's record types are exported as `…Record` here, because `Product`, `Site` and `Task` name
 * the resources.
 */
import "./dynamic/node-version"; // first: an older Node gets one clear line, not an error from inside a dependency
// The client's whole public surface. Its record types `Product`, `Site`, `Task` are shadowed here by
// the resource classes of the same names (a local export wins over `export *`), so they are also
// exported as `…Record`, with `Project` for symmetry.
export * from "./client";
export type { Project as ProjectRecord, Site as SiteRecord, Task as TaskRecord, Product as ProductRecord } from "./client";
export { Product, type ProductArgs } from "./program/product";
export { Site, type SiteArgs } from "./program/site";
export { Task, type TaskArgs } from "./program/task";
export { productInputFailures, type ProductInputs, type ProductOutputs, type ProductOnDelete } from "./resources/product";
export type { SiteInputs, SiteOutputs } from "./resources/site";
export type { TaskInputs, TaskOutputs } from "./resources/task";
export type { CheckFailure } from "./resources/lifecycle";
export {
  getProjects,
  getProjectsOutput,
  getProject,
  getProjectOutput,
  type ProjectInfo,
  type GetProjectsArgs,
  type GetProjectsOutputArgs,
  type GetProjectsResult,
  type GetProjectArgs,
  type GetProjectOutputArgs,
} from "./program/get-projects";
export {
  getSites,
  getSitesOutput,
  getSite,
  getSiteOutput,
  type SiteInfo,
  type GetSitesArgs,
  type GetSitesOutputArgs,
  type GetSitesResult,
  type GetSiteArgs,
  type GetSiteOutputArgs,
} from "./program/get-sites";
