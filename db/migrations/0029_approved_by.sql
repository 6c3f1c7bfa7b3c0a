-- Who gave a task's approval: it counts at merge time only while they still have write access.
-- Approvals recorded before this column have none and count as they did.
ALTER TABLE "tasks" ADD COLUMN "approved_by" text;
