CREATE TYPE "public"."delivery_status" AS ENUM('pending', 'processing', 'done', 'failed');--> statement-breakpoint
CREATE TYPE "public"."run_state" AS ENUM('planning', 'plan_invalid', 'awaiting_approval', 'running', 'held', 'done', 'failed', 'cancelled');--> statement-breakpoint
CREATE TYPE "public"."task_state" AS ENUM('pending', 'dispatched', 'running', 'in_review', 'approved', 'merging', 'merged', 'failed', 'vetoed', 'rejected', 'blocked', 'cancelled');--> statement-breakpoint
CREATE TABLE "attempts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"task_id" bigint NOT NULL,
	"attempt" integer NOT NULL,
	"mode" text NOT NULL,
	"phase" text DEFAULT 'intent' NOT NULL,
	"workflow_run_id" bigint,
	"workflow_run_url" text,
	"conclusion" text,
	"failure_reason" text,
	"feedback" text,
	"intent_at" timestamp with time zone DEFAULT now() NOT NULL,
	"dispatched_at" timestamp with time zone,
	"started_at" timestamp with time zone,
	"completed_at" timestamp with time zone,
	"cost_usd" numeric(12, 4),
	"input_tokens" bigint,
	"output_tokens" bigint
);
--> statement-breakpoint
CREATE TABLE "commands" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"repository_id" bigint NOT NULL,
	"issue_number" integer NOT NULL,
	"run_id" bigint,
	"comment_id" bigint NOT NULL,
	"ordinal" integer NOT NULL,
	"actor_login" text NOT NULL,
	"permission" text,
	"name" text NOT NULL,
	"args" jsonb,
	"accepted" boolean NOT NULL,
	"outcome" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "installations" (
	"id" bigint PRIMARY KEY NOT NULL,
	"account_login" text NOT NULL,
	"suspended_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "pull_requests" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"repository_id" bigint NOT NULL,
	"number" integer NOT NULL,
	"task_id" bigint,
	"node_id" text,
	"head_ref" text NOT NULL,
	"head_sha" text NOT NULL,
	"base_ref" text NOT NULL,
	"state" text NOT NULL,
	"merged" boolean DEFAULT false NOT NULL,
	"merged_at" timestamp with time zone,
	"merge_commit_sha" text,
	"order_check_run_id" bigint,
	"order_check_sha" text,
	"order_check_conclusion" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "repositories" (
	"id" bigint PRIMARY KEY NOT NULL,
	"installation_id" bigint NOT NULL,
	"owner" text NOT NULL,
	"name" text NOT NULL,
	"default_branch" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "runs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"repository_id" bigint NOT NULL,
	"issue_number" integer NOT NULL,
	"generation" integer DEFAULT 1 NOT NULL,
	"state" "run_state" DEFAULT 'planning' NOT NULL,
	"plan_source" text,
	"plan_error" text,
	"base_branch" text,
	"config" jsonb NOT NULL,
	"held" boolean DEFAULT false NOT NULL,
	"hold_reason" text,
	"plan_approved" boolean DEFAULT false NOT NULL,
	"status_comment_id" bigint,
	"status_version_wanted" integer DEFAULT 1 NOT NULL,
	"status_version_rendered" integer DEFAULT 0 NOT NULL,
	"started_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "task_edges" (
	"run_id" bigint NOT NULL,
	"task_key" text NOT NULL,
	"depends_on" text NOT NULL,
	CONSTRAINT "task_edges_run_id_task_key_depends_on_pk" PRIMARY KEY("run_id","task_key","depends_on")
);
--> statement-breakpoint
CREATE TABLE "tasks" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"run_id" bigint NOT NULL,
	"task_key" text NOT NULL,
	"plan_index" integer NOT NULL,
	"title" text NOT NULL,
	"type" text DEFAULT 'default' NOT NULL,
	"prompt" text,
	"priority" integer DEFAULT 3 NOT NULL,
	"timeout_minutes" integer,
	"state" "task_state" DEFAULT 'pending' NOT NULL,
	"unmet_deps" integer DEFAULT 0 NOT NULL,
	"attempt_count" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone,
	"held" boolean DEFAULT false NOT NULL,
	"approved_sha" text,
	"approved_by" text,
	"veto_reason" text,
	"pending_feedback" text,
	"pr_number" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"delivery_id" text PRIMARY KEY NOT NULL,
	"event" text NOT NULL,
	"action" text,
	"installation_id" bigint,
	"repository_id" bigint,
	"payload" jsonb NOT NULL,
	"status" "delivery_status" DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"locked_by" text,
	"locked_at" timestamp with time zone,
	"available_at" timestamp with time zone DEFAULT now() NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"handled_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "attempts" ADD CONSTRAINT "attempts_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "commands" ADD CONSTRAINT "commands_repository_id_repositories_id_fk" FOREIGN KEY ("repository_id") REFERENCES "public"."repositories"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "commands" ADD CONSTRAINT "commands_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pull_requests" ADD CONSTRAINT "pull_requests_repository_id_repositories_id_fk" FOREIGN KEY ("repository_id") REFERENCES "public"."repositories"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pull_requests" ADD CONSTRAINT "pull_requests_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "repositories" ADD CONSTRAINT "repositories_installation_id_installations_id_fk" FOREIGN KEY ("installation_id") REFERENCES "public"."installations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "runs" ADD CONSTRAINT "runs_repository_id_repositories_id_fk" FOREIGN KEY ("repository_id") REFERENCES "public"."repositories"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_edges" ADD CONSTRAINT "task_edges_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "attempts_task_attempt_idx" ON "attempts" USING btree ("task_id","attempt");--> statement-breakpoint
CREATE UNIQUE INDEX "attempts_workflow_run_idx" ON "attempts" USING btree ("workflow_run_id");--> statement-breakpoint
CREATE UNIQUE INDEX "commands_comment_ordinal_idx" ON "commands" USING btree ("comment_id","ordinal");--> statement-breakpoint
CREATE INDEX "commands_run_idx" ON "commands" USING btree ("run_id");--> statement-breakpoint
CREATE UNIQUE INDEX "pull_requests_repo_number_idx" ON "pull_requests" USING btree ("repository_id","number");--> statement-breakpoint
CREATE INDEX "pull_requests_task_idx" ON "pull_requests" USING btree ("task_id");--> statement-breakpoint
CREATE UNIQUE INDEX "repositories_full_name_idx" ON "repositories" USING btree ("owner","name");--> statement-breakpoint
CREATE INDEX "repositories_installation_idx" ON "repositories" USING btree ("installation_id");--> statement-breakpoint
CREATE UNIQUE INDEX "runs_issue_generation_idx" ON "runs" USING btree ("repository_id","issue_number","generation");--> statement-breakpoint
CREATE INDEX "runs_active_idx" ON "runs" USING btree ("repository_id","state") WHERE "runs"."finished_at" is null;--> statement-breakpoint
CREATE INDEX "task_edges_dependents_idx" ON "task_edges" USING btree ("run_id","depends_on");--> statement-breakpoint
CREATE UNIQUE INDEX "tasks_run_key_idx" ON "tasks" USING btree ("run_id","task_key");--> statement-breakpoint
CREATE INDEX "tasks_ready_idx" ON "tasks" USING btree ("priority" DESC NULLS LAST,"run_id","plan_index") WHERE "tasks"."state" = 'pending' and "tasks"."unmet_deps" = 0;--> statement-breakpoint
CREATE INDEX "tasks_state_idx" ON "tasks" USING btree ("run_id","state");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_pending_idx" ON "webhook_deliveries" USING btree ("available_at") WHERE "webhook_deliveries"."status" in ('pending', 'processing');