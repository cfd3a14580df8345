/**
 * schema.json, the plugin's schema committed for review, is what the plugin serves today: byte for
 * byte what `npm run gen-sdk` writes from provider/plugin/schema.ts, and, parsed, what the plugin's
 * gRPC GetSchema answers in-process. A change to a field table, a description or a setting that is
 * not followed by `npm run gen-sdk` fails here. That `pulumi package get-schema` prints the same,
 * through the real CLI and the installed plugin, is test/engine/plugin-schema.test.ts's.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as proto from "@pulumi/pulumi/proto/provider_pb";
import { describe, expect, it } from "vitest";
import { serve } from "../../provider/plugin/main";
import { packageSchema } from "../../provider/plugin/schema";
import { ProviderContext } from "../../provider/resources/context";

const committed = readFileSync(join(__dirname, "..", "..", "schema.json"), "utf8");

/** GetSchema, asked as the engine asks it, of a plugin server on a loopback port. */
async function servedSchema(): Promise<string> {
  const ctx = new ProviderContext({ sink: () => {}, env: {} });
  const { server, port } = await serve(ctx);
  const client = new ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  try {
    const response = await new Promise<proto.GetSchemaResponse>((resolve, reject) =>
      client.getSchema(new proto.GetSchemaRequest(), (error, res) => (error ? reject(error) : resolve(res))),
    );
    return response.getSchema();
  } finally {
    client.close();
    await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
    await ctx.close();
  }
}

describe("schema.json", () => {
  it("is what `npm run gen-sdk` writes from the field tables today", () => {
    expect(committed === `${JSON.stringify(packageSchema(), null, 2)}\n`, "schema.json is stale: run `npm run gen-sdk`").toBe(true);
  });

  it("is what the plugin's GetSchema serves", async () => {
    expect(JSON.parse(await servedSchema())).toEqual(JSON.parse(committed));
  });

  it("is the whole schema: three resources, four functions, the settings", () => {
    const schema = JSON.parse(committed) as { resources: object; functions: object; config: { variables: object } };
    expect(Object.keys(schema.resources).sort()).toEqual(["serviceapi:index:Product", "serviceapi:index:Site", "serviceapi:index:Task"]);
    expect(Object.keys(schema.functions)).toHaveLength(4);
    expect(Object.keys(schema.config.variables)).toContain("token");
  });
});
