ALTER TABLE "pull_requests" ADD COLUMN "updated_by_coordinator_from" text;--> statement-breakpoint
ALTER TABLE "pull_requests" ADD COLUMN "sent_back_for_sha" text;--> statement-breakpoint
ALTER TABLE "pull_requests" ADD COLUMN "enqueued_at" timestamp with time zone;