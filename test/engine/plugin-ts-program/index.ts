/**
 * A catalog declared with the plugin's typed Node.js SDK (`@pulumi-serviceapi/serviceapi`,
 * generated into sdk/nodejs) — what test/engine/plugin-typescript.test.ts runs under the real CLI.
 * Config, namespace `catalog`:
 *  - `projectName`: the project, found with the plugin's getProject;
 *  - `products`: logical name → the product's arguments (all but projectId);
 *  - `globexUrl`, `globexToken` (secret), `globexProjectId`: when set, a second account — an
 *    explicit provider with its own token and base URL — and one product through it.
 */
import * as pulumi from "@pulumi/pulumi";
import * as serviceapi from "@pulumi-serviceapi/serviceapi";

const config = new pulumi.Config("catalog");
const project = serviceapi.getProjectOutput({ name: config.require("projectName") });
const products = config.requireObject<Record<string, Omit<serviceapi.ProductArgs, "projectId">>>("products");

export const productIds: Record<string, pulumi.Output<string>> = {};
for (const [name, args] of Object.entries(products)) {
  productIds[name] = new serviceapi.Product(name, { ...args, projectId: project.id }).id;
}

const globexUrl = config.get("globexUrl");
if (globexUrl !== undefined) {
  const globex = new serviceapi.Provider("globex", { baseUrl: globexUrl, token: config.requireSecret("globexToken") });
  const plan = new serviceapi.Product(
    "globex-plan",
    { projectId: config.require("globexProjectId"), title: "Globex plan" },
    { provider: globex },
  );
  productIds["globex-plan"] = plan.id;
}
