/**
 * The shared pacer's old module name, kept only while the catalog tool imports it (`provider/catalog/run.ts`
 * and `rate-limit-store.ts` import `../client/tools`): the pacer and its public face are `shared-pacer.ts`
 * (`pulumi-serviceapi/shared-pacer`). Delete this file once those two imports name `../client/shared-pacer`.
 */
export * from "./shared-pacer";
