/**
 * What the providers tell the user in the CLI output. Records are named by logical name and id,
 * never by a field value: inside a provider a secret input is plain text.
 */
import * as log from "@pulumi/pulumi/log";
import { NAME_KEY, type Named } from "./stored-state";

/** `Product "pro" (id 0b3f…)`, or `Product 0b3f…` for state written before the name was carried. */
export function label(type: string, id: string, props: Named | undefined): string {
  const name = props?.[NAME_KEY];
  return typeof name === "string" ? `${type} ${JSON.stringify(name)} (id ${id})` : `${type} ${id}`;
}

/**
 * One line the moment a create returns: `serviceapi: created Product "pro-plan" <id>`. If the
 * `pulumi up` is then killed before it writes its state (a lost CI runner, OOM), the run's log —
 * which outlives the runner — names every record it made, so each can be taken over with
 * `adoptId` instead of being created twice (docs/recovery.md).
 */
export function logCreated(type: string, id: string, props: Named): void {
  const name = props[NAME_KEY];
  info(`created ${type} ${name === undefined ? "(unnamed)" : JSON.stringify(name)} ${id}`);
}

export function info(message: string): void {
  sink("info", `serviceapi: ${message}`);
}

export function warn(message: string): void {
  sink("warning", `serviceapi: ${message}`);
}

export type MessageSink = (severity: "info" | "warning", message: string) => void;

/**
 * Where messages go. A dynamic provider has no engine connection: Pulumi's log functions print, and
 * the CLI shows what its plugin prints. The plugin (`native/`) sends them to the engine instead.
 */
let sink: MessageSink = (severity, message) => void (severity === "info" ? log.info(message) : log.warn(message));

export function setMessageSink(next: MessageSink): void {
  sink = next;
}
