-- The current definition of claim_deliveries, as db/migrations/0019_inbox_body_text.sql left it.
-- A migration that changes it changes this file too (test/store/sql-functions.test.ts).
CREATE OR REPLACE FUNCTION "claim_deliveries"(
  "p_lock" bigint,
  "p_limit" integer,
  "p_stale_ms" double precision,
  "p_worker" text,
  "p_in_hand" text[],
  "p_window" integer
) RETURNS TABLE (
  "delivery_id" text,
  "event" text,
  "body" bytea,
  "stored_payload" text,
  "attempts" integer,
  "received_at" timestamp with time zone
) LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_column
BEGIN
  PERFORM pg_advisory_xact_lock(p_lock);
  RETURN QUERY
  WITH busy AS (
    SELECT DISTINCT d.repository_id FROM webhook_deliveries d
     WHERE d.status = 'processing' AND d.repository_id IS NOT NULL
       AND d.locked_at >= now() - p_stale_ms * interval '1 millisecond'
       AND (d.locked_by <> p_worker OR d.delivery_id = ANY(p_in_hand))
  ), left_behind AS (
    SELECT d.delivery_id, d.repository_id, 0 AS rank, d.locked_at AS since
      FROM webhook_deliveries d
     WHERE d.status = 'processing'
       AND (d.locked_at < now() - p_stale_ms * interval '1 millisecond'
            OR (d.locked_by = p_worker AND d.delivery_id <> ALL(p_in_hand)))
     ORDER BY d.locked_at LIMIT p_window
  ), pending AS (
    SELECT d.delivery_id, d.repository_id, 1 AS rank, d.received_at AS since
      FROM webhook_deliveries d
     WHERE d.status = 'pending' AND d.available_at <= now()
     ORDER BY d.received_at LIMIT p_window
  ), first_per_repository AS (
    SELECT DISTINCT ON (coalesce(c.repository_id::text, c.delivery_id)) c.delivery_id, c.rank, c.since
      FROM (SELECT * FROM left_behind UNION ALL SELECT * FROM pending) AS c
     WHERE c.repository_id IS NULL OR c.repository_id NOT IN (SELECT b.repository_id FROM busy b)
     ORDER BY coalesce(c.repository_id::text, c.delivery_id), c.rank, c.since
  )
  UPDATE webhook_deliveries w
     SET status = 'processing', locked_by = p_worker, locked_at = now(), attempts = w.attempts + 1
   WHERE w.delivery_id IN (
     SELECT f.delivery_id FROM first_per_repository f ORDER BY f.rank, f.since LIMIT p_limit)
  RETURNING w.delivery_id, w.event, w.body, coalesce(w.body_text, w.payload::text), w.attempts, w.received_at;
END;
$$;
