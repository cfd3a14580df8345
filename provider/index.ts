/**
 * The package: Pulumi resources and data sources, and the typed client they are built on. The
 * client's record types are exported as `…Record` here, because `Product`, `Site` and `Task` name
 * the resources.
 */
import "./node-version"; // first: an older Node gets one clear line, not an error from inside a dependency
export {
  ServiceApiClient, type ClientOptions, type RequestOptions, type LogEvent, NUMERIC_OPTIONS, MIN_TOKEN_LENGTH,
  ServiceApiError, ApiError, BadRequestError, AuthenticationError, PermissionDeniedError, NotFoundError,
  RateLimitError, InternalServerError, ServiceUnavailableError, ConnectionError, TimeoutError, AbortError,
  ResponseTooLargeError, ClientUsageError, RequestValidationError, ResponseValidationError, PaginationError, ConfigError,
  type ErrorIssue, CursorList, type Page, OPERATIONS, API_VERSION, PRODUCT_CREATE_VERSION, PRODUCT_STATUSES, LIMITS,
  type OperationName, type ProductStatus, type KnownProductStatus, type ListProjectsQuery, type ListSitesQuery,
  type UpdateSiteBody, type CreateTaskBody, type CreateProductBody, type UpdateProductBody,
  type Project as ProjectRecord, type Site as SiteRecord, type Task as TaskRecord, type Product as ProductRecord,
} from "./client";
export { Product, type ProductArgs } from "./product";
export { Site, type SiteArgs } from "./site";
export { Task, type TaskArgs } from "./task";
export { productInputFailures, type ProductOnDelete } from "./lifecycle/product";
export type { CheckFailure } from "@pulumi/pulumi/dynamic";
export {
  getProjects, getProjectsOutput, getProject, getProjectOutput,
  type ProjectInfo, type GetProjectsArgs, type GetProjectsOutputArgs, type GetProjectsResult, type GetProjectArgs, type GetProjectOutputArgs,
} from "./get-projects";
export {
  getSites, getSitesOutput, getSite, getSiteOutput,
  type SiteInfo, type GetSitesArgs, type GetSitesOutputArgs, type GetSitesResult, type GetSiteArgs, type GetSiteOutputArgs,
} from "./get-sites";
