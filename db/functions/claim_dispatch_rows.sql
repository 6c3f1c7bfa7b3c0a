-- The current definition of claim_dispatch_rows, as db/migrations/0034_installation_share.sql left it.
-- A migration that changes it changes this file too (test/store/sql-functions.test.ts).
CREATE OR REPLACE FUNCTION "claim_dispatch_rows"(
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
) RETURNS TABLE ("attempt" json, "task" json, "run" json) LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  claimed bigint[];
BEGIN
  claimed := ARRAY(SELECT claim_dispatches(p_repository, p_repository_lock, p_repository_limit,
    p_global_lock, p_global_limit, p_now, p_from, p_to, p_blocked, p_installation_limit));
  IF cardinality(claimed) = 0 THEN RETURN; END IF;
  RETURN QUERY
  SELECT row_to_json(a), row_to_json(t), row_to_json(r)
    FROM unnest(claimed) WITH ORDINALITY AS c("id", n)
    JOIN "attempts" a ON a."id" = c."id"
    JOIN "tasks" t ON t."id" = a."task_id"
    JOIN "runs" r ON r."id" = t."run_id"
    ORDER BY c.n;
END
$$;
