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
import { version } from "../../package.json";
import { ConfigError } from "../client";
import { isUnknown } from "../resources/checks";
import type { ProviderContext } from "../resources/context";
import { PartialFailure, adviseOnFailure } from "../resources/errors";
import type { CheckFailure, Lifecycle, Values } from "../resources/lifecycle";
import { LOOKUPS } from "../resources/lookups";
import { product } from "../resources/product";
import { readSettings } from "../resources/settings";
import { site } from "../resources/site";
import { NAME_KEY } from "../resources/stored-state";
import { task } from "../resources/task";
import { forResource } from "./engine-log";
import { PACKAGE, packageSchema, typeToken } from "./schema";

const LIFECYCLES: Record<string, Lifecycle> = {
  [typeToken("Product")]: product,
  [typeToken("Site")]: site,
  [typeToken("Task")]: task,
};

/**
 * How the wire protocol marks a secret value (`{"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
 * "value": …}`: pulumi/pulumi `sdk/go/common/resource/sig/sig.go`, and the SDK's `runtime/rpc` for
 * Node.js). Written out so the plugin loads none of the program-side SDK; a test keeps the two equal.
 */
export const SECRET_SIG_KEY = "4dabf18193072939515e22adb298388d";
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

type Call<Req> = grpc.ServerUnaryCall<Req, unknown>;
type Reply<Res> = grpc.sendUnaryData<Res>;

