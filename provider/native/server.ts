/**
 * The plugin face: a Pulumi resource-provider gRPC server (on the SDK's own protocol definitions)
 * that serves the same lifecycles as the dynamic provider, for Pulumi YAML and every other
 * language, `pulumi import` and `--import-pending-creates`.
 *
 * It is our own server rather than `@pulumi/pulumi/provider`'s, whose `configure` drops the
 * provider's arguments (so an explicit provider's token never arrives) and whose `read` fails on
 * the property-less requests an import sends. `configure` answers `acceptSecrets: false`: the
 * engine then hands us plain values and marks outputs secret by their inputs, as it does for
 * dynamic providers, so the lifecycles see the same values through both faces.
 */
import * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { Any } from "google-protobuf/google/protobuf/any_pb";
import { Struct, type JavaScriptValue } from "google-protobuf/google/protobuf/struct_pb";
import { PluginInfo } from "@pulumi/pulumi/proto/plugin_pb";
import { ResourceProviderService } from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as proto from "@pulumi/pulumi/proto/provider_pb";
import { Status } from "@pulumi/pulumi/proto/status_pb";
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";
import { version } from "../../package.json";
import { ConfigError } from "../client";
import { isUnknown } from "../lifecycle/checks";
import { PartialFailure, adviseOnFailure } from "../lifecycle/errors";
import { product } from "../lifecycle/product";
import { apiClient, useSettings } from "../lifecycle/service";
import { site } from "../lifecycle/site";
import { NAME_KEY } from "../lifecycle/stored-state";
import { task } from "../lifecycle/task";
import type { Lifecycle } from "../lifecycle/types";
import { findProject, findSite, listProjects, listSites, type GetProjectArgs, type GetSiteArgs } from "../lookups";
import { readSettings } from "../settings";
import { forResource } from "./engine-log";
import { PACKAGE, packageSchema, typeToken } from "./schema";

type Values = Record<string, unknown>;
type AnyLifecycle = Lifecycle<Values, Values>;

const LIFECYCLES: Record<string, AnyLifecycle> = {
  [typeToken("Product")]: product as unknown as AnyLifecycle,
  [typeToken("Site")]: site as unknown as AnyLifecycle,
  [typeToken("Task")]: task as unknown as AnyLifecycle,
};

/** The data sources, by function token; `fn` names the function in messages. */
const FUNCTIONS: Record<string, (args: Values) => Promise<Values>> = {
  [typeToken("getProjects")]: async (args) => {
    const workspaceId = args.workspaceId as string | undefined;
    return { ...(workspaceId !== undefined && { workspaceId }), projects: await listProjects(apiClient(), workspaceId) };
  },
  [typeToken("getProject")]: async (args) => ({ ...await findProject(apiClient(), "getProject", args as unknown as GetProjectArgs, true) }),
  [typeToken("getSites")]: async (args) => ({ projectId: args.projectId, sites: await listSites(apiClient(), args.projectId as string) }),
  [typeToken("getSite")]: async (args) => ({ ...await findSite(apiClient(), "getSite", args as unknown as GetSiteArgs, true) }),
};

type Call<Req> = grpc.ServerUnaryCall<Req, unknown>;
type Reply<Res> = grpc.sendUnaryData<Res>;

