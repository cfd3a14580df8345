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

/**
 * What `diff` found, by field name (never values), once per record per command: the CLI cannot show
 * which field of a dynamic resource changed when its values are secrets (both sides print
 * `[secret]`), so this line does. The engine calls `diff` in two phases: refreshing (the live record
 * against the inputs of the last `up`: drift) and planning (against the program, after `check`):
 * `Product "pro" (id …): changed on the service since the last \`pulumi up\`: title.` /
 * `Product "pro" (id …): \`pulumi up\` will send PATCH {title}.`
 */
export function announceDiff(who: string, fields: readonly string[], planning: boolean): void {
  if (fields.length === 0) return;
  const text = planning ? `\`pulumi up\` will send PATCH {${fields.join(", ")}}.` : `changed on the service since the last \`pulumi up\`: ${fields.join(", ")}.`;
  const said = `${who} ${text}`;
  if (announced.has(said)) return;
  announced.add(said);
  info(`${who}: ${text}`);
}

const announced = new Set<string>();

/** Resources `check` has seen in this command (`Type name`): a later `diff` of theirs is planning, not refreshing. */
const checked = new Set<string>();

export function noteChecked(type: string, props: Named): void {
  checked.add(`${type} ${props[NAME_KEY]}`);
}

export function wasChecked(type: string, props: Named): boolean {
  return checked.has(`${type} ${props[NAME_KEY]}`);
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

/**
 * The URN of the resource the current request is about, where the face knows it (the plugin's
 * requests carry it; the dynamic-provider server passes none), so advice can quote it.
 */
let urnSource: () => string | undefined = () => undefined;

export function setUrnSource(source: () => string | undefined): void {
  urnSource = source;
}

/** `pulumi up --replace '<urn>'`, or a placeholder and where to find the URN. */
export function replaceCommand(): string {
  const urn = urnSource();
  return urn ? `\`pulumi up --replace '${urn}'\`` : "`pulumi up --replace <its URN>` (`pulumi stack --show-urns` lists it)";
}
