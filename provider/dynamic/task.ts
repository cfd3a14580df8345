/**
 * The dynamic provider behind `Task`: this module's exports object *is* the provider. The resource
 * class passes it to the engine, which serializes it as
 * `require("pulumi-serviceapi/dynamic/task")`, so state holds a one-line stub and every later
 * preview, refresh and destroy runs the installed package's code.
 */
import "./node-version"; // first: an older Node gets one clear line, not an error from inside a dependency
import { task } from "../resources/task";
import { dynamicProvider } from "./adapter";

const provider = dynamicProvider(task);
export const { configure, check, diff, create, read, update } = provider;
const remove = provider.delete;
export { remove as delete };
