-- The starting label event's `issue.updated_at`: a label event dated no later than that of the
-- issue's last finished run starts nothing. Rows from before stay empty (that rule skips them).
ALTER TABLE "runs" ADD COLUMN "trigger_updated_at" timestamp with time zone;
