#!/usr/bin/env node
/**
 * `serviceapi-simulator`: runs the local service until SIGINT/SIGTERM. The Node.js version is checked
 * first: the simulator's modules (`./index` loads `node:sqlite`, which an older Node does not have) are
 * loaded only after it (`import()`, which the CommonJS build turns into a `require` at that point), so
 * an older Node gets one line naming both versions instead of a stack trace. Exit codes
 * (simulator/README.md): 0 stopped by a signal, 1 could not start, 2 refused (a bad argument, or a
 * Node.js older than it needs).
 */
import { parseArgs } from "node:util";
import { MIN_NODE, nodeSupported } from "./node-version";

/** Refused before starting: the code a bad argument gets too. */
const REFUSED = 2;

if (nodeSupported(process.versions.node)) {
  main().catch((err: unknown) => {
    console.error(`serviceapi-simulator: ${(err as Error).message}`);
    process.exit(1);
  });
} else {
  process.stderr.write(
    `serviceapi-simulator: needs Node.js ${MIN_NODE} or later; this is Node.js ${process.version} (${process.execPath}). ` +
      "Put a newer node first on PATH.\n",
  );
  process.exitCode = REFUSED;
}

/** The usage text; the token's minimum is the seed's (`./seed`, loaded after the version check). */
function usage(minTokenLength: number): string {
  return `Usage: serviceapi-simulator [--port 8787] [--host 127.0.0.1] [--seed FILE] [--data FILE] [--token TOKEN]

  --port   port to listen on (0 picks a free one)          default 8787
  --host   address to bind                                   default 127.0.0.1
  --seed   JSON file with workspaces, projects, sites, tokens (default: built-in seed)
  --data   SQLite file that keeps state across restarts     (default: in memory)
  --token  extra bearer token with access to every workspace, beside the seed's
           (at least ${minTokenLength} printable ASCII characters: the client refuses shorter ones)`;
}

async function main(): Promise<void> {
  const [{ startSimulator }, { MIN_TOKEN_LENGTH, TokenText }] = await Promise.all([import("./index"), import("./seed")]);
  const USAGE = usage(MIN_TOKEN_LENGTH);
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
    process.exit(REFUSED);
  }
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`serviceapi-simulator: --port must be an integer from 0 to 65535 (got ${values.port})`);
    process.exit(REFUSED);
  }
  // A token the client would refuse makes every later `pulumi up` fail; say so here instead.
  if (values.token !== undefined && !TokenText.safeParse(values.token).success) {
    console.error(
      `serviceapi-simulator: --token must be at least ${MIN_TOKEN_LENGTH} printable ASCII characters without spaces ` +
        `(got ${values.token.length} characters): the client, and so the Pulumi resources, refuse shorter tokens`,
    );
    process.exit(REFUSED);
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
