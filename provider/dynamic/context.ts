/**
 * The dynamic-provider process's one context (`resources/context.ts`), shared by the Product, Site
 * and Task modules the engine loads into it. Messages go through Pulumi's log functions, which
 * print: a dynamic provider has no engine connection, and the CLI shows what its plugin prints
 * (as `info: [runtime] …` / `warning: [runtime] …`, under the stack).
 */
import * as log from "@pulumi/pulumi/log";
import { ProviderContext } from "../resources/context";
import { exitWithParent } from "../resources/parent-watch";

export const context = new ProviderContext({
  sink: (severity, message) => void (severity === "info" ? log.info(message) : log.warn(message)),
  // The CLI starts this process, in the program's folder.
  projectDir: process.cwd(),
});

/**
 * The engine ends a deployment by stopping its provider processes with SIGINT (after their
 * requests are done; Pulumi's `plugin.Close`), and it prints what a dynamic provider writes until
 * the process is gone. So the summary line is written then, and the process exits once it is out.
 * Only in the provider process that Pulumi's dynamic-provider server runs: anywhere else (a test,
 * a program loading this module) SIGINT keeps its usual meaning.
 */
if (/[\\/]cmd[\\/]dynamic-provider([\\/]index(\.js)?)?$/.test(process.argv[1] ?? "")) {
  process.once("SIGINT", () => {
    context.end();
    process.stdout.write("", () => process.stderr.write("", () => process.exit(0)));
  });
  // A provider whose `pulumi` was killed would linger as an orphan (parent-watch.ts).
  exitWithParent();
}