/** The handlers the engine calls; anything not here answers UNIMPLEMENTED. */
export const providerService: Partial<grpc.UntypedServiceImplementation> = {
  getPluginInfo: (_call: Call<Empty>, reply: Reply<PluginInfo>) => {
    const info = new PluginInfo();
    info.setVersion(version);
    reply(null, info);
  },

  getSchema: (call: Call<proto.GetSchemaRequest>, reply: Reply<proto.GetSchemaResponse>) => {
    if (call.request.getVersion() !== 0) return reply(failure(`unsupported schema version ${call.request.getVersion()}`));
    const response = new proto.GetSchemaResponse();
    response.setSchema(JSON.stringify(packageSchema()));
    reply(null, response);
  },

  /** The provider's own inputs, checked as settings: a bad value fails here, naming the key. */
  checkConfig: (call: Call<proto.CheckRequest>, reply: Reply<proto.CheckResponse>) => {
    const news = values(call.request.getNews());
    const response = new proto.CheckResponse();
    response.setInputs(call.request.getNews() ?? new Struct());
    if (!Object.values(news).some(isUnknown)) {
      try {
        readSettings(setting(news));
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        response.setFailuresList([checkFailure((error as Error).message)]);
      }
    }
    reply(null, response);
  },

  /** A changed token or base URL changes how records are reached, never the records: no replacement. */
  diffConfig: (call: Call<proto.DiffRequest>, reply: Reply<proto.DiffResponse>) => {
    const olds = values(call.request.getOlds());
    const news = values(call.request.getNews());
    const keys = new Set([...Object.keys(olds), ...Object.keys(news)]);
    const changed = [...keys].filter((key) => JSON.stringify(olds[key]) !== JSON.stringify(news[key]));
    const response = new proto.DiffResponse();
    response.setChanges(changed.length > 0 ? proto.DiffResponse.DiffChanges.DIFF_SOME : proto.DiffResponse.DiffChanges.DIFF_NONE);
    response.setDiffsList(changed);
    reply(null, response);
  },

  /**
   * The default provider's config (`serviceapi:token`, …) or an explicit provider's arguments, with
   * `SERVICEAPI_*` as the fallback. Each provider resource runs in its own plugin process, so two
   * explicit providers with two tokens do not share settings.
   */
  configure: (call: Call<proto.ConfigureRequest>, reply: Reply<proto.ConfigureResponse>) => {
    const args = values(call.request.getArgs());
    const variables = Object.fromEntries(call.request.getVariablesMap().toArray()
      .map(([key, value]) => [key.replace(new RegExp(`^${PACKAGE}:(config:)?`), ""), value]));
    useSettings(() => readSettings(setting({ ...variables, ...args })));
    const response = new proto.ConfigureResponse();
    response.setAcceptsecrets(false);
    response.setAcceptresources(false);
    response.setSupportspreview(false);
    reply(null, response);
  },

  check: handle(async (request: proto.CheckRequest) => {
    const lifecycle = lifecycleOf(request.getType(), request.getUrn());
    const news = { ...values(request.getNews()), [NAME_KEY]: nameOf(request.getName(), request.getUrn()) };
    const result = await lifecycle.check(values(request.getOlds()), news);
    const response = new proto.CheckResponse();
    response.setInputs(toStruct(result.inputs));
    response.setFailuresList(result.failures.map((f) => checkFailure(f.reason, f.property)));
    return response;
  }),

  diff: handle(async (request: proto.DiffRequest) => {
    const lifecycle = lifecycleOf(request.getType(), request.getUrn());
    const name = nameOf(request.getName(), request.getUrn());
    const news = values(request.getNews());
    const result = await lifecycle.diff(request.getId(), named(values(request.getOlds()), name), named(news, name));
    const response = new proto.DiffResponse();
    response.setChanges(result.changes ? proto.DiffResponse.DiffChanges.DIFF_SOME : proto.DiffResponse.DiffChanges.DIFF_NONE);
    response.setReplacesList(result.replaces);
    response.setDeletebeforereplace(result.deleteBeforeReplace ?? false);
    // Exactly the fields the lifecycle will change, and which of them replaces: the CLI shows them
    // as native providers' are (`[diff: ~title]`), secret values included (`title: [secret] => [secret]`).
    if (result.changed.length > 0) {
      const oldInputs = values(request.getOldInputs() ?? request.getOlds());
      response.setDiffsList(result.changed);
      response.setHasdetaileddiff(true);
      for (const key of result.changed) response.getDetaileddiffMap().set(key, propertyDiff(oldInputs[key], news[key], result.replaces.includes(key)));
    }
    return response;
  }),

  create: handleRecordOperation(async (request: proto.CreateRequest) => {
    const lifecycle = lifecycleOf(request.getType(), request.getUrn());
    const inputs = named(values(request.getProperties()), nameOf(request.getName(), request.getUrn()));
    const { id, outs } = await lifecycle.create(inputs);
    const response = new proto.CreateResponse();
    response.setId(id);
    response.setProperties(toStruct(outs));
    return response;
  }),

  /**
   * A refresh reads with the stored outputs. An import (`pulumi import`, the `import:` option,
   * `--import-pending-creates`) has none: the lifecycle finds the record from the id alone, with
   * any inputs the engine still has.
   */
  read: handleRecordOperation(async (request: proto.ReadRequest) => {
    const lifecycle = lifecycleOf(request.getType(), request.getUrn());
    const name = nameOf(request.getName(), request.getUrn());
    const props = values(request.getProperties());
    const result = Object.keys(props).length === 0
      ? await lifecycle.importRecord(request.getId(), { ...values(request.getInputs()), ...props, [NAME_KEY]: name })
      : await lifecycle.read(request.getId(), named(props, name));
    const response = new proto.ReadResponse();
    response.setId(result.id ?? "");
    if (result.props) response.setProperties(toStruct(result.props));
    if (result.inputs) response.setInputs(toStruct(result.inputs));
    return response;
  }),

  update: handleRecordOperation(async (request: proto.UpdateRequest) => {
    const lifecycle = lifecycleOf(request.getType(), request.getUrn());
    const name = nameOf(request.getName(), request.getUrn());
    const { outs } = await lifecycle.update(request.getId(), named(values(request.getOlds()), name), named(values(request.getNews()), name));
    const response = new proto.UpdateResponse();
    response.setProperties(toStruct(outs));
    return response;
  }),

  delete: handleRecordOperation(async (request: proto.DeleteRequest) => {
    const lifecycle = lifecycleOf(request.getType(), request.getUrn());
    await lifecycle.remove(request.getId(), named(values(request.getProperties()), nameOf(request.getName(), request.getUrn())));
    return new Empty();
  }),

  invoke: handle(async (request: proto.InvokeRequest) => {
    const fn = FUNCTIONS[request.getTok()];
    if (!fn) throw new Error(`${PACKAGE} has no function ${request.getTok()} (it has ${Object.keys(FUNCTIONS).join(", ")})`);
    const response = new proto.InvokeResponse();
    response.setReturn(toStruct(await fn(values(request.getArgs()))));
    return response;
  }),

  cancel: (_call: Call<Empty>, reply: Reply<Empty>) => reply(null, new Empty()),
};

