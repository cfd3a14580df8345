/**
 * The package: Pulumi resources and data sources, and the typed client they are built on. The
 * client's record types are exported as `…Record` here, because `Product`, `Site` and `Task` name
 * the resources.
 */
import "./node-version"; // first: an older Node gets one clear line, not an error from inside a dependency
export {
  ServiceApiClient,
  type ClientOptions,
  type RequestOptions,
  type LogEvent,
  type Clock,
  SYSTEM_CLOCK,
  NUMERIC_OPTIONS,
  MIN_TOKEN_LENGTH,
  checkClientOptions,
  checkNumericOption,
  ServiceApiError,
  ApiError,
  BadRequestError,
  AuthenticationError,
  PermissionDeniedError,
  NotFoundError,
  RateLimitError,
  InternalServerError,
  ServiceUnavailableError,
  ConnectionError,
  TimeoutError,
  AbortError,
  ResponseTooLargeError,
  ClientUsageError,
  RequestValidationError,
  ResponseValidationError,
  PaginationError,
  ConfigError,
  type ErrorIssue,
  CursorList,
  type Page,
  OPERATIONS,
  API_VERSION,
  PRODUCT_CREATE_VERSION,
  PRODUCT_STATUSES,
  LIMITS,
  type OperationName,
  type ProductStatus,
  type KnownProductStatus,
  type ListProjectsQuery,
  type ListSitesQuery,
  type UpdateSiteBody,
  type CreateTaskBody,
  type CreateProductBody,
  type UpdateProductBody,
  type Project as ProjectRecord,
  type Site as SiteRecord,
  type Task as TaskRecord,
  type Product as ProductRecord,
} from "./client";
export { Product, type ProductArgs } from "./program/product";
export { Site, type SiteArgs } from "./program/site";
export { Task, type TaskArgs } from "./program/task";
export { productInputFailures, type ProductInputs, type ProductOutputs, type ProductOnDelete } from "./provider/product";
export type { SiteInputs, SiteOutputs } from "./provider/site";
export type { TaskInputs, TaskOutputs } from "./provider/task";
export type { CheckFailure } from "./provider/lifecycle";
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
