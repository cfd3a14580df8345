/**
 * The state-backend reader, the layer's public face: which stacks a Pulumi backend holds, each
 * one's resources and pending operations, and the locks held on it — read directly from a `file://`
 * or `postgres://` DIY backend (one read per stack, locks included), through the CLI for any other
 * (no locks there). A layer of its own below provider/resources: it imports nothing of the
 * package's other layers, and they import it through this file only (eslint.config.mjs).
 */
export { fullName } from "./model";
export { DIY_ORGANIZATION } from "./layout";
export type { OpenOptions, PendingOperation, StackLock, StackRef, StackState, StateBackend, StateResource } from "./model";
export { StateBackendError, maskText } from "./errors";
export { openStateBackend } from "./open";
// The PostgreSQL connection as Pulumi's driver makes it, for the catalog's shared rate limit (kept in the backend's database).
export { openPostgresPool, postgresTarget, type PostgresTarget } from "./postgres";
export { describe as describeFailure } from "./diy";
