/**
 * The dynamic-provider process's one context (`resources/context.ts`), shared by the Product, Site
 * and Task modules the engine loads into it. Messages go through Pulumi's log functions, which
 * print: a dynamic provider has no engine connection, and the CLI shows what its plugin prints
 * (as `info: [runtime] …` / `warning: [runtime] …`, under the stack).
 */
import * as log from "@pulumi/pulumi/log";
import { ProviderContext } from "../resources/context";

export const context = new ProviderContext({
  sink: (severity, message) => void (severity === "info" ? log.info(message) : log.warn(message)),
});
