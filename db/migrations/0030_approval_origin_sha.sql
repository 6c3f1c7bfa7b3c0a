-- The commit a task's approval was given on, kept when the coordinator's update carries the
-- approval to its head: a dismissed review takes back the approval given on its commit.
-- Approvals recorded before this column have none; their approved_sha stands for it.
ALTER TABLE "tasks" ADD COLUMN "approval_origin_sha" text;
