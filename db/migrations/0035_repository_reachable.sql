-- GitHub no longer lets the App reach a repository removed from its installation, of a deleted
-- installation, or of a suspended one (docs/running.md, "Removing the App"): the repository's row
-- says so, and claim_dispatches claims nothing of it. A run that ends for it says why (end_reason).
ALTER TABLE "repositories" ADD COLUMN "removed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "repositories" ADD COLUMN "suspended_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "end_reason" text;--> statement-breakpoint
-- An installation suspended before: its repositories are, and the sweep ends their runs.
UPDATE "repositories" SET "suspended_at" = i."suspended_at"
  FROM "installations" i
  WHERE i."id" = "repositories"."installation_id" AND i."suspended_at" IS NOT NULL;--> statement-breakpoint
CREATE OR REPLACE FUNCTION "claim_dispatches"(
  "p_repository" bigint,
  "p_repository_lock" bigint,
  "p_repository_limit" integer,
  "p_global_lock" bigint,
  "p_global_limit" integer,
  "p_now" timestamp with time zone,
  "p_from" text[],
  "p_to" text,
  "p_blocked" bigint[],
  "p_installation_limit" integer
) RETURNS SETOF bigint LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  room integer;
  wanted bigint[];
BEGIN
  -- No slot left anywhere: nothing to claim, and no lock to wait for. Read without the lock, so
  -- only "full" is trusted (the locked read below decides the rest); a slot freed later is
  -- claimed by a later pass, as before: the freeing delivery's own, or the sweep's.
  IF p_global_limit IS NOT NULL
     AND (SELECT coalesce(sum("in_flight"), 0) FROM "repository_inflight") >= p_global_limit THEN
    RETURN;
  END IF;
  PERFORM pg_advisory_xact_lock(p_repository_lock);
  -- GitHub no longer lets the App reach the repository (core's unreachableBecause in
  -- src/core/lifecycle/reachability.ts, which the scheduling pass asks first): nothing is claimed.
  -- Read under the lock the removal's write takes (RepositoryStore.recordUnreachable), so a claim
  -- either commits before it, and the run's end finds its tasks, or sees it.
  IF (SELECT rp."removed_at" IS NOT NULL OR rp."suspended_at" IS NOT NULL
        FROM "repositories" rp WHERE rp."id" = p_repository) THEN
    RETURN;
  END IF;
  -- The planner runs outside the limits (docs/lifecycle.md).
  -- The trigger's count (db/migrations/0015), kept in the same transactions as the tasks.
  SELECT p_repository_limit - coalesce(
      (SELECT "in_flight" FROM "repository_inflight" WHERE "repository_id" = p_repository), 0)
    INTO room;
  IF room <= 0 THEN RETURN; END IF;
  -- ARRAY(subquery) keeps the subquery's order.
  wanted := ARRAY(
    -- The run is looked up by its key for each task the index walk reaches: as a join, stale
    -- statistics can make the planner scan every running run's index entries per task.
    SELECT "tasks"."id" FROM "tasks"
      WHERE "tasks"."repository_id" = p_repository AND "tasks"."state" = 'pending'
        -- A task with one unmerged dependency goes out only stacked on it (dispatch.stack:
        -- tasks.stack_parent, set from core's decision); the ready index has the same predicate.
        AND ("tasks"."unmet_deps" = 0
          OR ("tasks"."unmet_deps" = 1 AND "tasks"."stack_parent" IS NOT NULL))
        AND "tasks"."task_key" <> 'plan'
        AND ("tasks"."next_attempt_at" IS NULL OR "tasks"."next_attempt_at" <= p_now)
        -- Core's overlap waits (src/core/scheduler/overlap.ts), decided before the lock.
        AND "tasks"."id" <> ALL (p_blocked)
        AND (SELECT r."state" = 'running' AND r."finished_at" IS NULL
               FROM "runs" r WHERE r."id" = "tasks"."run_id")
      ORDER BY "tasks"."priority" DESC NULLS LAST, "tasks"."run_created_at",
        "tasks"."run_id", "tasks"."plan_index"
      LIMIT room);
  IF cardinality(wanted) = 0 THEN RETURN; END IF;
  IF p_global_limit IS NOT NULL THEN
    -- Every repository's claim waits for this one: under it there is only a sum and the writes.
    PERFORM pg_advisory_xact_lock(p_global_lock);
    SELECT least(room, p_global_limit - coalesce(sum("in_flight"), 0)) INTO room
      FROM "repository_inflight";
    -- The installation's share of the cap, as core decided it (src/core/scheduler/fair-share.ts):
    -- its repositories' tasks in flight together, read under the lock every capped claim takes.
    IF p_installation_limit IS NOT NULL THEN
      SELECT least(room, p_installation_limit - coalesce(sum(i."in_flight"), 0)) INTO room
        FROM "repository_inflight" i JOIN "repositories" rp ON rp."id" = i."repository_id"
        WHERE rp."installation_id" =
          (SELECT o."installation_id" FROM "repositories" o WHERE o."id" = p_repository);
    END IF;
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
