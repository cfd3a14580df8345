/**
 * Projects, sites, workspaces and tokens cannot be created through the API, so the simulator
 * starts from a seed: the built-in default below, or a JSON file given with `--seed`.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { z } from "zod";
import { parseWithIssues } from "../provider/contract/issues";
import { fieldNames } from "../provider/contract/fields";
import { SITE_FIELD_SPECS, text, uuid } from "../provider/contract/schemas";

/**
 * A site's fields as a seed (or `addSite`) gives them: every field of the contract's site table, as
 * a request may send it or a response carry it — optional, but for what every seeded site has: a
 * name (within its limits), a subdomain, and whether it is the default.
 */
const siteFields = {
  ...(Object.fromEntries(
    fieldNames(SITE_FIELD_SPECS).map((field) => {
      const spec: { value?: z.ZodType; record?: z.ZodType } = SITE_FIELD_SPECS[field];
      return [field, (spec.value ?? spec.record ?? z.unknown()).optional()];
    }),
  ) as Record<string, z.ZodOptional>),
  name: SITE_FIELD_SPECS.name.value,
  subdomain: text(1, 255),
  is_default: z.boolean(),
};

/**
 * The simulator's own rule for tokens (the spec does not say how they look): a bearer token is an
 * HTTP header value, and one shorter than 8 characters is refused, as the client refuses one (it
 * could not redact it safely) — so a simulator never starts with a token every `pulumi up` would
 * then reject. Its own reading, not the client's constant: test/simulator/simulator.test.ts checks the two agree.
 */
export const MIN_TOKEN_LENGTH = 8;
export const TokenText = z.string().regex(new RegExp(`^[\\x21-\\x7e]{${MIN_TOKEN_LENGTH},}$`), {
  error: `must be at least ${MIN_TOKEN_LENGTH} printable ASCII characters without spaces`,
});

/** A site added by the seed or by `addSite` (sites cannot be created through the API). */
export const NewSite = z.strictObject({
  id: uuid.optional(),
  projectId: uuid,
  ...siteFields,
  is_default: z.boolean().default(false),
});
export type NewSite = z.input<typeof NewSite>;

export const Seed = z.strictObject({
  workspaces: z.array(z.strictObject({ id: uuid, name: text() })).min(1),
  projects: z.array(z.strictObject({ id: uuid, workspaceId: uuid, name: text().nullable() })),
  sites: z.array(z.strictObject({ id: uuid, projectId: uuid, ...siteFields })),
  /**
   * Each token and the workspaces it may access; `readOnly`: GET requests only (the spec names no
   * scopes; a service that has them has a token that can list but not create or update — docs/api-assumptions.md).
   */
  tokens: z.array(z.strictObject({ token: TokenText, workspaces: z.array(uuid), readOnly: z.boolean().optional() })).min(1),
});
export type Seed = z.infer<typeof Seed>;

/** Stable UUIDs (RFC 9562 version 5 layout) so docs and tests can name seeded records. */
export function seedId(name: string): string {
  const hex = createHash("sha1").update(`serviceapi-simulator:${name}`).digest("hex").slice(0, 32).split("");
  hex[12] = "5";
  hex[16] = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  const h = hex.join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export const DEFAULT_TOKEN = "sim_test_token";
/** A second token limited to the Acme workspace, for trying 403 responses. */
export const ACME_ONLY_TOKEN = "sim_acme_only_token";
/** A token that may only read (GET), in every workspace: a pull request's preview token. */
export const READ_ONLY_TOKEN = "sim_read_only_token";

export const DEFAULT_IDS = {
  acmeWorkspace: seedId("workspace:acme"),
  globexWorkspace: seedId("workspace:globex"),
  acmeWeb: seedId("project:acme-web"),
  acmeDocs: seedId("project:acme-docs"),
  globexShop: seedId("project:globex-shop"),
  globexUnnamed: seedId("project:globex-unnamed"),
} as const;

/** Two workspaces, four projects; Acme Web has 250 sites so listing it takes three full pages. */
export function defaultSeed(): Seed {
  const ids = DEFAULT_IDS;
  const projects = [
    { id: ids.acmeWeb, workspaceId: ids.acmeWorkspace, name: "Acme Web", slug: "acme-web", sites: 250 },
    { id: ids.acmeDocs, workspaceId: ids.acmeWorkspace, name: "Acme Docs", slug: "acme-docs", sites: 3 },
    { id: ids.globexShop, workspaceId: ids.globexWorkspace, name: "Globex Shop", slug: "globex-shop", sites: 5 },
    { id: ids.globexUnnamed, workspaceId: ids.globexWorkspace, name: null, slug: "globex-unnamed", sites: 1 },
  ];
  return {
    workspaces: [
      { id: ids.acmeWorkspace, name: "Acme" },
      { id: ids.globexWorkspace, name: "Globex" },
    ],
    projects: projects.map(({ id, workspaceId, name }) => ({ id, workspaceId, name })),
    sites: projects.flatMap((p) =>
      Array.from({ length: p.sites }, (_, i) => {
        const n = String(i + 1).padStart(3, "0");
        return {
          id: seedId(`site:${p.slug}:${n}`),
          projectId: p.id,
          name: `${p.name ?? "Site"} ${n}`,
          subdomain: `${p.slug}-${n}`,
          is_default: i === 0,
        };
      }),
    ),
    tokens: [
      { token: DEFAULT_TOKEN, workspaces: [ids.acmeWorkspace, ids.globexWorkspace] },
      { token: ACME_ONLY_TOKEN, workspaces: [ids.acmeWorkspace] },
      { token: READ_ONLY_TOKEN, workspaces: [ids.acmeWorkspace, ids.globexWorkspace], readOnly: true },
    ],
  };
}

export function parseSeed(value: unknown, source: string): Seed {
  const result = parseWithIssues(Seed, value);
  if (!result.success) throw new Error(`invalid seed ${source}: ${result.message}`);
  const seed = result.data;
  const workspaces = new Set(seed.workspaces.map((w) => w.id));
  const projects = new Set(seed.projects.map((p) => p.id));
  for (const p of seed.projects) {
    if (!workspaces.has(p.workspaceId)) throw new Error(`invalid seed ${source}: project ${p.id} names unknown workspace ${p.workspaceId}`);
  }
  for (const s of seed.sites) {
    if (!projects.has(s.projectId)) throw new Error(`invalid seed ${source}: site ${s.id} names unknown project ${s.projectId}`);
  }
  for (const [kind, ids] of [
    ["workspace", seed.workspaces],
    ["project", seed.projects],
    ["site", seed.sites],
  ] as const) {
    const seen = new Set<string>();
    for (const { id } of ids) {
      if (seen.has(id)) throw new Error(`invalid seed ${source}: ${kind} ${id} appears twice`);
      seen.add(id);
    }
  }
  for (const t of seed.tokens) {
    for (const w of t.workspaces) if (!workspaces.has(w)) throw new Error(`invalid seed ${source}: a token names unknown workspace ${w}`);
  }
  return seed;
}

export function loadSeedFile(path: string): Seed {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new Error(`cannot read seed ${path}: ${(err as Error).message}`, { cause: err });
  }
  return parseSeed(raw, path);
}
