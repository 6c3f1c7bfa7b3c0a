-- A repository's merge turn opened in one round trip (MergeTurns.take): the repository's merge
-- lock, then what the merge decision reads, the run's graph and the base-branch slots other runs
-- hold. The read cannot be in the lock's own statement: that statement's snapshot is older than
-- the previous holder's last writes. Here it is the function's next statements, which see them.
-- Without a lock key (PGlite, where turns are taken in process) it only reads.
-- Graph rows: each plan task (not the planner's), in plan order, as JSON of its row, with its PR's
-- row (the one the task points at) and its deps by key; slot rows after them.
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
  SELECT row_to_json(t), CASE WHEN p."id" IS NULL THEN NULL ELSE row_to_json(p) END,
         coalesce(array_agg(e."depends_on" ORDER BY e."depends_on")
           FILTER (WHERE e."depends_on" IS NOT NULL), '{}'),
         NULL::integer, NULL::text, NULL::boolean
    FROM "tasks" t
    LEFT JOIN "task_edges" e ON e."run_id" = t."run_id" AND e."task_key" = t."task_key"
    LEFT JOIN "pull_requests" p ON p."task_id" = t."id" AND p."number" = t."pr_number"
   WHERE t."run_id" = p_run AND t."task_key" <> 'plan'
   GROUP BY t."id", p."id"
   ORDER BY t."plan_index";
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
