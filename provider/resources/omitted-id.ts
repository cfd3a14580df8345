/**
 * The spec marks no field of a Site or Task required, so the client accepts records without an
 * `id`. Where our own logic needs one, it asks here: a missing id fails with a message that says
 * the service omitted it, not with a crash in our code.
 */
import { UserError } from "./errors";

export function requireId<T extends { id?: string | undefined }>(record: T, source: string, what: string, why: string): T & { id: string } {
  if (record.id !== undefined) return record as T & { id: string };
  throw new UserError(`${source} returned a ${what} without an id: the service omitted it (the API spec does not require one). ${why}`);
}
