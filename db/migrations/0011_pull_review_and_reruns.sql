ALTER TABLE "pull_requests" ADD COLUMN "sent_back_for_reviews" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "pull_requests" ADD COLUMN "checks_rerun_sha" text;--> statement-breakpoint
ALTER TABLE "pull_requests" ADD COLUMN "checks_reruns" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "pull_requests" ADD COLUMN "checks_rerunning" text;