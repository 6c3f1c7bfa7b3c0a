-- Tasks carry their run's repository and creation time, so a repository's ready set is read in
-- the claim's order from one index (as many entries as the claim takes) and its in-flight count
-- is an index-only count, neither joined to runs. Both are facts of the run that never change.
ALTER TABLE "tasks" ADD COLUMN "repository_id" bigint;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "run_created_at" timestamp with time zone;--> statement-breakpoint
UPDATE "tasks" SET "repository_id" = "runs"."repository_id", "run_created_at" = "runs"."created_at" FROM "runs" WHERE "runs"."id" = "tasks"."run_id";--> statement-breakpoint
ALTER TABLE "tasks" ALTER COLUMN "repository_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "tasks" ALTER COLUMN "run_created_at" SET NOT NULL;--> statement-breakpoint
-- Copied from the run on every insert, whatever the insert says: the copy cannot disagree.
CREATE FUNCTION "tasks_copy_run"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT "repository_id", "created_at" INTO NEW."repository_id", NEW."run_created_at"
    FROM "runs" WHERE "id" = NEW."run_id";
  RETURN NEW;
END
$$;--> statement-breakpoint
CREATE TRIGGER "tasks_copy_run" BEFORE INSERT ON "tasks" FOR EACH ROW EXECUTE FUNCTION "tasks_copy_run"();--> statement-breakpoint
DROP INDEX "tasks_ready_idx";--> statement-breakpoint
DROP INDEX "tasks_inflight_idx";--> statement-breakpoint
CREATE INDEX "tasks_ready_idx" ON "tasks" USING btree ("repository_id","priority" DESC NULLS LAST,"run_created_at","run_id","plan_index") WHERE "tasks"."state" = 'pending' and "tasks"."unmet_deps" = 0;--> statement-breakpoint
CREATE INDEX "tasks_inflight_idx" ON "tasks" USING btree ("repository_id") WHERE "tasks"."state" in ('dispatched', 'running');
