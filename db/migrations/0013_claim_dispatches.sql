-- The dispatch claim (AttemptStore.claimDispatches) in one round trip. A function, not one
-- statement: a statement's snapshot is taken before its advisory lock is granted, so counts read
-- in the same statement could miss a claim that committed while it waited; each statement of a
-- volatile function takes a fresh snapshot, after the lock. Locks: the repository's, then the
-- global one (only when there is a global limit and something to claim), both released at the
-- end of the caller's statement. Returns the new attempts' ids in dispatch order: the ready
-- set's order (tasks_ready_idx: priority, oldest run, run, plan order).
CREATE FUNCTION "claim_dispatches"(
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
    -- Every repository's claim waits for this one: under it there is only a count and the writes.
    PERFORM pg_advisory_xact_lock(p_global_lock);
    SELECT least(room, p_global_limit - count(*)) INTO room FROM "tasks"
      WHERE "state" IN ('dispatched', 'running') AND "task_key" <> 'plan';
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
