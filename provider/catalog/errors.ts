/**
 * A refusal of the catalog tool: bad catalog, bad option, a layout it cannot trust. The CLI prints
 * its message as one line (no stack trace) and exits 2, before any stack runs.
 */
import { UserError } from "../resources/errors";

export class CatalogError extends UserError {}
