/**
 * The plugin's gRPC server in-process, spoken to as the engine speaks to it (protobuf requests
 * over a loopback gRPC channel; pulumi-go-provider's `integration.NewServer` is the model): check,
 * diff with its detailed diff, create, read, update, delete, invoke, import and cancel, against the
 * simulator. Fast; the CLI engine tests (test/engine/plugin-*.test.ts) stay the proof.
 */
import * as grpc from "@grpc/grpc-js";
import { Struct, type JavaScriptValue } from "google-protobuf/google/protobuf/struct_pb";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as proto from "@pulumi/pulumi/proto/provider_pb";
import { afterEach, describe, expect, it } from "vitest";
import { ProviderContext, type Severity } from "../../provider/resources/context";
import { serve } from "../../provider/plugin/main";
import { SECRET_SIG, SECRET_SIG_KEY } from "../../provider/plugin/wire";
import { DEFAULT_IDS } from "../../simulator/seed";
import type { Simulator, SimulatorOptions } from "pulumi-serviceapi-simulator";
import { simulator, VirtualClock } from "../helpers";

const PRODUCT = "serviceapi:index:Product";
const urn = (name: string, type = PRODUCT) => `urn:pulumi:test::plugin::${type}::${name}`;
const project = DEFAULT_IDS.acmeDocs;

