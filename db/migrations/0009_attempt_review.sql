ALTER TABLE "attempts" ADD COLUMN "review" jsonb;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "pending_review" jsonb;