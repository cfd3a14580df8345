/**
 * The marker `unicode-guard.ts` (in the program) puts in place of a string with a lone UTF-16
 * surrogate, and `check()` (in the provider) turns into a failure. Its own module, free of any
 * Pulumi import, so the plugin's bundle does not pull in the program-side SDK for one string.
 * Its value is the 1-based character position of the first lone surrogate.
 */
export const ILL_FORMED = "__serviceapiIllFormedString";
