-- The planner job becomes the reserved task `plan` of its run, its dispatches ordinary attempts
-- in mode `plan` (src/core/plan PLAN_TASK_KEY). Every plan_attempts row is kept as an attempt,
-- with its workflow run id and url, phase, conclusion and times; the task's state follows its
-- latest attempt: still out → dispatched, succeeded → merged, cancelled, else failed.
INSERT INTO "tasks" ("run_id", "task_key", "plan_index", "title", "type", "state", "attempt_count", "created_at", "updated_at")
SELECT DISTINCT ON ("run_id")
	"run_id", 'plan', -1, 'Plan', 'plan',
	(CASE
		WHEN "phase" <> 'completed' THEN 'dispatched'
		WHEN "conclusion" = 'success' THEN 'merged'
		WHEN "conclusion" = 'cancelled' THEN 'cancelled'
		ELSE 'failed'
	END)::"task_state",
	"attempt",
	(SELECT min("intent_at") FROM "plan_attempts" AS "first" WHERE "first"."run_id" = "plan_attempts"."run_id"),
	coalesce("completed_at", "dispatched_at", "intent_at")
FROM "plan_attempts"
ORDER BY "run_id", "attempt" DESC
ON CONFLICT ("run_id", "task_key") DO NOTHING;
--> statement-breakpoint
INSERT INTO "attempts" ("task_id", "attempt", "mode", "phase", "workflow_run_id", "workflow_run_url", "conclusion", "intent_at", "dispatched_at", "completed_at")
SELECT "tasks"."id", "plan_attempts"."attempt", 'plan', "plan_attempts"."phase", "plan_attempts"."workflow_run_id", "plan_attempts"."workflow_run_url", "plan_attempts"."conclusion", "plan_attempts"."intent_at", "plan_attempts"."dispatched_at", "plan_attempts"."completed_at"
FROM "plan_attempts"
JOIN "tasks" ON "tasks"."run_id" = "plan_attempts"."run_id" AND "tasks"."task_key" = 'plan' AND "tasks"."type" = 'plan';
--> statement-breakpoint
DROP TABLE "plan_attempts" CASCADE;