interface Plugin {
  sim: Simulator;
  ctx: ProviderContext;
  messages: { severity: Severity; message: string }[];
  call<Req, Res>(method: string, request: Req): Promise<Res>;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A plugin server on a loopback port, configured for a fresh simulator as `pulumi` configures it. */
async function plugin(config: Record<string, string> = {}, simOptions: SimulatorOptions = {}): Promise<Plugin> {
  const sim = await simulator(simOptions);
  const messages: Plugin["messages"] = [];
  const ctx = new ProviderContext({ sink: (severity, message) => messages.push({ severity, message }), env: {} });
  const { server, port } = await serve(ctx);
  const client = new ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  cleanups.push(async () => {
    client.close();
    await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
    await ctx.close();
  });
  const call = <Req, Res>(method: string, request: Req) =>
    new Promise<Res>((resolve, reject) => {
      (client as unknown as Record<string, (r: Req, cb: (e: grpc.ServiceError | null, res: Res) => void) => void>)[method]!.call(
        client,
        request,
        (error, response) => (error ? reject(error) : resolve(response)),
      );
    });
  const configure = new proto.ConfigureRequest();
  for (const [key, value] of Object.entries({ token: sim.token, baseUrl: sim.url, ...config }))
    configure.getVariablesMap().set(`serviceapi:config:${key}`, value);
  await call("configure", configure);
  return { sim, ctx, messages, call };
}

const struct = (value: object) => Struct.fromJavaScript(JSON.parse(JSON.stringify(value)) as Record<string, JavaScriptValue>);

function checkRequest(name: string, news: object, olds: object = {}): proto.CheckRequest {
  return new proto.CheckRequest().setUrn(urn(name)).setName(name).setType(PRODUCT).setNews(struct(news)).setOlds(struct(olds));
}

describe("the plugin's gRPC server, in-process", () => {
  it("check refuses bad input naming the field (never the value), with no request", async () => {
    const { sim, call } = await plugin();
    const response = await call<proto.CheckRequest, proto.CheckResponse>(
      "check",
      checkRequest("pro", { projectId: project, title: "x".repeat(1025) }),
    );
    expect(response.getFailuresList().map((f) => [f.getProperty(), f.getReason()])).toEqual([
      ["", "title must be 1 to 1024 characters long (got 1025)"],
    ]);
    expect(sim.requests()).toEqual([]);
  });

  it("create → diff (detailed) → update → read → delete: one PATCH with one key, archived at the end", async () => {
    const { sim, call, messages } = await plugin();
    const inputs = { projectId: project, title: "Pro plan", slug: "pro" };
    const checked = await call<proto.CheckRequest, proto.CheckResponse>("check", checkRequest("pro", inputs));
    const created = await call<proto.CreateRequest, proto.CreateResponse>(
      "create",
      new proto.CreateRequest().setUrn(urn("pro")).setName("pro").setType(PRODUCT).setProperties(checked.getInputs()),
    );
    const id = created.getId();
    expect(messages.map((m) => m.message)).toEqual([`serviceapi: created Product "pro" ${id}`]);

    const news = { ...inputs, title: "Pro plan 2027", slug: null };
    const diff = await call<proto.DiffRequest, proto.DiffResponse>(
      "diff",
      new proto.DiffRequest()
        .setId(id)
        .setUrn(urn("pro"))
        .setName("pro")
        .setType(PRODUCT)
        .setOlds(created.getProperties())
        .setOldInputs(checked.getInputs())
        .setNews(struct(news)),
    );
    expect(diff.getChanges()).toBe(proto.DiffResponse.DiffChanges.DIFF_SOME);
    expect(diff.getReplacesList()).toEqual([]);
    expect(diff.getHasdetaileddiff()).toBe(true);
    const detailed = Object.fromEntries(
      diff
        .getDetaileddiffMap()
        .toArray()
        .map(([key, d]) => [key, (d as unknown as [number, boolean])[0]]),
    );
    expect(detailed).toEqual({ title: proto.PropertyDiff.Kind.UPDATE, slug: proto.PropertyDiff.Kind.DELETE });

    sim.clearRequests();
    const updated = await call<proto.UpdateRequest, proto.UpdateResponse>(
      "update",
      new proto.UpdateRequest()
        .setId(id)
        .setUrn(urn("pro"))
        .setName("pro")
        .setType(PRODUCT)
        .setOlds(created.getProperties())
        .setNews(struct(news)),
    );
    expect(sim.requests().map((r) => r.body)).toEqual([{ title: "Pro plan 2027", slug: null }]);
    expect(updated.getProperties()!.toJavaScript()).toMatchObject({ title: "Pro plan 2027", slug: null });

    const read = await call<proto.ReadRequest, proto.ReadResponse>(
      "read",
      new proto.ReadRequest().setId(id).setUrn(urn("pro")).setName("pro").setType(PRODUCT).setProperties(updated.getProperties()),
    );
    expect(read.getId()).toBe(id);
    expect(read.getInputs()!.toJavaScript()).toMatchObject({ title: "Pro plan 2027", projectId: project });

    sim.clearRequests();
    await call<proto.DeleteRequest, Empty>(
      "delete",
      new proto.DeleteRequest().setId(id).setUrn(urn("pro")).setName("pro").setType(PRODUCT).setProperties(updated.getProperties()),
    );
    expect(sim.requests().map((r) => r.body)).toEqual([{ status: "archived" }]);
  });

  it("takes secrets (configure says so): each arrives marked, the lifecycle gets it plain, and what check, create and update return is marked again", async () => {
    const { sim, call } = await plugin();
    const again = new proto.ConfigureRequest();
    for (const [key, value] of Object.entries({ token: sim.token, baseUrl: sim.url }))
      again.getVariablesMap().set(`serviceapi:config:${key}`, value);
    const configured = await call<proto.ConfigureRequest, proto.ConfigureResponse>("configure", again);
    expect(configured.getAcceptsecrets()).toBe(true);
    const secret = (value: string) => ({ [SECRET_SIG_KEY]: SECRET_SIG, value });
    const inputs = { projectId: project, title: secret("Board-only plan"), slug: "board" };
    const checked = await call<proto.CheckRequest, proto.CheckResponse>("check", checkRequest("board", inputs));
    expect(checked.getInputs()!.toJavaScript()).toEqual(inputs);
    const created = await call<proto.CreateRequest, proto.CreateResponse>(
      "create",
      new proto.CreateRequest().setUrn(urn("board")).setName("board").setType(PRODUCT).setProperties(checked.getInputs()),
    );
    const outs = created.getProperties()!.toJavaScript();
    expect([outs.title, outs.slug, outs.projectId]).toEqual([secret("Board-only plan"), "board", project]);
    // The service got the plain value.
    expect(sim.requests("products.create").map((r) => (r.body as { title: string }).title)).toEqual(["Board-only plan"]);
    const updated = await call<proto.UpdateRequest, proto.UpdateResponse>(
      "update",
      new proto.UpdateRequest()
        .setId(created.getId())
        .setUrn(urn("board"))
        .setName("board")
        .setType(PRODUCT)
        .setOlds(created.getProperties())
        .setNews(struct({ ...inputs, title: "Public plan", slug: secret("board-2") })),
    );
    const after = updated.getProperties()!.toJavaScript();
    expect([after.title, after.slug]).toEqual(["Public plan", secret("board-2")]);
  });

  it("a replacement shows in the detailed diff as update-replace", async () => {
    const { call } = await plugin();
    const olds = { projectId: project, title: "T", onDelete: "archive", status: "draft", __declared: ["projectId", "title"] };
    const diff = await call<proto.DiffRequest, proto.DiffResponse>(
      "diff",
      new proto.DiffRequest()
        .setId("0b3f2a8e-5b7c-4f1e-9a6d-2c4e8f0a1b3d")
        .setUrn(urn("pro"))
        .setName("pro")
        .setType(PRODUCT)
        .setOlds(struct(olds))
        .setNews(struct({ projectId: DEFAULT_IDS.acmeWeb, title: "T" })),
    );
    expect(diff.getReplacesList()).toEqual(["projectId"]);
    expect(diff.getDetaileddiffMap().get("projectId")!.getKind()).toBe(proto.PropertyDiff.Kind.UPDATE_REPLACE);
  });

  it("import (a read with no properties) takes an existing product in by <projectId>/<productId>", async () => {
    const { sim, call, ctx } = await plugin();
    const existing = await ctx.client().createProduct({ projectId: project, title: "Legacy", slug: "legacy" });
    sim.clearRequests();
    const read = await call<proto.ReadRequest, proto.ReadResponse>(
      "read",
      new proto.ReadRequest().setId(`${project}/${existing.id}`).setUrn(urn("legacy")).setName("legacy").setType(PRODUCT),
    );
    expect(read.getId()).toBe(existing.id);
    expect(read.getInputs()!.toJavaScript()).toEqual({ projectId: project, title: "Legacy", slug: "legacy", status: "draft" });
    expect(sim.requests().map((r) => r.body)).toEqual([{}]);
    const task = await call<proto.ReadRequest, proto.ReadResponse>(
      "read",
      new proto.ReadRequest().setId(existing.id).setUrn(urn("t", "serviceapi:index:Task")).setName("t").setType("serviceapi:index:Task"),
    ).catch((e: Error) => e);
    expect((task as grpc.ServiceError).details).toContain("cannot be imported: the API cannot read tasks");
  });

  it("invoke runs a function of the schema, checking its arguments with the lookup's own declaration", async () => {
    const { call } = await plugin();
    const found = await call<proto.InvokeRequest, proto.InvokeResponse>(
      "invoke",
      new proto.InvokeRequest().setTok("serviceapi:index:getProject").setArgs(struct({ name: "Acme Docs" })),
    );
    expect(found.getReturn()!.toJavaScript()).toMatchObject({ id: project, name: "Acme Docs" });
    // Found with a secret argument: every part of the result is secret, as the engine marks it for a provider that takes none.
    const secretly = await call<proto.InvokeRequest, proto.InvokeResponse>(
      "invoke",
      new proto.InvokeRequest()
        .setTok("serviceapi:index:getProject")
        .setArgs(struct({ name: { [SECRET_SIG_KEY]: SECRET_SIG, value: "Acme Docs" } })),
    );
    const secretResult = secretly.getReturn()!.toJavaScript();
    expect(secretResult.id).toEqual({ [SECRET_SIG_KEY]: SECRET_SIG, value: project });
    expect(Object.values(secretResult).every((v) => (v as Record<string, unknown>)[SECRET_SIG_KEY] === SECRET_SIG)).toBe(true);
    const bad = await call("invoke", new proto.InvokeRequest().setTok("serviceapi:index:getSite").setArgs(struct({ name: "x" }))).catch(
      (e: Error) => e,
    );
    expect((bad as grpc.ServiceError).details).toBe("getSite: projectId is required");
    const none = await call("invoke", new proto.InvokeRequest().setTok("serviceapi:index:getNothing").setArgs(struct({}))).catch(
      (e: Error) => e,
    );
    expect((none as grpc.ServiceError).details).toContain("serviceapi has no function serviceapi:index:getNothing");
  });

  it("cancel: a request already sent finishes; no new request starts", async () => {
    // The simulator's delay is on a clock only this test moves: the POST is answered after the cancel, however
    // long a busy machine takes to deliver the cancel (on real time, a cancel slower than the delay failed this).
    const clock = new VirtualClock({ advance: "by-test" });
    const { sim, call } = await plugin({}, { clock });
    sim.addFault({ operation: "products.create", kind: "delay", delayMs: 300 });
    const checked = await call<proto.CheckRequest, proto.CheckResponse>(
      "check",
      checkRequest("slow", { projectId: project, title: "Slow", status: "active" }),
    );
    const creating = call<proto.CreateRequest, proto.CreateResponse>(
      "create",
      new proto.CreateRequest().setUrn(urn("slow")).setName("slow").setType(PRODUCT).setProperties(checked.getInputs()),
    );
    // The POST is at the service (logged, not answered yet) when Pulumi cancels.
    while (!sim.requests("products.create").some((r) => r.status === null)) await new Promise((resolve) => setImmediate(resolve));
    await call("cancel", new Empty());
    clock.advance(300);
    // The POST in flight completes and is recorded (partial: its status PATCH was never sent).
    const error = (await creating.catch((e: grpc.ServiceError) => e)) as grpc.ServiceError;
    expect(error.details).toContain("was created, but setting its status failed: products.update was not sent: the client was stopped");
    expect(sim.requests().map((r) => r.operation)).toEqual(["products.create"]);
    expect(sim.counts().products).toBe(1);
  });
});
