#!/usr/bin/env node
/** `serviceapi-simulator`: runs the local service until SIGINT/SIGTERM. */
import { parseArgs } from "node:util";
import { startSimulator } from "./index";
import { MIN_TOKEN_LENGTH, TokenText } from "./seed";

const USAGE = `Usage: serviceapi-simulator [--port 8787] [--host 127.0.0.1] [--seed FILE] [--data FILE] [--token TOKEN]

  --port   port to listen on (0 picks a free one)          default 8787
  --host   address to bind                                   default 127.0.0.1
  --seed   JSON file with workspaces, projects, sites, tokens (default: built-in seed)
  --data   SQLite file that keeps state across restarts     (default: in memory)
  --token  extra bearer token with access to every workspace, beside the seed's
           (at least ${MIN_TOKEN_LENGTH} printable ASCII characters: the client refuses shorter ones)`;

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: "string", default: "8787" },
        host: { type: "string", default: "127.0.0.1" },
        seed: { type: "string" },
        data: { type: "string" },
        token: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }));
  } catch (err) {
    console.error(`serviceapi-simulator: ${(err as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`serviceapi-simulator: --port must be an integer from 0 to 65535 (got ${values.port})`);
    process.exit(2);
  }
  // A token the client would refuse makes every later `pulumi up` fail; say so here instead.
  if (values.token !== undefined && !TokenText.safeParse(values.token).success) {
    console.error(
      `serviceapi-simulator: --token must be at least ${MIN_TOKEN_LENGTH} printable ASCII characters without spaces ` +
        `(got ${values.token.length} characters): the client, and so the Pulumi resources, refuse shorter tokens`,
    );
    process.exit(2);
  }

  const sim = await startSimulator({
    port,
    host: values.host,
    seedFile: values.seed,
    dataFile: values.data,
    token: values.token,
  });
  console.log(`serviceapi-simulator listening on ${sim.url}`);
  console.log(`  SERVICEAPI_BASE_URL=${sim.url}`);
  console.log(`  SERVICEAPI_TOKEN=${sim.token}`);
  console.log(`  storage: ${values.data ? values.data : "in memory"}`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    await sim.close();
    console.log(`serviceapi-simulator stopped (${signal})`);
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}

main().catch((err: unknown) => {
  console.error(`serviceapi-simulator: ${(err as Error).message}`);
  process.exit(1);
});