/**
 * Runs a handler inside its resource's message context and turns failures into what the engine
 * expects: a `PartialFailure` becomes `ErrorResourceInitFailed` (the record is kept in the stack),
 * anything else an error with its message — no stack trace.
 */
/** As `handle`, for create, read, update and delete: a 401 or settings error says which configuration refresh and destroy use. */
function handleRecordOperation<Req, Res>(work: (request: Req) => Promise<Res>) {
  return handle(adviseOnFailure(work));
}

function handle<Req, Res>(work: (request: Req) => Promise<Res>) {
  return (call: Call<Req>, reply: Reply<Res>) => {
    const urn = (call.request as { getUrn?: () => string }).getUrn?.() ?? "";
    forResource(urn, () => work(call.request)).then(
      (response) => reply(null, response),
      (error: unknown) => reply(error instanceof PartialFailure ? partialFailure(error) : failure((error as Error).message ?? String(error))),
    );
  };
}

function failure(message: string): grpc.ServiceError {
  return Object.assign(new Error(message), { code: grpc.status.UNKNOWN, details: message, metadata: new grpc.Metadata() });
}

/** The record exists; the engine keeps its id and outputs and shows the reason. */
function partialFailure(error: PartialFailure): grpc.ServiceError {
  const detail = new proto.ErrorResourceInitFailed();
  detail.setId(error.id);
  detail.setProperties(toStruct(error.outputs as Values));
  detail.setReasonsList([error.message]);
  const any = new Any();
  any.pack(detail.serializeBinary(), "pulumirpc.ErrorResourceInitFailed");
  const status = new Status();
  status.setCode(grpc.status.UNKNOWN);
  status.setMessage(error.message);
  status.addDetails(any);
  const metadata = new grpc.Metadata();
  metadata.add("grpc-status-details-bin", Buffer.from(status.serializeBinary()));
  return Object.assign(new Error(error.message), { code: grpc.status.UNKNOWN, details: error.message, metadata });
}

/** An input diff: added, deleted or updated between the old and new inputs, and whether it replaces. */
function propertyDiff(before: unknown, after: unknown, replaces: boolean): proto.PropertyDiff {
  const Kind = proto.PropertyDiff.Kind;
  const absent = (value: unknown) => value === undefined || value === null;
  const kind = absent(before) && !absent(after) ? (replaces ? Kind.ADD_REPLACE : Kind.ADD)
    : !absent(before) && absent(after) ? (replaces ? Kind.DELETE_REPLACE : Kind.DELETE)
    : replaces ? Kind.UPDATE_REPLACE : Kind.UPDATE;
  const diff = new proto.PropertyDiff();
  diff.setKind(kind);
  diff.setInputdiff(true);
  return diff;
}

function checkFailure(reason: string, property = ""): proto.CheckFailure {
  const failed = new proto.CheckFailure();
  failed.setProperty(property);
  failed.setReason(reason);
  return failed;
}

function lifecycleOf(type: string, urn: string): AnyLifecycle {
  const token = type || (urn.split("::")[2] ?? "").split("$").pop()!;
  const lifecycle = LIFECYCLES[token];
  if (!lifecycle) throw new Error(`${PACKAGE} has no resource type ${token} (it has ${Object.keys(LIFECYCLES).join(", ")})`);
  return lifecycle;
}

/** The resource's logical name: from the request, or the last part of its URN. */
function nameOf(name: string, urn: string): string {
  return name || urn.split("::").pop()!;
}

function named(props: Values, name: string): Values {
  return { ...props, [NAME_KEY]: name };
}

function values(struct: Struct | undefined): Values {
  return (struct?.toJavaScript() ?? {}) as Values;
}

function toStruct(value: object): Struct {
  // Struct has no `undefined`: drop those keys, as JSON would.
  return Struct.fromJavaScript(JSON.parse(JSON.stringify(value)) as Record<string, JavaScriptValue>);
}

/**
 * Settings are strings in stack config; an explicit provider's arguments may arrive typed, and a
 * secret one (the token) wrapped as Pulumi marks secrets on the wire: `configure` is sent before
 * the engine knows we take plain values.
 */
function setting(source: Values): (key: string) => string | undefined {
  return (key) => {
    let value = source[key];
    if (typeof value === "object" && value !== null && (value as Values)[specialSigKey] === specialSecretSig) value = (value as Values).value;
    return value === undefined || value === null ? undefined : String(value);
  };
}


export { ResourceProviderService };
