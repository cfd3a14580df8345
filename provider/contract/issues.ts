/**
 * How a schema failure reads, in one place: the client's validation errors, the simulator's 400s
 * and the resources' preview checks all word it this way (`title must be 1 to 1024 characters
 * long (got 1025)`, `colour is not a field of this request`).
 */
import type { z } from "zod";

export type ErrorIssue = { path: string; message: string };

export type Parsed<T> = { success: true; data: T } | { success: false; issues: ErrorIssue[]; message: string };

/**
 * Parses `value` with the input kept on each issue (so a missing field can be told from a wrong
 * one) and words any failure as `field problem` pairs.
 */
export function parseWithIssues<T extends z.ZodType>(schema: T, value: unknown): Parsed<z.infer<T>> {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return { success: true, data: result.data };
  const issues = toIssues(result.error);
  return { success: false, issues, message: formatIssues(issues) };
}

export function formatIssues(issues: ErrorIssue[]): string {
  return issues.map((i) => (i.path ? `${i.path} ${i.message}` : i.message)).join("; ");
}

function toIssues(error: z.ZodError): ErrorIssue[] {
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
