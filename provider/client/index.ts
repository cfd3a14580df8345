export { ServiceApiClient } from "./client";
export { type ClientOptions, type LogEvent } from "./config";
export {
  ServiceApiError, ApiError, BadRequestError, AuthenticationError, PermissionDeniedError, NotFoundError,
  RateLimitError, InternalServerError, ServiceUnavailableError, ConnectionError, TimeoutError,
  RequestValidationError, ResponseValidationError, PaginationError, ConfigError, type ErrorIssue,
} from "./core/error";
export { CursorList, type Page } from "./core/pagination";
export { OPERATIONS, API_VERSION, PRODUCT_CREATE_VERSION, type OperationName } from "./operations";
export type {
  Project, Site, Task, Product, ProductStatus, ListProjectsQuery, ListSitesQuery, UpdateSiteBody, CreateTaskBody,
  CreateProductBody, UpdateProductBody,
} from "./schemas";
