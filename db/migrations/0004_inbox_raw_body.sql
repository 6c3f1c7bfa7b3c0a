DROP INDEX "webhook_deliveries_pending_idx";--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ALTER COLUMN "payload" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "body" "bytea";--> statement-breakpoint
-- Bodies live in the TOAST table, uncompressed (they arrive compressed): claiming and completing a
-- delivery then rewrites a narrow row, not its body.
ALTER TABLE "webhook_deliveries" ALTER COLUMN "body" SET STORAGE EXTERNAL;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" SET (toast_tuple_target = 128);--> statement-breakpoint
CREATE INDEX "webhook_deliveries_processing_idx" ON "webhook_deliveries" USING btree ("locked_at") WHERE "webhook_deliveries"."status" = 'processing';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_failed_idx" ON "webhook_deliveries" USING btree ("received_at") WHERE "webhook_deliveries"."status" = 'failed';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_received_idx" ON "webhook_deliveries" USING brin ("received_at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_pending_idx" ON "webhook_deliveries" USING btree ("received_at") WHERE "webhook_deliveries"."status" = 'pending';