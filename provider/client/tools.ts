/**
 * The client's face for tools that run many processes, not for Pulumi programs: the shared
 * rate-limit pacer, an HTTP server (`shared-pacer.ts`). Kept out of the client's index, and so out of
 * the package's entry that every user program loads; tools import it as `pulumi-serviceapi/shared-pacer`
 * (the catalog tool imports this file).
 */
export {
  startSharedPacer,
  type PaceState,
  type PaceStore,
  type SharedPacer,
  type SharedPacerOptions,
  type SharedPacerStats,
  type StoredPacerStats,
} from "./shared-pacer";
