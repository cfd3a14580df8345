/**
 * `pulumi-resource-serviceapi`: the plugin's entry point. The engine starts it with its own address
 * as the argument (and log flags, ignored), and reads the port it listens on from its first line of
 * output.
 */
import * as grpc from "@grpc/grpc-js";
import { ProviderContext } from "../resources/context";
import { exitWithParent } from "../resources/parent-watch";
import { currentUrn, delivered, engineSink } from "./engine-log";
import { ResourceProviderService, providerService } from "./server";

export async function main(args: string[]): Promise<void> {
  const engineAddress = args.find((arg) => !arg.startsWith("-"));
  if (engineAddress === undefined) {
    console.error("pulumi-resource-serviceapi is a Pulumi plugin: Pulumi starts it with the engine's address.");
    process.exitCode = 1;
    return;
  }
  // One context per plugin process: each provider resource (the default one, each explicit one) gets its own process.
  const ctx = new ProviderContext({
    sink: engineSink(engineAddress),
    urn: currentUrn,
    // The CLI starts the plugin, in the program's folder.
    projectDir: process.cwd(),
  });
  const { port } = await serve(ctx);
  // The engine reads this line.
  process.stdout.write(`${port}\n`);
  // The engine ends a deployment with Cancel, then SIGINT to each provider process, and still
  // takes log messages until the process is gone: the summary line goes then.
  process.once("SIGINT", () => {
    ctx.end();
    void delivered(2000).finally(() => process.exit(0));
  });
  // A plugin whose `pulumi` is gone (killed: a lost runner, a second Ctrl-C) would linger as an orphan.
  exitWithParent();
}

/**
 * The provider's gRPC service for `ctx` on a free loopback port: the plugin's server, and the one
 * the in-process tests (test/plugin/server.test.ts) speak to.
 */
export async function serve(ctx: ProviderContext): Promise<{ server: grpc.Server; port: number }> {
  // The Pulumi SDK's own limit for engine messages (runtime/settings.js: 400 MB, not gRPC's default 4 MB).
  const server = new grpc.Server({ "grpc.max_receive_message_length": 1024 * 1024 * 400 });
  server.addService(ResourceProviderService, providerService(ctx) as grpc.UntypedServiceImplementation);
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound)));
  });
  return { server, port };
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error((error as Error).message);
    process.exit(1);
  });
}
