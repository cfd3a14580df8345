/**
 * Which reader a backend URL gets: `file://` and `postgres://` (`postgresql://`) are read directly
 * (diy.ts over file.ts or postgres.ts), anything else — S3, GCS, Azure Blob, Pulumi Cloud — and a
 * DIY backend in a layout this reader does not know, through the CLI (cli.ts).
 */
import { CliBackend, PulumiCli, loggedInUrl } from "./cli";
import { DiyBackend, describe, type Bucket } from "./diy";
import { StateBackendError, maskText, maskUrl, passwordsOf } from "./errors";
import { fileRoot, openFileBucket } from "./file";
import { META_KEY, UnknownLayout, layoutOf } from "./layout";
import type { OpenOptions, StateBackend } from "./model";
import { openPostgresBucket, postgresTarget, type PostgresTarget } from "./postgres";

/**
 * A reader of the backend `options.url` names (else PULUMI_BACKEND_URL, else the one `pulumi whoami`
 * names). A `file://` or `postgres://` backend is checked at once (the folder exists, the database
 * answers); a StateBackendError says why not. Close it when done (a PostgreSQL pool).
 */
export async function openStateBackend(options: OpenOptions = {}): Promise<StateBackend> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  // What no message may show: the URL's password (as written and decoded) and PGPASSWORD.
  const secrets = [...(options.url === undefined ? [] : passwordsOf(options.url)), ...(env.PGPASSWORD ? [env.PGPASSWORD] : [])];
  const mask = (text: string) => maskText(text, secrets);
  let cli = new PulumiCli(options.pulumi ?? "pulumi", env, options.cwd, mask);

  // PULUMI_BACKEND_URL is what the CLI itself would take first (before a project's backend and the login): no CLI start for it.
  let url = options.url ?? (env.PULUMI_BACKEND_URL || undefined);
  if (url === undefined) {
    try {
      url = await loggedInUrl(cli);
    } catch (error) {
      throw new StateBackendError("`pulumi whoami` names", mask(describe(error)), { cause: error });
    }
  }
  secrets.push(...passwordsOf(url));
  cli = cli.forBackend(url);
  const masked = maskUrl(url);
  const fail = (problem: string, cause: unknown): never => {
    throw new StateBackendError(masked, mask(problem), { cause });
  };
  const viaCli = () => new CliBackend(masked, cli, fail);
  if (options.via === "cli") return viaCli();

  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
  let bucket: Bucket;
  let via: "file" | "postgres";
  let target: PostgresTarget | undefined;
  let readOnly: string | undefined;
  try {
    if (scheme === "file") {
      bucket = await openFileBucket(fileRoot(url, cwd));
      via = "file";
    } else if (scheme === "postgres" || scheme === "postgresql") {
      target = postgresTarget(url, env);
      const opened = await openPostgresBucket(target);
      bucket = opened.bucket;
      if (opened.materializedView) readOnly = `a read-only role's view of the state (its \`${target.table}\` is a materialized view)`;
      via = "postgres";
    } else {
      return viaCli();
    }
  } catch (error) {
    return fail(describe(error), error);
  }

  // A meta.yaml of a version this reader does not know: the CLI may (a newer one will).
  try {
    const [meta] = await bucket.read([META_KEY]);
    if (meta !== undefined) layoutOf(meta.data, []);
  } catch (error) {
    await bucket.close();
    if (error instanceof UnknownLayout) return viaCli();
    return fail(describe(error), error);
  }
  return new DiyBackend(masked, via, bucket, mask, target, readOnly);
}
