/**
 * The plugin face: a Pulumi resource-provider gRPC server (on the SDK's own protocol definitions)
 * that serves the same lifecycles as the dynamic provider, through the same `withDefaults`, for
 * Pulumi YAML and every other language, `pulumi import` and `--import-pending-creates`. This file
 * holds the handlers; `wire.ts` the protobuf encoding.
 *
 * It is our own server rather than `@pulumi/pulumi/provider`'s, whose `configure` drops the
 * provider's arguments (so an explicit provider's token never arrives) and whose `read` fails on
 * the property-less requests an import sends. `configure` answers `acceptSecrets: false`: the
 * engine then hands us plain values and marks outputs secret by their inputs, as it does for
 * dynamic providers, so the lifecycles see the same values through both faces. Every request
 * names its resource (its name, or its URN), so the plugin passes the logical name to each
 * operation and keeps none in the state.
 */
import type * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { PluginInfo } from "@pulumi/pulumi/proto/plugin_pb";
import { ResourceProviderService } from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as proto from "@pulumi/pulumi/proto/provider_pb";
import { version } from "../../package.json";
import { ConfigError } from "../client";
import { isUnknown } from "../resources/checks";
import type { ProviderContext } from "../resources/context";
import { PartialFailure, ProviderError, UserError, isBug } from "../resources/errors";
import type { Values } from "../resources/lifecycle";
import { LOOKUPS } from "../resources/lookups";
import { product } from "../resources/product";
import { readSettings } from "../resources/settings";
import { site } from "../resources/site";
import { task } from "../resources/task";
import { withDefaults, type Handlers } from "../resources/with-defaults";
import { forResource } from "./engine-log";
import { PACKAGE, packageSchema, typeToken } from "./schema";
import { checkFailure, checkFailures, diffResponse, failure, nameOf, partialFailure, setting, toStruct, typeOf, values } from "./wire";

const RESOURCES: Record<string, Handlers> = {
  [typeToken("Product")]: withDefaults(product),
  [typeToken("Site")]: withDefaults(site),
  [typeToken("Task")]: withDefaults(task),
};

type Call<Req> = grpc.ServerUnaryCall<Req, unknown>;
type Reply<Res> = grpc.sendUnaryData<Res>;

/** What every resource request carries: the resource's type, URN and logical name. */
interface ResourceRequest {
  getType(): string;
  getUrn(): string;
  getName(): string;
}

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
          response.setFailuresList([checkFailure(error.message)]);
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
      // An explicit provider's settings are its arguments (from the program); the default provider's are the stack config.
      const urn = call.request.getUrn() ?? "";
      const explicit = urn !== "" && !/::default(_[\w-]+)?$/.test(urn);
      ctx.useSettings(() => readSettings(setting({ ...variables, ...args })), urn === "" ? { explicit } : { urn, explicit });
      const response = new proto.ConfigureResponse();
      response.setAcceptsecrets(false);
      response.setAcceptresources(false);
      response.setSupportspreview(false);
      reply(null, response);
    },

    check: handle(async (request: proto.CheckRequest) => {
      const { handlers, name } = resourceOf(request);
      const result = await handlers.check(ctx, { name, olds: values(request.getOlds()), news: values(request.getNews()) });
      const response = new proto.CheckResponse();
      response.setInputs(toStruct(result.inputs));
      response.setFailuresList(checkFailures(result.failures));
      return response;
    }),

    diff: handle(async (request: proto.DiffRequest) => {
      const { handlers, name } = resourceOf(request);
      const news = values(request.getNews());
      const result = await handlers.diff(ctx, { name, id: request.getId(), olds: values(request.getOlds()), news });
      return diffResponse(result, values(request.getOldInputs() ?? request.getOlds()), news);
    }),

    create: handle(async (request: proto.CreateRequest) => {
      const { handlers, name } = resourceOf(request);
      const { id, outs } = await handlers.create(ctx, { name, inputs: values(request.getProperties()) });
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
    read: handle(async (request: proto.ReadRequest) => {
      const { handlers, name } = resourceOf(request);
      const id = request.getId();
      const state = values(request.getProperties());
      const result =
        Object.keys(state).length === 0
          ? await handlers.importRecord(ctx, { name, id, hint: values(request.getInputs()) })
          : await handlers.read(ctx, { name, id, state });
      const response = new proto.ReadResponse();
      response.setId(result.id ?? "");
      if (result.props) response.setProperties(toStruct(result.props));
      if (result.inputs) response.setInputs(toStruct(result.inputs));
      return response;
    }),

    update: handle(async (request: proto.UpdateRequest) => {
      const { handlers, name } = resourceOf(request);
      const { outs } = await handlers.update(ctx, {
        name,
        id: request.getId(),
        olds: values(request.getOlds()),
        news: values(request.getNews()),
      });
      const response = new proto.UpdateResponse();
      response.setProperties(toStruct(outs));
      return response;
    }),

    delete: handle(async (request: proto.DeleteRequest) => {
      const { handlers, name } = resourceOf(request);
      await handlers.remove(ctx, { name, id: request.getId(), state: values(request.getProperties()) });
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

  /** A function of the schema, by token: its arguments checked with its declaration, its lookup run on the process's client. */
  async function invoke(token: string, args: Values): Promise<object> {
    const name = (Object.keys(LOOKUPS) as (keyof typeof LOOKUPS)[]).find((key) => typeToken(key) === token);
    if (name === undefined)
      throw new UserError(`${PACKAGE} has no function ${token} (it has ${Object.keys(LOOKUPS).map(typeToken).join(", ")})`);
    // The plugin is handed secrets as plain values, so it cannot know which arguments were secret: never quote them.
    return LOOKUPS[name].invoke(ctx.client(), args, true);
  }
}

/** The request's resource: its type's handlers and its logical name. */
function resourceOf(request: ResourceRequest): { handlers: Handlers; name: string } {
  const token = typeOf(request.getType(), request.getUrn());
  const handlers = RESOURCES[token];
  if (!handlers) throw new UserError(`${PACKAGE} has no resource type ${token} (it has ${Object.keys(RESOURCES).join(", ")})`);
  return { handlers, name: nameOf(request.getName(), request.getUrn()) };
}

/**
 * Runs a handler inside its resource's message context and turns failures into what the engine
 * expects: a `PartialFailure` becomes `ErrorResourceInitFailed` (the record is kept in the stack),
 * a bug says so (`ProviderError`), anything else is an error with its message — no stack trace.
 */
function handle<Req, Res>(work: (request: Req) => Promise<Res>) {
  return (call: Call<Req>, reply: Reply<Res>) => {
    const urn = (call.request as { getUrn?: () => string }).getUrn?.() ?? "";
    forResource(urn, () => work(call.request)).then(
      (response) => reply(null, response),
      (error: unknown) => reply(error instanceof PartialFailure ? partialFailure(error) : failure(messageOf(error))),
    );
  };
}

function messageOf(error: unknown): string {
  if (isBug(error) && !(error instanceof ProviderError)) return new ProviderError(String(error)).message;
  return error instanceof Error ? error.message : String(error);
}

export { ResourceProviderService };
