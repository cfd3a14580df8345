export { ServiceApiClient } from "./client";
export { type ClientOptions, type RequestOptions, type LogEvent, NUMERIC_OPTIONS, MIN_TOKEN_LENGTH } from "./config";
export {
  ServiceApiError, ApiError, BadRequestError, AuthenticationError, PermissionDeniedError, NotFoundError,
  RateLimitError, InternalServerError, ServiceUnavailableError, ConnectionError, TimeoutError, AbortError,
  ResponseTooLargeError, ClientUsageError, RequestValidationError, ResponseValidationError, PaginationError, ConfigError,
  type ErrorIssue,
} from "./core/error";
export { CursorList, type Page } from "./core/pagination";
export { OPERATIONS, API_VERSION, PRODUCT_CREATE_VERSION, PRODUCT_STATUSES, LIMITS, type OperationName } from "../contract/schemas";
export type {
  Project, Site, Task, Product, ProductStatus, KnownProductStatus, ListProjectsQuery, ListSitesQuery, UpdateSiteBody,
  CreateTaskBody, CreateProductBody, UpdateProductBody,
} from "../contract/schemas";
