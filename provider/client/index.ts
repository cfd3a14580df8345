/**
 * The typed client's public surface: everything here is part of the package's API (the package root
 * re-exports it). `internal/` is the machinery behind it and is exported from nowhere.
 */
export { ServiceApiClient } from "./client";
export {
  type ClientOptions,
  type RequestOptions,
  type LogEvent,
  type Clock,
  SYSTEM_CLOCK,
  NUMERIC_OPTIONS,
  MIN_TOKEN_LENGTH,
  SHARED_PACER_URL_ENV,
  OPTION_ENV,
  givenOrEnv,
  checkClientOptions,
  checkNumber as checkNumericOption,
} from "./config";
export {
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
  TokenRefusedError,
  type ErrorIssue,
} from "./errors";
export { TokenGate } from "./token-gate";
export { CursorList, type Page } from "./pagination";
export { OPERATIONS, API_VERSION, PRODUCT_CREATE_VERSION, PRODUCT_STATUSES, LIMITS, type OperationName } from "../contract/schemas";
export type {
  Project,
  Site,
  Task,
  Product,
  ProductStatus,
  KnownProductStatus,
  ListProjectsQuery,
  ListSitesQuery,
  UpdateSiteBody,
  CreateTaskBody,
  CreateProductBody,
  UpdateProductBody,
} from "../contract/schemas";
