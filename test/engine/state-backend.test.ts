/**
 * The state-backend reader (`provider/backend/`) on backends the real CLI writes: a file backend
 * and a real PostgreSQL (scripts/postgres.sh), each holding two projects' stacks of the engine
 * program (Products on the simulator) — one `up` finished, one killed with SIGKILL mid-create (a
 * lost runner). Read directly, the backend lists exactly those stacks, gives each resource's id as
 * `pulumi stack export` does, the creates the killed run left pending, and the lock its CLI held
 * (pid, user, host), gone after `pulumi cancel`; read through the CLI it gives the same stacks,
 * resources and pending operations, and no locks. Then N more stacks (`stack init` + `stack import`
 * by the CLI) are read each way and the times printed, for docs/scale.md.
 */
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { availableParallelism, hostname, userInfo } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { StateBackendError, openStateBackend, type StackRef, type StackState, type StateBackend } from "../../provider/backend";
import { DEFAULT_IDS } from "../../simulator/seed";
import { rejectionOf, until } from "../../scripts/engine/async";
import { ENGINE_TIMEOUT_MS, EngineStack, REPO, WORK, catalog, pulumiCli } from "../../scripts/engine/driver";
import { killTree } from "../../scripts/engine/processes";
import { createdInOutput, engineSuite, step } from "./suite";
import { postgresForSuite } from "./postgres";

const run = promisify(execFile);
const project = DEFAULT_IDS.acmeDocs;
/** Stacks made for the timing, beyond the scenario's two and the empty one. */
const TIMED_STACKS = 10;
const ref = (projectName: string, stack: string): StackRef => ({ organization: "organization", project: projectName, stack });

/** A copy of the engine-test program under another project name: a second project in the same backend. */
function programNamed(name: string): string {
  const dir = mkdtempSync(join(WORK, "program-"));
  const source = join(REPO, "scripts", "engine", "program");
  cpSync(source, dir, { recursive: true, filter: (path) => !path.slice(source.length).includes("node_modules") });
  const yaml = join(dir, "Pulumi.yaml");
  writeFileSync(yaml, readFileSync(yaml, "utf8").replace(/^name: engine$/m, `name: ${name}`));
  return dir;
}

/** A resource as `pulumi stack export` prints it: the fields the reader keeps. */
interface Exported {
  urn: string;
  type: string;
  id?: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
}

/** What `pulumi stack export` (secrets encrypted, as a user runs it) printed of a stack's resources and pending operations. */
function exported(text: string): StackState {
  const { resources, pending_operations } = (JSON.parse(text) as { deployment: unknown }).deployment as {
    resources?: Exported[];
    pending_operations?: { type: string; resource: Exported }[];
  };
  const shape = (r: Exported) => ({
    urn: r.urn,
    type: r.type,
    ...(r.id ? { id: r.id } : {}),
    inputs: r.inputs ?? {},
    outputs: r.outputs ?? {},
  });
  return {
    resources: (resources ?? []).map(shape),
    pending: (pending_operations ?? []).map((op) => ({ type: op.type, resource: shape(op.resource) })),
  };
}

