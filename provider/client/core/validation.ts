import type { z } from "zod";
import type { HttpMethod } from "../schemas";
import { RequestValidationError, ResponseValidationError, type ErrorIssue } from "./error";

/** Turns zod issues into `field problem` pairs a person can act on. */
export function toIssues(error: z.ZodError): ErrorIssue[] {
  return error.issues.flatMap((issue): ErrorIssue[] => {
    const path = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({ path: path ? `${path}.${key}` : key, message: "is not a field of this request" }));
    }
    if (issue.code === "invalid_type" && issue.input === undefined) {
      return [{ path, message: "is required" }];
    }
    if (issue.code === "invalid_type" && issue.message.startsWith("Invalid input")) {
      return [{ path, message: `must be ${article(issue.expected)} ${issue.expected}` }];
    }
    return [{ path, message: issue.message }];
  });
}

function article(word: string): string {
  return /^[aeiou]/i.test(word) ? "an" : "a";
}

/** Parses with the input kept on each issue, so a missing field can be told from a wrong one. */
export function check<T extends z.ZodType>(schema: T, value: unknown) {
  return schema.safeParse(value, { reportInput: true });
}

export function parseRequest<T extends z.ZodType>(operation: string, schema: T, value: unknown): z.infer<T> {
  const result = check(schema, value);
  if (!result.success) throw new RequestValidationError(operation, toIssues(result.error));
  return result.data;
}

export function parseResponse<T extends z.ZodType>(
  operation: string, status: number, schema: T, value: unknown, opts: { method?: HttpMethod; requestId?: string } = {},
): z.infer<T> {
  const result = check(schema, value);
  if (!result.success) throw new ResponseValidationError(operation, status, toIssues(result.error), opts);
  return result.data;
}
