-- The current definition of count_inflight, as db/migrations/0015_inflight_counts.sql left it.
-- A migration that changes it changes this file too (test/store/sql-functions.test.ts).
CREATE OR REPLACE FUNCTION "count_inflight"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  was boolean := TG_OP <> 'INSERT' AND OLD."state" IN ('dispatched', 'running')
    AND OLD."task_key" <> 'plan';
  is_now boolean := TG_OP <> 'DELETE' AND NEW."state" IN ('dispatched', 'running')
    AND NEW."task_key" <> 'plan';
BEGIN
  IF was AND NOT is_now THEN
    UPDATE "repository_inflight" SET "in_flight" = "in_flight" - 1
     WHERE "repository_id" = OLD."repository_id";
  ELSIF is_now AND NOT was THEN
    INSERT INTO "repository_inflight" AS r ("repository_id", "in_flight")
      VALUES (NEW."repository_id", 1)
      ON CONFLICT ("repository_id") DO UPDATE SET "in_flight" = r."in_flight" + 1;
  END IF;
  RETURN NULL;
END
$$;
