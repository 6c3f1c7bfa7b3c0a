-- The current definition of run_graph_rows, as db/migrations/0018_merge_turn_rows.sql left it.
-- A migration that changes it changes this file too (test/store/sql-functions.test.ts).
CREATE OR REPLACE FUNCTION "run_graph_rows"("p_run" bigint)
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
