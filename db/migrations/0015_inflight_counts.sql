-- Tasks in flight (dispatched or running; the planner apart), counted per repository by a
-- trigger, so the dispatch claim's global limit reads one row per repository instead of every
-- task in flight: under the global lock, with 2,000 in flight, the count visited 2,000 rows in
-- about 440 heap pages (5 ms) on every claim, and every repository's claim waited for it.
CREATE TABLE "repository_inflight" (
  "repository_id" bigint PRIMARY KEY NOT NULL,
  "in_flight" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
INSERT INTO "repository_inflight" ("repository_id", "in_flight")
  SELECT "repository_id", count(*) FROM "tasks"
   WHERE "state" IN ('dispatched', 'running') AND "task_key" <> 'plan'
   GROUP BY "repository_id";
--> statement-breakpoint
CREATE FUNCTION "count_inflight"() RETURNS trigger LANGUAGE plpgsql AS $$
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
--> statement-breakpoint
CREATE TRIGGER "tasks_count_inflight" AFTER INSERT OR DELETE OR UPDATE OF "state" ON "tasks"
  FOR EACH ROW EXECUTE FUNCTION "count_inflight"();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "claim_dispatches"(
  "p_repository" bigint,
  "p_repository_lock" bigint,
  "p_repository_limit" integer,
  "p_global_lock" bigint,
  "p_global_limit" integer,
  "p_now" timestamp with time zone,
  "p_from" text[],
  "p_to" text
) RETURNS SETOF bigint LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  room integer;
  wanted bigint[];
BEGIN
  PERFORM pg_advisory_xact_lock(p_repository_lock);
  -- The planner runs outside the limits (docs/lifecycle.md).
  SELECT p_repository_limit - count(*) INTO room FROM "tasks"
    WHERE "repository_id" = p_repository AND "state" IN ('dispatched', 'running')
      AND "task_key" <> 'plan';
  IF room <= 0 THEN RETURN; END IF;
  -- ARRAY(subquery) keeps the subquery's order.
  wanted := ARRAY(
    SELECT "tasks"."id" FROM "tasks" JOIN "runs" ON "runs"."id" = "tasks"."run_id"
      WHERE "tasks"."repository_id" = p_repository AND "tasks"."state" = 'pending'
        AND "tasks"."unmet_deps" = 0 AND "tasks"."task_key" <> 'plan'
        AND "runs"."state" = 'running' AND "runs"."finished_at" IS NULL
        AND ("tasks"."next_attempt_at" IS NULL OR "tasks"."next_attempt_at" <= p_now)
      ORDER BY "tasks"."priority" DESC NULLS LAST, "tasks"."run_created_at",
        "tasks"."run_id", "tasks"."plan_index"
      LIMIT room);
  IF cardinality(wanted) = 0 THEN RETURN; END IF;
  IF p_global_limit IS NOT NULL THEN
    -- Every repository's claim waits for this one: under it there is only a sum and the writes.
    PERFORM pg_advisory_xact_lock(p_global_lock);
    SELECT least(room, p_global_limit - coalesce(sum("in_flight"), 0)) INTO room
      FROM "repository_inflight";
    IF room <= 0 THEN RETURN; END IF;
  END IF;
  RETURN QUERY
  WITH chosen AS (
    SELECT t."id", t."next_mode", t."pending_feedback", t."pending_review", w.n
      FROM unnest(wanted[1:room]) WITH ORDINALITY AS w("id", n)
      JOIN "tasks" t ON t."id" = w."id"
  ), dispatched AS (
    -- The state guard is the transition table's (src/core/transitions.ts): a task moved since
    -- it was read is left alone.
    UPDATE "tasks" t SET "state" = p_to::task_state, "attempt_count" = t."attempt_count" + 1,
        "next_attempt_at" = NULL, "pending_feedback" = NULL, "pending_review" = NULL,
        "updated_at" = now()
      FROM chosen c
      WHERE t."id" = c."id" AND t."state"::text = ANY (p_from)
      RETURNING t."id", t."run_id", t."attempt_count", c."next_mode", c."pending_feedback",
        c."pending_review", c.n
  ), inserted AS (
    INSERT INTO "attempts" ("task_id", "attempt", "mode", "feedback", "review")
      SELECT d."id", d."attempt_count", d."next_mode", d."pending_feedback", d."pending_review"
        FROM dispatched d
      RETURNING "attempts"."id", "attempts"."task_id"
  ), bumped AS (
    UPDATE "runs" SET "status_version_wanted" = "status_version_wanted" + 1
      WHERE "runs"."id" IN (SELECT d."run_id" FROM dispatched d)
  )
  SELECT i."id" FROM inserted i JOIN dispatched d ON d."id" = i."task_id" ORDER BY d.n;
END
$$;
