-- A PostgreSQL role for the pull-request (and drift) jobs that can read the catalog's state and
-- change nothing in the database: not the state, and not its own view of it.
--
-- Run by a superuser, in the state's database, after the first deploy (the state table must exist);
-- running it again changes nothing that is already right:
--
--   psql "$ADMIN_URL" -v role=catalog_preview -v table=pulumi_state -f read-only-role.sql
--   psql "$ADMIN_URL"        # then, at its prompt:  \password catalog_preview
--
-- `table` is the deploy URL's `table` parameter (Pulumi's default: pulumi_state), in schema public.
-- The jobs' PULUMI_BACKEND_READ_URL is then the deploy URL with this role's name, and the same
-- `table` parameter.
--
-- Why it is built this way:
-- - Every process of Pulumi's PostgreSQL backend (CLI 3.248) runs `CREATE TABLE IF NOT EXISTS
--   <table>` and `CREATE INDEX IF NOT EXISTS … ON <table>` as it opens the backend; the first needs
--   CREATE on the schema it resolves to, the second ownership of the relation — so a role with
--   SELECT alone cannot open it (`permission denied for schema public`). This role gets a schema of
--   its own, first on its search_path, holding a materialized view of the state table under the
--   same name, which it owns: both statements find it and do nothing, every read Pulumi makes works,
--   and any write fails (`cannot change materialized view`). The real table is SELECT-only to it.
-- - Owning the view would let the role drop it and put a table of its own making in its place,
--   which later previews and drift checks would read as the state. Event triggers (a superuser's:
--   the role cannot change or disable them) refuse every DDL command of a session of this role that
--   changes something — CREATE, ALTER, DROP, GRANT, COMMENT, temporary tables included — except
--   REFRESH MATERIALIZED VIEW; Pulumi's two statements above change nothing and pass.
-- - serviceapi-catalog refreshes the view each time it opens the backend (REFRESH MATERIALIZED
--   VIEW rewrites the view from the state table, never the state).
-- - The rate limit the deploy jobs share (public.serviceapi_rate_limit, made by the first deploy
--   that shares it) is shared by this role's runs too: it may read and update that table's rows.
\set ON_ERROR_STOP on
BEGIN;

SELECT format('DO $do$ BEGIN RAISE EXCEPTION %L; END $do$',
  format('the state table public.%I does not exist: run this after the first deploy, with the deploy URL''s table parameter', :'table'))
  WHERE to_regclass(format('public.%I', :'table')) IS NULL \gexec

SELECT format('CREATE ROLE %I LOGIN', :'role') WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'role') \gexec
SELECT format('CREATE SCHEMA %I AUTHORIZATION %I', :'role', :'role')
  WHERE NOT EXISTS (SELECT FROM pg_namespace WHERE nspname = :'role') \gexec
GRANT USAGE ON SCHEMA public TO :"role";
GRANT SELECT ON public.:"table" TO :"role";
-- Its own schema first (the view); public after it (the shared rate limit's table).
ALTER ROLE :"role" SET search_path = :"role", public;
SELECT format('GRANT SELECT, INSERT, UPDATE ON public.serviceapi_rate_limit TO %I', :'role')
  WHERE to_regclass('public.serviceapi_rate_limit') IS NOT NULL \gexec

-- Made as the role, so that it owns the view (and its indexes) and can refresh it.
SET ROLE :"role";
CREATE MATERIALIZED VIEW IF NOT EXISTS :"role".:"table" AS SELECT * FROM public.:"table";
-- Pulumi's writes (INSERT … ON CONFLICT (key)) then fail as what they are: `cannot change materialized view`.
SELECT format('CREATE UNIQUE INDEX IF NOT EXISTS %I ON %I.%I (key)', :'table' || '_key', :'role', :'table') \gexec
-- The index Pulumi's `CREATE INDEX IF NOT EXISTS` names, made here: the guard below lets the role make none.
SELECT format('CREATE INDEX IF NOT EXISTS %I ON %I.%I (key text_pattern_ops)', :'table' || '_key_prefix_idx', :'role', :'table') \gexec
RESET ROLE;

-- The guard: a session of this role changes nothing but the view's contents.
SELECT format($f$
CREATE OR REPLACE FUNCTION public.%1$I() RETURNS event_trigger LANGUAGE plpgsql AS $body$
DECLARE
  command record;
BEGIN
  IF session_user <> %2$L THEN
    RETURN;
  END IF;
  IF tg_event = 'sql_drop' THEN
    RAISE EXCEPTION '%% may not drop anything: it reads the state (examples/catalog-tool/read-only-role.sql)', session_user
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  FOR command IN SELECT * FROM pg_event_trigger_ddl_commands() LOOP
    IF command.command_tag <> 'REFRESH MATERIALIZED VIEW' THEN
      RAISE EXCEPTION '%% may not %% %%: it reads the state (examples/catalog-tool/read-only-role.sql); if this is Pulumi opening the backend, check the URL''s table parameter',
        session_user, command.command_tag, coalesce(command.object_identity, '')
        USING ERRCODE = 'insufficient_privilege';
    END IF;
  END LOOP;
END
$body$
$f$, :'role' || '_guard', :'role') \gexec
SELECT format('DROP EVENT TRIGGER IF EXISTS %I', :'role' || '_changes') \gexec
SELECT format('CREATE EVENT TRIGGER %I ON ddl_command_end EXECUTE FUNCTION public.%I()', :'role' || '_changes', :'role' || '_guard') \gexec
SELECT format('DROP EVENT TRIGGER IF EXISTS %I', :'role' || '_drops') \gexec
SELECT format('CREATE EVENT TRIGGER %I ON sql_drop EXECUTE FUNCTION public.%I()', :'role' || '_drops', :'role' || '_guard') \gexec

COMMIT;
