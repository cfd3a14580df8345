/**
 * What a DIY backend's blobs hold, decoded: a stack's checkpoint (`{version, checkpoint: {stack,
 * latest: {resources, pending_operations, …}}}`, Pulumi's `apitype.VersionedCheckpoint`), the
 * deployment `pulumi stack export` prints (`{version, deployment: {…}}`), and a lock file
 * (`{pid, username, hostname, timestamp}`). A blob is compressed when its first bytes say so, as
 * Pulumi detects it (`encoding.DetectCompression`): gzip and zstd, both of which Node's zlib
 * decodes (zstd since Node 22.15; this package needs 22.19).
 */
import { promisify } from "node:util";
import { gunzip, zstdDecompress } from "node:zlib";
import type { PendingOperation, StackLock, StackState, StateResource } from "./model";

const gunzipAsync = promisify(gunzip);
const zstdAsync = promisify(zstdDecompress);

/** The blob's bytes, decompressed if they are gzip (1f 8b 08) or zstd (28 b5 2f fd). */
export async function decompress(data: Buffer): Promise<Buffer> {
  if (data.length >= 3 && data[0] === 0x1f && data[1] === 0x8b && data[2] === 0x08) return gunzipAsync(data);
  if (data.length >= 4 && data[0] === 0x28 && data[1] === 0xb5 && data[2] === 0x2f && data[3] === 0xfd) return zstdAsync(data);
  return data;
}

/** The newest checkpoint version Pulumi 3.248 writes and reads (`stack.UnmarshalVersionedCheckpointToLatestCheckpoint`). */
const NEWEST_VERSION = 4;

/** A checkpoint blob's latest deployment as resources and pending operations (empty for a stack with no deployment yet). */
export async function checkpointState(data: Buffer): Promise<StackState> {
  const file = parseJson(await decompress(data)) as { version?: unknown; checkpoint?: { latest?: unknown }; latest?: unknown };
  const version = file.version ?? 0;
  if (typeof version !== "number" || version < 0 || version > NEWEST_VERSION) {
    throw new Error(`checkpoint version ${String(version)} is not one Pulumi 3.248 writes (0 to ${NEWEST_VERSION})`);
  }
  // Version 0 is the unversioned file of the first CLIs: the checkpoint itself (`stack init` still writes one first).
  return deploymentState(version === 0 ? file.latest : file.checkpoint?.latest);
}

/** `pulumi stack export`'s output as resources and pending operations. */
export function exportState(text: string): StackState {
  const exported = parseJson(Buffer.from(text, "utf8")) as { deployment?: unknown };
  return deploymentState(exported.deployment);
}

/** A deployment (`apitype.DeploymentV3`): its resources and pending operations, each resource reduced to what StateResource names. */
function deploymentState(deployment: unknown): StackState {
  const { resources, pending_operations } = (deployment ?? {}) as { resources?: unknown[] | null; pending_operations?: unknown[] | null };
  return {
    resources: (resources ?? []).map(resourceOf),
    pending: (pending_operations ?? []).map((op) => {
      const { type, resource } = op as { type: string; resource: unknown };
      return { type, resource: resourceOf(resource) } satisfies PendingOperation;
    }),
  };
}

function resourceOf(raw: unknown): StateResource {
  const r = raw as { urn: string; type: string; id?: string; inputs?: Record<string, unknown>; outputs?: Record<string, unknown> };
  return {
    urn: r.urn,
    type: r.type,
    ...(typeof r.id === "string" && r.id !== "" && { id: r.id }),
    inputs: r.inputs ?? {},
    outputs: r.outputs ?? {},
  };
}

/** A lock file's content, with the key it lies at. */
export function lockOf(key: string, data: Buffer): StackLock {
  const { pid, username, hostname, timestamp } = parseJson(data) as Partial<Omit<StackLock, "key">>;
  if (typeof pid !== "number" || typeof timestamp !== "string") throw new Error(`the lock ${key} holds no pid and timestamp`);
  return { key, pid, username: username ?? "", hostname: hostname ?? "", timestamp };
}

function parseJson(data: Buffer): unknown {
  try {
    return JSON.parse(data.toString("utf8"));
  } catch (error) {
    throw new Error(`not JSON (${(error as Error).message})`, { cause: error });
  }
}
