/**
 * The id `pulumi import` gives for a record whose API record does not say which project it is in:
 * `<projectId>/<recordId>`. A bare `<recordId>` works when the engine still has the resource's
 * inputs (a pending create) and they name the project, and for a product (whose read needs no
 * project) without them: the program then supplies `projectId`.
 */
import { uuid } from "../contract/schemas";
import { UserError } from "./errors";

export function projectAndRecordId(type: "Site", id: string, hint: Record<string, unknown>): { projectId: string; recordId: string };
export function projectAndRecordId(
  type: "Product",
  id: string,
  hint: Record<string, unknown>,
): { projectId: string | undefined; recordId: string };
export function projectAndRecordId(
  type: "Product" | "Site",
  id: string,
  hint: Record<string, unknown>,
): { projectId: string | undefined; recordId: string } {
  const parts = id.split("/");
  const bareAllowed = type === "Product";
  const form =
    `${type} import ids are <projectId>/<${type.toLowerCase()}Id>${bareAllowed ? " (or <productId> alone, with projectId declared in the program)" : ""}, ` +
    `because the API's ${type.toLowerCase()} record does not say which project it is in ` +
    `(for example: pulumi import serviceapi:index:${type} my-${type.toLowerCase()} <projectId>/<${type.toLowerCase()}Id>)`;
  let projectId: unknown;
  let recordId: string;
  if (parts.length === 2) [projectId, recordId] = parts as [string, string];
  else if (parts.length === 1 && typeof hint.projectId === "string") [projectId, recordId] = [hint.projectId, id];
  else if (parts.length === 1 && bareAllowed) [projectId, recordId] = [undefined, id];
  else throw new UserError(`${form}; this id has ${parts.length} part${parts.length === 1 ? "" : "s"}.`);
  if (projectId !== undefined && !uuid.safeParse(projectId).success) throw new UserError(`${form}; the projectId part is not a UUID.`);
  if (!uuid.safeParse(recordId).success) throw new UserError(`${form}; the ${type.toLowerCase()}Id part is not a UUID.`);
  return { projectId: projectId as string | undefined, recordId };
}
