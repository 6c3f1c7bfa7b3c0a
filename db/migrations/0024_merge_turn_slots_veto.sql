-- The slots other runs hold are core's rule (slotHeldByOtherRun, src/core/merge/merge-pool.ts),
-- repeated here to be read under the repository's merge lock and held to core's by
-- test/store/slot-rule.property.test.ts. An update the coordinator asked for holds its base
-- branch only while nothing stops its PR from merging: a vetoed task (its veto reason set) holds
-- nothing, as a held task or run does not.
CREATE OR REPLACE FUNCTION "merge_turn_rows"(
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
           AND t."veto_reason" IS NULL AND NOT t."held" AND NOT r."held"));
END
$$;
