ALTER TABLE "commands" ADD COLUMN "delivery_id" text;--> statement-breakpoint
ALTER TABLE "commands" ADD COLUMN "done_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "commands" ADD COLUMN "answered_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "pull_requests" ADD COLUMN "work_pushed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "approved_at" timestamp with time zone;--> statement-breakpoint
-- Commands recorded before this migration were recorded after they were carried out and answered.
UPDATE "commands" SET "done_at" = "created_at", "answered_at" = "created_at";