describe("reading a state backend: file and PostgreSQL, directly and through the CLI", { timeout: ENGINE_TIMEOUT_MS * 2 }, () => {
  const postgres = postgresForSuite();
  const suite = engineSuite();

  for (const kind of ["file", "postgres"] as const) {
    it(`${kind}: the stacks, their ids, a killed up's pending creates and lock (gone after pulumi cancel); the CLI agrees`, async () => {
      const sim = suite.sim();
      // The service is the file's: each backend's products have titles of their own.
      const doneTitles = `${kind}done`;
      const killTitles = `${kind}kill`;
      const { bin } = await pulumiCli();
      const pulumi = join(bin, "pulumi");
      mkdirSync(WORK, { recursive: true });
      const scratch = mkdtempSync(join(WORK, "backend-"));
      // The CLI runs get the PostgreSQL URL without its password, which PGPASSWORD carries (as docs/gitops.md advises).
      const cliUrl = kind === "file" ? `file://${scratch}` : postgres.backendWithoutPassword("state_reader");
      const readerUrl = kind === "file" ? cliUrl : postgres.backend("state_reader");
      const backendEnv = { PULUMI_BACKEND_URL: cliUrl, ...(kind === "postgres" && { PGPASSWORD: postgres.password() }) };
      const engines: EngineStack[] = [];
      const backends: StateBackend[] = [];
      const secondProgram = programNamed("engine-b");
      try {
        const finished = await EngineStack.create(sim, { env: backendEnv });
        engines.push(finished);
        const killed = await EngineStack.create(sim, { program: secondProgram, env: backendEnv });
        engines.push(killed);
        const env = { ...process.env, ...killed.env };

        const { output, pid } = await step("an up that finishes, and an up killed with SIGKILL mid-create", async () => {
          await finished.setSpec(catalog(project, 3, doneTitles));
          await finished.up();
          // The program reads its spec from its own project's namespace: `engine-b:spec` here.
          await killed.stack.setConfig("engine-b:spec", { value: JSON.stringify(catalog(project, 10, killTitles)) });
          // 4 creates go through; the rest hang, unanswered, until the whole job is killed.
          sim.addFault({ operation: "products.create", kind: "delay", delayMs: 0, times: 4 });
          sim.addFault({ operation: "products.create", kind: "hang", times: 1000 });
          const up = killed.spawnCli(["up", "--yes", "--non-interactive"]);
          let exited = false;
          void up.exited.then(() => (exited = true));
          await until("4 created lines", () => {
            if (exited) throw new Error(`pulumi up ended before it was killed:\n${up.output()}`);
            return createdInOutput(up.output()).size === 4;
          });
          await until("a create to hang", () => sim.requests("products.create").some((r) => r.status === null));
          killTree(up.child.pid!);
          await up.exited;
          sim.clearFaults();
          return { output: up.output(), pid: up.child.pid! };
        });

        const direct = await openStateBackend({ url: readerUrl, env });
        backends.push(direct);
        const cli = await openStateBackend({ url: cliUrl, env, via: "cli", pulumi, cwd: scratch });
        backends.push(cli);
        const done = ref("engine", "test");
        const stopped = ref("engine-b", "test");

        await step("read directly: the URL's password masked, locks seen; exactly the two stacks", async () => {
          expect({ via: direct.via, seesLocks: direct.seesLocks }).toEqual({ via: kind, seesLocks: true });
          if (kind === "file") expect(direct.url).toBe(`file://${scratch}`);
          else expect(direct.url).toMatch(/^postgres:\/\/pulumi:\*{4}@127\.0\.0\.1:\d+\/pulumi\?sslmode=disable&table=state_reader$/);
          expect(await direct.stacks()).toEqual([stopped, done]);
          expect(await direct.stacks("engine")).toEqual([done]);
        });

        await step(
          "the finished stack: every resource as `pulumi stack export` shows it, the products' ids those on the service",
          async () => {
            const state = (await direct.state(done))!;
            expect(state).toEqual(exported(await finished.exportText()));
            expect(state.pending).toEqual([]);
            const products = state.resources.filter((r) => r.type === "pulumi-nodejs:dynamic/serviceapi:Product");
            const onService = sim.products().filter((p) => p.title.startsWith(`${doneTitles} `));
            expect(products.map((r) => [r.outputs.title, r.id]).sort()).toEqual(onService.map((p) => [p.title, p.id]).sort());
            expect(products).toHaveLength(3);
          },
        );

        await step("the killed stack: what it made, its pending creates, the lock its CLI left", async () => {
          const state = (await direct.state(stopped))!;
          if (kind === "file") {
            // A SIGKILL mid-write can leave the state's `.attrs` empty, and the CLI then fails with `failed to load
            // checkpoint: EOF` until it is deleted (docs/recovery.md); the reader, which does not read it, has read the state.
            const attrs = join(scratch, ".pulumi", "stacks", "engine-b", "test.json.attrs");
            if (statSync(attrs).size === 0) rmSync(attrs);
          }
          expect(state).toEqual(exported(await killed.exportText()));
          const made = new Map([...createdInOutput(output)].map(([name, id]) => [`${killTitles} ${name.slice(killTitles.length)}`, id]));
          const recorded = state.resources.filter((r) => r.type === "pulumi-nodejs:dynamic/serviceapi:Product");
          const title = (r: { inputs: Record<string, unknown> }) => r.inputs.title as string;
          // A killed run loses its last checkpoints: what it made is recorded, or still a pending create —
          // with the id the service gave it when the create had returned, which is the id the output names.
          for (const r of recorded) expect(r.id).toBe(made.get(title(r)));
          expect(state.pending.length).toBeGreaterThan(0);
          for (const op of state.pending) {
            expect(op.type).toBe("creating");
            if (op.resource.id !== undefined) expect(op.resource.id).toBe(made.get(title(op.resource)));
          }
          const seen = new Set([...recorded, ...state.pending.map((op) => op.resource)].map(title));
          for (const name of made.keys()) expect(seen).toContain(name);
          // Every create the service never answered is a pending create without an id.
          const unanswered = sim
            .requests("products.create")
            .filter((r) => r.status !== 201 && (r.body as { title: string }).title.startsWith(`${killTitles} `))
            .map((r) => (r.body as { title: string }).title);
          expect(unanswered.length).toBeGreaterThan(0);
          for (const t of unanswered)
            expect(state.pending.filter((op) => title(op.resource) === t && op.resource.id === undefined)).toHaveLength(1);

          const locks = await direct.locks(stopped);
          expect(locks).toEqual([
            {
              key: expect.stringMatching(/^\.pulumi\/locks\/organization\/engine-b\/test\/[0-9a-f-]{36}\.json$/),
              pid,
              username: userInfo().username,
              hostname: hostname(),
              timestamp: expect.any(String),
            },
          ]);
          // The lock's time is the CLI's clock: compared with the finished up's end as the CLI recorded it,
          // never with this process's clock (which may differ: the engine tier also runs under faketime).
          const at = Date.parse(locks[0]!.timestamp);
          const [finishedUp] = await finished.stack.history(1);
          const finishedAt = finishedUp!.endTime!.getTime();
          expect(at - finishedAt).toBeGreaterThanOrEqual(-1000);
          expect(at - finishedAt).toBeLessThan(10 * 60_000);
          expect(await direct.locks(done)).toEqual([]);
        });

        await step("through the CLI: the same stacks, resources and pending operations; no locks", async () => {
          expect({ via: cli.via, seesLocks: cli.seesLocks }).toEqual({ via: "cli", seesLocks: false });
          expect(await cli.stacks()).toEqual(await direct.stacks());
          expect(await cli.stacks("engine-b")).toEqual([stopped]);
          expect(await cli.state(done)).toEqual(await direct.state(done));
          expect(await cli.state(stopped)).toEqual(await direct.state(stopped));
          expect(await cli.locks(stopped)).toEqual([]);
          expect(await cli.state(ref("engine", "nothing"))).toBeUndefined();
          expect(await direct.state(ref("engine", "nothing"))).toBeUndefined();
        });

        await step("pulumi cancel removes the lock", async () => {
          expect(await killed.spawnCli(["cancel", "--yes"]).exited).toBe(0);
          expect(await direct.locks(stopped)).toEqual([]);
        });

        await step("a stack with no deployment yet: empty lists, both ways", async () => {
          await run(pulumi, ["stack", "init", "empty", "--non-interactive"], { cwd: finished.dir, env });
          expect(await direct.state(ref("engine", "empty"))).toEqual({ resources: [], pending: [] });
          expect(await cli.state(ref("engine", "empty"))).toEqual({ resources: [], pending: [] });
        });

        if (kind === "postgres") {
          await step(
            "no sslmode in the URL: TLS is asked for, the server (ssl = off) declines, the read goes on in plain text",
            async () => {
              const negotiated = await openStateBackend({ url: readerUrl.replace("sslmode=disable&", ""), env });
              backends.push(negotiated);
              expect(await negotiated.stacks()).toEqual(await direct.stacks());
            },
          );
        }

        await step(`timing: ${TIMED_STACKS} more stacks made by the CLI, every stack read each way`, async () => {
          const deployment = join(scratch, "deployment.json");
          await run(pulumi, ["stack", "export", "--stack", "organization/engine/test", "--file", deployment, "--non-interactive"], {
            cwd: finished.dir,
            env,
          });
          const text = readFileSync(deployment, "utf8");
          const bench = mkdtempSync(join(WORK, "bench-project-"));
          writeFileSync(join(bench, "Pulumi.yaml"), "name: bench\nruntime: nodejs\n");
          for (let i = 0; i < TIMED_STACKS; i++) {
            writeFileSync(deployment, text.replaceAll("urn:pulumi:test::engine::", `urn:pulumi:s${i}::bench::`));
            await run(pulumi, ["stack", "init", `s${i}`, "--non-interactive"], { cwd: bench, env });
            await run(pulumi, ["stack", "import", "--stack", `s${i}`, "--file", deployment, "--non-interactive"], { cwd: bench, env });
          }
          rmSync(bench, { recursive: true, force: true });

          /** stacks(), then state() of each: all at once (the reader runs as many CLIs as there are CPUs), or one after another. */
          const readAll = async (backend: StateBackend, together: boolean) => {
            const t0 = performance.now();
            const stacks = await backend.stacks();
            const states: (StackState | undefined)[] = [];
            if (together) states.push(...(await Promise.all(stacks.map((s) => backend.state(s)))));
            else for (const s of stacks) states.push(await backend.state(s));
            return { ms: performance.now() - t0, stacks, states };
          };
          const fresh = await openStateBackend({ url: readerUrl, env });
          backends.push(fresh);
          const reads = {
            [`${kind}, at once`]: await readAll(fresh, true),
            [`${kind}, in turn`]: await readAll(fresh, false),
            "cli, at once": await readAll(cli, true),
            "cli, in turn": await readAll(cli, false),
          };
          const [first, ...others] = Object.values(reads);
          expect(first!.stacks).toHaveLength(TIMED_STACKS + 3);
          for (const other of others) expect(other).toMatchObject({ stacks: first!.stacks, states: first!.states });
          const resources = first!.states.reduce((n, s) => n + s!.resources.length, 0);
          console.log(
            [
              `state backend (${kind}): stacks(), then state() of each of ${first!.stacks.length} stacks (${resources} resources), on ${availableParallelism()} CPUs`,
              ...Object.entries(reads).map(
                ([how, { ms }]) =>
                  `  ${how.padEnd(18)} ${ms.toFixed(0).padStart(6)} ms  (${(ms / first!.stacks.length).toFixed(1)} ms a stack)`,
              ),
            ].join("\n"),
          );
        });
      } finally {
        await Promise.all(backends.map((b) => b.close()));
        for (const engine of engines) await engine.dispose();
        rmSync(secondProgram, { recursive: true, force: true });
        rmSync(scratch, { recursive: true, force: true });
      }
    });
  }

  it("no URL and no PULUMI_BACKEND_URL: the backend `pulumi login` chose, as `pulumi whoami` names it", async () => {
    const pulumi = join((await pulumiCli()).bin, "pulumi");
    const home = mkdtempSync(join(WORK, "home-"));
    const state = join(home, "state");
    mkdirSync(state);
    try {
      const env = { PATH: process.env.PATH, PULUMI_HOME: home, PULUMI_SKIP_UPDATE_CHECK: "true" };
      await run(pulumi, ["login", `file://${state}`, "--non-interactive"], { env });
      const backend = await openStateBackend({ env, pulumi, cwd: home });
      expect({ url: backend.url, via: backend.via }).toEqual({ url: `file://${state}`, via: "file" });
      expect(await backend.stacks()).toEqual([]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("the CLI cannot reach the backend: one line naming the command and the CLI's last word, the password it printed masked", async () => {
    const pulumi = join((await pulumiCli()).bin, "pulumi");
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const home = mkdtempSync(join(WORK, "home-"));
    try {
      const url = `postgres://pulumi:s3cret-pw@127.0.0.1:${port}/pulumi?sslmode=disable`;
      const cli = await openStateBackend({ url, via: "cli", pulumi, env: { ...process.env, PULUMI_HOME: home } });
      const error = await rejectionOf(cli.stacks(), StateBackendError);
      const masked = `postgres://pulumi:****@127.0.0.1:${port}/pulumi?sslmode=disable`;
      expect(error.message).toBe(
        `the state backend ${masked} cannot be read: ${pulumi} stack ls --all --json -Q --non-interactive failed: ` +
          `error: unable to open bucket ${masked}: failed to ping PostgreSQL: dial tcp 127.0.0.1:${port}: connect: connection refused`,
      );
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
