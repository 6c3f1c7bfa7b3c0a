-- The advisory lock an inbox worker (a DeliveryProcessor) holds on a session of its own for as
-- long as its process runs (DeliveryStore.holdWorker): 2^56 plus 56 bits of a hash of its id,
-- below every namespace of src/store/lock-keys.ts. The holder and the claim both take the key
-- from here.
CREATE OR REPLACE FUNCTION "inbox_worker_key"("p_worker" text) RETURNS bigint
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT (1::bigint << 56) | (hashtextextended(p_worker, 0) & ((1::bigint << 56) - 1)) $$;
--> statement-breakpoint
-- The claim as in 0019, but a delivery whose worker's session is gone (its process crashed or was
-- killed: Postgres ends the session with its connection) is left behind at once, not only once
-- its lock is stale: the repository it holds is not busy, and the next claimer takes it over.
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
  WITH live_workers AS (
    -- Read only when another worker has a delivery in hand.
    SELECT (l.classid::bigint << 32) | l.objid::bigint AS key
      FROM pg_locks l
     WHERE l.locktype = 'advisory' AND l.objsubid = 1 AND l.granted
       AND (l.classid::bigint >> 24) = 1
       AND l.database = (SELECT p.oid FROM pg_database p WHERE p.datname = current_database())
  ), processing AS (
    SELECT d.delivery_id, d.repository_id, d.locked_at,
           d.locked_at >= now() - p_stale_ms * interval '1 millisecond'
             AND CASE WHEN d.locked_by = p_worker THEN d.delivery_id = ANY(p_in_hand)
                      ELSE inbox_worker_key(d.locked_by) IN (SELECT w.key FROM live_workers w)
                 END AS in_flight
      FROM webhook_deliveries d
     WHERE d.status = 'processing'
  ), busy AS (
    SELECT DISTINCT p.repository_id FROM processing p
     WHERE p.in_flight AND p.repository_id IS NOT NULL
  ), left_behind AS (
    SELECT p.delivery_id, p.repository_id, 0 AS rank, p.locked_at AS since
      FROM processing p
     WHERE NOT p.in_flight
     ORDER BY p.locked_at LIMIT p_window
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
