-- A PostgreSQL role for the pull-request jobs that can read the catalog's state and never write it.
--
-- Run once, by a superuser, in the state's database:
--
--   psql "$ADMIN_URL" -v role=catalog_preview -v table=pulumi_state -f read-only-role.sql
--   psql "$ADMIN_URL" -c "\password catalog_preview"
--
-- `table` is the deploy URL's `table` parameter (Pulumi's default: pulumi_state), in schema public.
-- The PR jobs' PULUMI_BACKEND_READ_URL is then the deploy URL with this role's name, and the same
-- `table` parameter.
--
-- Why a materialized view: every process of Pulumi's PostgreSQL backend (CLI 3.248) runs
-- `CREATE TABLE IF NOT EXISTS <table>` and `CREATE INDEX IF NOT EXISTS … ON <table>` when it opens
-- the backend. The first needs CREATE on the schema it resolves to, the second ownership of the
-- relation — so a role with SELECT alone cannot open it (`permission denied for schema public`). This role gets a schema of its own, first
-- and only on its search_path, holding a materialized view of the state table under the same name,
-- which it owns: both statements then find it and do nothing, every read Pulumi makes works, and
-- any write fails (`cannot change materialized view`). The real table stays SELECT-only to it.
-- serviceapi-catalog refreshes the view each time it opens the backend (REFRESH MATERIALIZED VIEW,
-- which only the view's owner, this role, can run; it rewrites the view, never the state). A bare
-- `pulumi preview` with this role sees the state as of the last refresh.
\set ON_ERROR_STOP on

CREATE ROLE :"role" LOGIN;
CREATE SCHEMA :"role" AUTHORIZATION :"role";
GRANT USAGE ON SCHEMA public TO :"role";
GRANT SELECT ON public.:"table" TO :"role";
ALTER ROLE :"role" SET search_path = :"role";

-- Made as the role, so that it owns the view (and its index) and can refresh it.
SET ROLE :"role";
CREATE MATERIALIZED VIEW :"role".:"table" AS SELECT * FROM public.:"table";
-- Pulumi's writes (INSERT … ON CONFLICT (key)) then fail as what they are: `cannot change materialized view`.
CREATE UNIQUE INDEX ON :"role".:"table" (key);
RESET ROLE;
