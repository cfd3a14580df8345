/**
 * The plugin face: a Pulumi resource-provider gRPC server (on the SDK's own protocol definitions)
 * that serves the same lifecycles as the dynamic provider, through the same `withDefaults`, for
 * Pulumi YAML and every other language, `pulumi import` and `--import-pending-creates`. This file
 * holds the handlers; `wire.ts` the protobuf encoding.
 *
 * It is our own server rather than `@pulumi/pulumi/provider`'s, whose `configure` drops the
 * provider's arguments (so an explicit provider's token never arrives) and whose `read` fails on
 * the property-less requests an import sends. `configure` answers `acceptSecrets: true`, so the
 * engine marks on the wire which values are secret: each handler takes the marks off (`opened`),
 * hands the lifecycle plain values — as the dynamic face gets them — with the names of the secret
 * inputs (an adoption's preview shows no secret value), and marks its results secret by their
 * inputs (`sealed`), as the engine itself does for a provider that takes no secrets. Every request
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
import {
  checkFailure,
  checkFailures,
  diffResponse,
  failure,
  nameOf,
  opened,
  partialFailure,
  sealed,
  setting,
  toStruct,
  typeOf,
  values,
} from "./wire";

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
      const news = opened(call.request.getNews()).values;
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
      const args = opened(call.request.getArgs()).values;
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
      // The engine then marks secrets on the wire: `opened` takes the marks off each request, `sealed` puts them back on the results.
      response.setAcceptsecrets(true);
      response.setAcceptresources(false);
      response.setSupportspreview(false);
      reply(null, response);
    },

    check: handle(async (request: proto.CheckRequest) => {
      const { handlers, name } = resourceOf(request);
      const news = opened(request.getNews());
      const result = await handlers.check(ctx, { name, olds: opened(request.getOlds()).values, news: news.values, secrets: news.secrets });
      const response = new proto.CheckResponse();
      response.setInputs(toStruct(sealed(result.inputs, news.secrets)));
      response.setFailuresList(checkFailures(result.failures));
      return response;
    }),

    diff: handle(async (request: proto.DiffRequest) => {
      const { handlers, name } = resourceOf(request);
      const news = opened(request.getNews());
      const olds = opened(request.getOlds()).values;
      const result = await handlers.diff(ctx, { name, id: request.getId(), olds, news: news.values, secrets: news.secrets });
      return diffResponse(result, request.getOldInputs() ? opened(request.getOldInputs()).values : olds, news.values);
    }),

    create: handle(async (request: proto.CreateRequest) => {
      const { handlers, name } = resourceOf(request);
      const inputs = opened(request.getProperties());
      const { id, outs } = await secretsKept(inputs.secrets, () => handlers.create(ctx, { name, inputs: inputs.values }));
      const response = new proto.CreateResponse();
      response.setId(id);
      response.setProperties(toStruct(sealed(outs, inputs.secrets)));
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
      const state = opened(request.getProperties());
      const inputs = opened(request.getInputs());
      const result =
        Object.keys(state.values).length === 0
          ? await handlers.importRecord(ctx, { name, id, hint: inputs.values })
          : await handlers.read(ctx, { name, id, state: state.values });
      const response = new proto.ReadResponse();
      response.setId(result.id ?? "");
      if (result.props) response.setProperties(toStruct(sealed(result.props, state.secrets)));
      if (result.inputs) response.setInputs(toStruct(sealed(result.inputs, inputs.secrets)));
      return response;
    }),

    update: handle(async (request: proto.UpdateRequest) => {
      const { handlers, name } = resourceOf(request);
      const news = opened(request.getNews());
      const { outs } = await secretsKept(news.secrets, () =>
        handlers.update(ctx, { name, id: request.getId(), olds: opened(request.getOlds()).values, news: news.values }),
      );
      const response = new proto.UpdateResponse();
      response.setProperties(toStruct(sealed(outs, news.secrets)));
      return response;
    }),

    delete: handle(async (request: proto.DeleteRequest) => {
      const { handlers, name } = resourceOf(request);
      await handlers.remove(ctx, { name, id: request.getId(), state: opened(request.getProperties()).values });
      return new Empty();
    }),

    /** A result found with a secret argument is secret, all of it: what the engine does for a provider that takes no secrets. */
    invoke: handle(async (request: proto.InvokeRequest) => {
      const args = opened(request.getArgs());
      const result = await invoke(request.getTok(), args.values);
      const response = new proto.InvokeResponse();
      response.setReturn(toStruct(args.secrets.length > 0 ? sealed(result, Object.keys(result)) : result));
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
    // The arguments' secret marks are off (`opened`), and a lookup's message may quote an argument: never quote them.
    return LOOKUPS[name].invoke(ctx.client(), args, true);
  }
}

/** A partial failure's outputs marked secret as the result's would be: the record exists, and its outputs are stored. */
async function secretsKept<R>(secrets: readonly string[], operation: () => Promise<R>): Promise<R> {
  try {
    return await operation();
  } catch (error) {
    if (!(error instanceof PartialFailure)) throw error;
    throw new PartialFailure(error.id, sealed(error.outputs, secrets), error.message);
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
