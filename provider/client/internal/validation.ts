import type { z } from "zod";
import { parseWithIssues } from "../../contract/issues";
import type { HttpMethod } from "../../contract/schemas";
import { RequestValidationError, ResponseValidationError } from "../errors";

export function parseRequest<T extends z.ZodType>(operation: string, schema: T, value: unknown): z.infer<T> {
  const result = parseWithIssues(schema, value);
  if (!result.success) throw new RequestValidationError(operation, result.issues);
  return result.data;
}

export function parseResponse<T extends z.ZodType>(
  operation: string,
  status: number,
  schema: T,
  value: unknown,
  opts: { method?: HttpMethod; requestId?: string } = {},
): z.infer<T> {
  const result = parseWithIssues(schema, value);
  if (!result.success) throw new ResponseValidationError(operation, status, result.issues, opts);
  return result.data;
}
