CREATE TABLE "plan_attempts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"run_id" bigint NOT NULL,
	"attempt" integer NOT NULL,
	"phase" text DEFAULT 'intent' NOT NULL,
	"workflow_run_id" bigint,
	"workflow_run_url" text,
	"conclusion" text,
	"intent_at" timestamp with time zone DEFAULT now() NOT NULL,
	"dispatched_at" timestamp with time zone,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "issue_title" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "issue_body" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "next_mode" text DEFAULT 'work' NOT NULL;--> statement-breakpoint
ALTER TABLE "plan_attempts" ADD CONSTRAINT "plan_attempts_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "plan_attempts_run_attempt_idx" ON "plan_attempts" USING btree ("run_id","attempt");--> statement-breakpoint
CREATE UNIQUE INDEX "plan_attempts_workflow_run_idx" ON "plan_attempts" USING btree ("workflow_run_id");--> statement-breakpoint
CREATE UNIQUE INDEX "runs_one_active_per_issue_idx" ON "runs" USING btree ("repository_id","issue_number") WHERE "runs"."finished_at" is null;