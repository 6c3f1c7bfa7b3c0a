ALTER TABLE "installations" DROP COLUMN "account_login";--> statement-breakpoint
ALTER TABLE "pull_requests" DROP COLUMN "merged_at";--> statement-breakpoint
ALTER TABLE "pull_requests" DROP COLUMN "merge_commit_sha";--> statement-breakpoint
ALTER TABLE "tasks" DROP COLUMN "approved_by";--> statement-breakpoint
ALTER TABLE "webhook_deliveries" DROP COLUMN "handled_at";