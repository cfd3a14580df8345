/**
 * Quick start: a small catalog declared as code. Run it against the bundled simulator with
 * `npm run demo`, or against a real service with `serviceapi:token` and `serviceapi:baseUrl` set.
 */
import * as pulumi from "@pulumi/pulumi";
import { Product, Site, Task, getProjectOutput, getSiteOutput } from "pulumi-serviceapi";

const config = new pulumi.Config();
// Projects are referred to by name; the lookup fails clearly if none (or several) match.
const project = getProjectOutput({ name: config.get("projectName") ?? "Acme Web" });

const pro = new Product("pro-plan", {
  projectId: project.id,
  title: "Pro plan",
  description: "Everything in Starter, plus priority support.",
  slug: "pro",
  status: "active",
  externalCheckoutUrl: "https://shop.example.com/checkout/pro",
});

const legacy = new Product("legacy-plan", {
  projectId: project.id,
  title: "Legacy basic plan",
  slug: "legacy-basic",
  status: "archived",
});

// A draft without a slug: it gets one when it is ready to launch.
const enterprise = new Product("enterprise-plan", {
  projectId: project.id,
  title: "Enterprise plan",
  description: "Custom contracts. Talk to sales.",
  status: "draft",
});

// Sites cannot be created through the API: this renames the project's default site, and
// `pulumi destroy` gives it its original name back.
const defaultSite = getSiteOutput({ projectId: project.id, isDefault: true });
const home = new Site("home", { projectId: project.id, siteId: defaultSite.id, name: "Acme — Home" });

// Tasks cannot be changed or deleted through the API: any change here creates a new task and
// the old one keeps running (preview and up say which).
const report = new Task("weekly-report", {
  projectId: project.id,
  title: "Weekly sales report",
  prompt: "Summarize last week's orders by product and flag anything unusual.",
  scheduledAt: "2026-01-05T09:00:00Z", // a Monday: the series starts then, and runs next on the first Monday ahead
  rrule: "FREQ=WEEKLY;BYDAY=MO",
  emoji: "📈",
});

export const projectId = project.id;
export const productIds = { pro: pro.id, legacy: legacy.id, enterprise: enterprise.id };
export const productStatuses = { pro: pro.status, legacy: legacy.status, enterprise: enterprise.status };
export const siteSubdomain = home.subdomain;
export const siteOriginalName = home.originalName;
export const reportNextRunAt = report.nextRunAt;
