/** The six documented operations: method, path and the version header each one accepts. */
import type { HttpMethod } from "./core/retry";

export const API_VERSION = "2026-07-11";
/** Product creation is the one operation pinned to an older version. */
export const PRODUCT_CREATE_VERSION = "2026-06-27";

export interface OperationSpec {
  method: HttpMethod;
  /** `base` paths live under `baseUrl` (`/v1/...`), `public` ones under `publicBaseUrl` (`/api/v1/public/...`). */
  host: "base" | "public";
  path: string;
  version: string;
}

export const OPERATIONS = {
  "projects.list": { method: "GET", host: "base", path: "/v1/projects", version: API_VERSION },
  "sites.update": { method: "PATCH", host: "base", path: "/v1/sites/{siteId}", version: API_VERSION },
  "tasks.create": { method: "POST", host: "base", path: "/v1/tasks", version: API_VERSION },
  "sites.list": { method: "GET", host: "public", path: "/api/v1/public/sites", version: API_VERSION },
  "products.create": { method: "POST", host: "public", path: "/api/v1/public/products", version: PRODUCT_CREATE_VERSION },
  "products.update": { method: "PATCH", host: "public", path: "/api/v1/public/products/{productId}", version: API_VERSION },
} as const satisfies Record<string, OperationSpec>;

export type OperationName = keyof typeof OPERATIONS;