/** The handlers the engine calls, on one process's context; anything not here answers UNIMPLEMENTED. */
export function providerService(ctx: ProviderContext): Partial<grpc.UntypedServiceImplementation> {
  return {
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
      const variables = Object.fromEntries(
        call.request
          .getVariablesMap()
          .toArray()
          .map(([key, value]) => [key.replace(new RegExp(`^${PACKAGE}:(config:)?`), ""), value]),
      );
      ctx.useSettings(() => readSettings(setting({ ...variables, ...args })));
      const response = new proto.ConfigureResponse();
      response.setAcceptsecrets(false);
      response.setAcceptresources(false);
      response.setSupportspreview(false);
      reply(null, response);
    },

    check: handle(async (request: proto.CheckRequest) => {
      const lifecycle = lifecycleOf(request.getType(), request.getUrn());
      const news = { ...values(request.getNews()), [NAME_KEY]: nameOf(request.getName(), request.getUrn()) };
      const result = lifecycle.check ? await lifecycle.check(ctx, values(request.getOlds()), news) : { inputs: news, failures: [] };
      const response = new proto.CheckResponse();
      response.setInputs(toStruct(result.inputs));
      response.setFailuresList(result.failures.map((f: CheckFailure) => checkFailure(f.reason, f.property)));
      return response;
    }),

    diff: handle(async (request: proto.DiffRequest) => {
      const lifecycle = lifecycleOf(request.getType(), request.getUrn());
      const name = nameOf(request.getName(), request.getUrn());
      const news = values(request.getNews());
      const response = new proto.DiffResponse();
      if (!lifecycle.diff) {
        response.setChanges(proto.DiffResponse.DiffChanges.DIFF_UNKNOWN);
        return response;
      }
      const result = await lifecycle.diff(ctx, request.getId(), named(values(request.getOlds()), name), named(news, name));
      response.setChanges(result.changes ? proto.DiffResponse.DiffChanges.DIFF_SOME : proto.DiffResponse.DiffChanges.DIFF_NONE);
      response.setReplacesList(result.replaces);
      response.setDeletebeforereplace(result.deleteBeforeReplace ?? false);
      // Exactly the fields the lifecycle will change, and which of them replaces: the CLI shows them
      // as native providers' are (`[diff: ~title]`), secret values included (`title: [secret] => [secret]`).
      if (result.changed.length > 0) {
        const oldInputs = values(request.getOldInputs() ?? request.getOlds());
        response.setDiffsList(result.changed);
        response.setHasdetaileddiff(true);
        for (const key of result.changed)
          response.getDetaileddiffMap().set(key, propertyDiff(oldInputs[key], news[key], result.replaces.includes(key)));
      }
      return response;
    }),

    create: handleRecordOperation(async (request: proto.CreateRequest) => {
      const lifecycle = lifecycleOf(request.getType(), request.getUrn());
      const inputs = named(values(request.getProperties()), nameOf(request.getName(), request.getUrn()));
      const { id, outs } = await lifecycle.create(ctx, inputs);
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
      const result =
        Object.keys(props).length === 0
          ? await importRecord(lifecycle, request.getId(), { ...values(request.getInputs()), ...props, [NAME_KEY]: name })
          : lifecycle.read
            ? await lifecycle.read(ctx, request.getId(), named(props, name))
            : { id: request.getId(), props };
      const response = new proto.ReadResponse();
      response.setId(result.id ?? "");
      if (result.props) response.setProperties(toStruct(result.props));
      if (result.inputs) response.setInputs(toStruct(result.inputs));
      return response;
    }),

    update: handleRecordOperation(async (request: proto.UpdateRequest) => {
      const lifecycle = lifecycleOf(request.getType(), request.getUrn());
      const name = nameOf(request.getName(), request.getUrn());
      const olds = named(values(request.getOlds()), name);
      const { outs } = lifecycle.update
        ? await lifecycle.update(ctx, request.getId(), olds, named(values(request.getNews()), name))
        : { outs: olds };
      const response = new proto.UpdateResponse();
      response.setProperties(toStruct(outs));
      return response;
    }),

    delete: handleRecordOperation(async (request: proto.DeleteRequest) => {
      const lifecycle = lifecycleOf(request.getType(), request.getUrn());
      await lifecycle.remove?.(ctx, request.getId(), named(values(request.getProperties()), nameOf(request.getName(), request.getUrn())));
      return new Empty();
    }),

    invoke: handle(async (request: proto.InvokeRequest) => {
      const response = new proto.InvokeResponse();
      response.setReturn(toStruct(await invoke(request.getTok(), values(request.getArgs()))));
      return response;
    }),

    /** Requests in flight finish (a create's answer must not be lost); no new request starts. */
    cancel: (_call: Call<Empty>, reply: Reply<Empty>) => {
      ctx.cancel();
      reply(null, new Empty());
    },
  };

  async function importRecord(lifecycle: Lifecycle, id: string, hint: Values) {
    if (!lifecycle.importRecord) throw new Error("this resource type cannot be imported");
    return lifecycle.importRecord(ctx, id, hint);
  }

  /** A function of the schema, by token: its arguments checked with its declaration, its lookup run on the process's client. */
  async function invoke(token: string, args: Values): Promise<object> {
    const name = (Object.keys(LOOKUPS) as (keyof typeof LOOKUPS)[]).find((key) => typeToken(key) === token);
    if (name === undefined)
      throw new Error(`${PACKAGE} has no function ${token} (it has ${Object.keys(LOOKUPS).map(typeToken).join(", ")})`);
    // The plugin is handed secrets as plain values, so it cannot know which arguments were secret: never quote them.
    return LOOKUPS[name].invoke(ctx.client(), args, true);
  }
}

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
      (error: unknown) =>
        reply(error instanceof PartialFailure ? partialFailure(error) : failure((error as Error).message ?? String(error))),
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
  const kind =
    absent(before) && !absent(after)
      ? replaces
        ? Kind.ADD_REPLACE
        : Kind.ADD
      : !absent(before) && absent(after)
        ? replaces
          ? Kind.DELETE_REPLACE
          : Kind.DELETE
        : replaces
          ? Kind.UPDATE_REPLACE
          : Kind.UPDATE;
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

function lifecycleOf(type: string, urn: string): Lifecycle {
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
    if (typeof value === "object" && value !== null && (value as Values)[SECRET_SIG_KEY] === SECRET_SIG) value = (value as Values).value;
    return value === undefined || value === null ? undefined : String(value);
  };
}

export { ResourceProviderService };
