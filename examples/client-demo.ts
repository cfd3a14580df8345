/**
 * `npm run demo:client`: starts the simulator on a free loopback port and walks the typed client through
 * every operation, a rate-limit retry and a validation error. Set SERVICEAPI_BASE_URL and
 * SERVICEAPI_TOKEN to run the same walk against a simulator you started yourself.
 */
import { RequestValidationError, ServiceApiClient } from "../provider";
import { startSimulator, type Simulator } from "pulumi-serviceapi-simulator";

async function main(): Promise<void> {
  let sim: Simulator | undefined;
  let baseUrl = process.env.SERVICEAPI_BASE_URL;
  let token = process.env.SERVICEAPI_TOKEN;
  if (!baseUrl || !token) {
    sim = await startSimulator({ port: 0 });
    baseUrl = sim.url;
    token = sim.token;
    console.log(`started serviceapi-simulator at ${sim.url}`);
  }
  let requests = 0;
  const client = new ServiceApiClient({
    baseUrl,
    token,
    logger: (e) => {
      if (e.type === "request") requests += 1;
      if (e.type === "retry") console.log(`  … ${e.operation}: ${e.reason}, retrying in ${e.delayMs} ms`);
    },
  });

  try {
    console.log("\nprojects.list");
    const projects = await client.listProjects().toArray();
    for (const p of projects) console.log(`  ${p.id}  ${p.name ?? "(unnamed)"}`);

    const project = projects[0]!;
    let before = requests;
    let siteCount = 0;
    let firstSite: string | undefined;
    for await (const site of client.listSites({ projectId: project.id })) {
      siteCount += 1;
      firstSite ??= site.id;
    }
    console.log(`\nsites.list: ${siteCount} sites of "${project.name}" in ${requests - before} requests`);

    const renamed = await client.updateSite(firstSite!, { name: `${project.name} (primary)` });
    console.log(`sites.update: ${renamed.id} is now "${renamed.name}"`);

    const product = await client.createProduct({ title: "Pro plan", projectId: project.id, slug: "pro" });
    console.log(`products.create: ${product.id} "${product.title}" status=${product.status}`);
    const live = await client.updateProduct(product.id, { status: "active", externalCheckoutUrl: "https://shop.example.com/pro" });
    console.log(`products.update: status=${live.status} checkout=${live.externalCheckoutUrl}`);

    const task = await client.createTask({
      title: "Weekly digest",
      prompt: "Summarise this week's changes",
      emoji: "📰",
      scheduledAt: "2026-01-05T09:00:00Z",
      rrule: "FREQ=WEEKLY;BYDAY=MO",
      projectId: project.id,
    });
    console.log(`tasks.create: ${task.id} next run ${task.nextRunAt} (${task.rrule})`);

    if (sim) {
      sim.addFault({ operation: "projects.list", kind: "error", status: 429, retryAfter: "1" });
      before = requests;
      const started = Date.now();
      await client.listProjects().toArray();
      console.log(`\n429 with Retry-After: 1 → succeeded after ${Date.now() - started} ms and ${requests - before} requests`);
    }

    try {
      await client.createProduct({ title: "x".repeat(1025), projectId: project.id });
    } catch (err) {
      if (!(err instanceof RequestValidationError)) throw err;
      console.log(`\nvalidation before sending:\n  ${err.message}`);
    }
    console.log(`\ndone: ${requests} requests in all`);
  } finally {
    await client.close();
    await sim?.close();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
