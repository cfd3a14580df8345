/**
 * The plugin's protobuf side: values to and from `Struct`, a request's resource type and logical
 * name, and the replies the engine reads — check failures, detailed diffs, errors, partial
 * failures. `server.ts` holds the handlers and knows none of this encoding.
 */
import * as grpc from "@grpc/grpc-js";
import { Any } from "google-protobuf/google/protobuf/any_pb";
import { Struct, type JavaScriptValue } from "google-protobuf/google/protobuf/struct_pb";
import * as proto from "@pulumi/pulumi/proto/provider_pb";
import { Status } from "@pulumi/pulumi/proto/status_pb";
import type { PartialFailure } from "../resources/errors";
import type { CheckFailure, DiffResult, Values } from "../resources/lifecycle";
import { SECRET_SIG, SECRET_SIG_KEY } from "../resources/secret-output";

/** How the wire protocol marks a secret value: `../resources/secret-output.ts`, where the lifecycles mark their own. */
export { SECRET_SIG, SECRET_SIG_KEY };

export function values(struct: Struct | undefined): Values {
  return (struct?.toJavaScript() ?? {}) as Values;
}

/**
 * A request's values with the engine's secret marks taken off — the plugin takes secrets
 * (`acceptSecrets`), so the engine marks them on the wire — and the top-level keys whose value was,
 * or held, a secret. Lifecycles see plain values through both faces; the keys say which were secret.
 */
export function opened(struct: Struct | undefined): { values: Values; secrets: string[] } {
  const raw = values(struct);
  const secrets: string[] = [];
  const out: Values = {};
  for (const [key, value] of Object.entries(raw)) {
    const found = { secret: false };
    out[key] = unwrap(value, found);
    if (found.secret) secrets.push(key);
  }
  return { values: out, secrets };
}

function unwrap(value: unknown, found: { secret: boolean }): unknown {
  if (Array.isArray(value)) return value.map((item) => unwrap(item, found));
  if (typeof value !== "object" || value === null) return value;
  const object = value as Values;
  if (object[SECRET_SIG_KEY] === SECRET_SIG) {
    found.secret = true;
    return unwrap(object.value, found);
  }
  return Object.fromEntries(Object.entries(object).map(([key, item]) => [key, unwrap(item, found)]));
}

/**
 * `values` with each key of `secrets` that holds a value marked secret, as the engine marks the
 * results of a provider that takes no secrets (pulumi/pulumi `provider_plugin.go`, `annotateSecrets`:
 * an output is secret when the input of the same name was). A value marked already (a hidden
 * output the lifecycle keeps secret: `resources/secret-output.ts`) stays as it is.
 */
export function sealed(values: object, secrets: readonly string[]): Values {
  const out: Values = { ...(values as Values) };
  for (const key of secrets) {
    const value = out[key];
    if (value === undefined || value === null) continue;
    if (typeof value === "object" && (value as Values)[SECRET_SIG_KEY] === SECRET_SIG) continue;
    out[key] = { [SECRET_SIG_KEY]: SECRET_SIG, value };
  }
  return out;
}

export function toStruct(value: object): Struct {
  // Struct has no `undefined`: drop those keys, as JSON would.
  return Struct.fromJavaScript(JSON.parse(JSON.stringify(value)) as Record<string, JavaScriptValue>);
}

/** The resource type's token: from the request, or the type part of its URN (`…::serviceapi:index:Product::name`). */
export function typeOf(type: string, urn: string): string {
  return type || (urn.split("::")[2] ?? "").split("$").pop()!;
}

/** The resource's logical name: from the request, or the last part of its URN. */
export function nameOf(name: string, urn: string): string {
  return name || urn.split("::").pop()!;
}

/**
 * Settings are strings in stack config; an explicit provider's arguments may arrive typed, and a
 * secret one (the token) wrapped as Pulumi marks secrets on the wire: `configure` is sent before
 * the engine knows we take plain values.
 */
export function setting(source: Values): (key: string) => string | undefined {
  return (key) => {
    let value = source[key];
    if (typeof value === "object" && value !== null && (value as Values)[SECRET_SIG_KEY] === SECRET_SIG) value = (value as Values).value;
    return value === undefined || value === null ? undefined : String(value);
  };
}

export function checkFailures(failures: CheckFailure[]): proto.CheckFailure[] {
  return failures.map((f) => checkFailure(f.reason, f.property));
}

export function checkFailure(reason: string, property = ""): proto.CheckFailure {
  const failed = new proto.CheckFailure();
  failed.setProperty(property);
  failed.setReason(reason);
  return failed;
}

/**
 * A lifecycle's diff on the wire. Exactly the fields the lifecycle will change, and which of them
 * replaces, go into the detailed diff: the CLI shows them as native providers' are (`[diff: ~title]`),
 * secret values included (`title: [secret] => [secret]`). Kinds compare the old inputs with the new.
 */
export function diffResponse(result: DiffResult, oldInputs: Values, news: Values): proto.DiffResponse {
  const response = new proto.DiffResponse();
  response.setChanges(result.changes ? proto.DiffResponse.DiffChanges.DIFF_SOME : proto.DiffResponse.DiffChanges.DIFF_NONE);
  response.setReplacesList(result.replaces);
  response.setDeletebeforereplace(result.deleteBeforeReplace ?? false);
  if (result.changed.length > 0) {
    response.setDiffsList(result.changed);
    response.setHasdetaileddiff(true);
    for (const key of result.changed)
      response.getDetaileddiffMap().set(key, propertyDiff(oldInputs[key], news[key], result.replaces.includes(key)));
  }
  return response;
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

/** A failure the engine shows as the operation's error: its message, no stack trace. */
export function failure(message: string): grpc.ServiceError {
  return Object.assign(new Error(message), { code: grpc.status.UNKNOWN, details: message, metadata: new grpc.Metadata() });
}

/** The record exists: `ErrorResourceInitFailed`, so the engine keeps its id and outputs and shows the reason. */
export function partialFailure(error: PartialFailure): grpc.ServiceError {
  const detail = new proto.ErrorResourceInitFailed();
  detail.setId(error.id);
  detail.setProperties(toStruct(error.outputs));
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
