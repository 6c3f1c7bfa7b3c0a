-- The current definition of tasks_copy_run, as db/migrations/0010_tasks_repository_order.sql left it.
-- A migration that changes it changes this file too (test/store/sql-functions.test.ts).
CREATE OR REPLACE FUNCTION "tasks_copy_run"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT "repository_id", "created_at" INTO NEW."repository_id", NEW."run_created_at"
    FROM "runs" WHERE "id" = NEW."run_id";
  RETURN NEW;
END
$$;
