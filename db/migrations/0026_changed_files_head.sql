-- The PR head a task's changed files were read at (docs/lifecycle.md, "Overlapping files"): a head
-- learned later, whose push delivery was lost, has them read again.
ALTER TABLE "tasks" ADD COLUMN "changed_files_head" text;