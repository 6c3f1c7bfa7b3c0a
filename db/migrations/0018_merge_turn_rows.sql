-- A run's graph (RunStore.graphOf and a merge turn's opening): each plan task (not the planner's)
-- as JSON of its row, with its PR's row (the one the task points at) and its deps by key. The PR
-- and the deps are looked up per task by their indexes: as joins, stale statistics (the fleet's
-- tables start empty; autovacuum may lag) planned a hash join over every PR of the database,
-- 7.7 ms for a 30-task run of the full fleet against 1.1 ms this way.
CREATE FUNCTION "run_graph_rows"("p_run" bigint)
RETURNS TABLE ("task" json, "pull" json, "deps" text[], "plan_index" integer)
LANGUAGE sql STABLE AS $$
  SELECT row_to_json(t),
         (SELECT row_to_json(p) FROM "pull_requests" p
           WHERE p."task_id" = t."id" AND p."number" = t."pr_number"),
         ARRAY(SELECT e."depends_on" FROM "task_edges" e
                WHERE e."run_id" = t."run_id" AND e."task_key" = t."task_key"
                ORDER BY e."depends_on"),
         t."plan_index"
    FROM "tasks" t
   WHERE t."run_id" = p_run AND t."task_key" <> 'plan'
$$;
--> statement-breakpoint
-- A repository's merge turn opened in one round trip (MergeTurns.take): the repository's merge
-- lock, then what the merge decision reads, the run's graph and the base-branch slots other runs
-- hold. The read cannot be in the lock's own statement: that statement's snapshot is older than
-- the previous holder's last writes. Here it is the function's next statements, which see them.
-- Without a lock key (PGlite, where turns are taken in process) it only reads.
-- Its rows: the run's graph rows in plan order, then one row per slot.
CREATE FUNCTION "merge_turn_rows"(
  "p_lock" bigint,
  "p_repository" bigint,
  "p_run" bigint
) RETURNS TABLE (
  "task" json,
  "pull" json,
  "deps" text[],
  "slot_number" integer,
  "slot_base" text,
  "slot_merging" boolean
) LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF p_lock IS NOT NULL THEN
    PERFORM pg_advisory_lock(p_lock);
  END IF;
  RETURN QUERY
  SELECT g."task", g."pull", g."deps", NULL::integer, NULL::text, NULL::boolean
    FROM run_graph_rows(p_run) g
   ORDER BY g."plan_index";
  RETURN QUERY
  SELECT NULL::json, NULL::json, NULL::text[], p."number", p."base_ref",
         t."state" = 'merging' AND p."enqueued_at" IS NULL
    FROM "pull_requests" p
    JOIN "tasks" t ON t."id" = p."task_id" AND t."pr_number" = p."number"
    JOIN "runs" r ON r."id" = t."run_id"
   WHERE p."repository_id" = p_repository AND p."state" = 'open' AND r."id" <> p_run
     AND r."finished_at" IS NULL
     AND ((t."state" = 'merging' AND p."enqueued_at" IS NULL)
       OR (p."updated_by_coordinator_from" IS NOT NULL AND t."state" IN ('in_review', 'approved')
           AND NOT t."held" AND NOT r."held"));
END
$$;
