-- The current definition of inbox_worker_key, as db/migrations/0027_inbox_worker_sessions.sql left it.
-- A migration that changes it changes this file too (test/store/sql-functions.test.ts).
CREATE OR REPLACE FUNCTION "inbox_worker_key"("p_worker" text) RETURNS bigint
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT (1::bigint << 56) | (hashtextextended(p_worker, 0) & ((1::bigint << 56) - 1)) $$;
