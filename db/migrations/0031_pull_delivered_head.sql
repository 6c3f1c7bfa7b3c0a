-- The head of the latest opened/synchronize delivery handled, and its `updated_at`: a plain
-- /approve approves only that head. Rows from before stay empty (no delivery of theirs was
-- recorded this way): a plain /approve there waits for the next push, `/approve <sha>` works.
ALTER TABLE "pull_requests" ADD COLUMN "delivered_head" text;--> statement-breakpoint
ALTER TABLE "pull_requests" ADD COLUMN "delivered_head_at" timestamp with time zone;