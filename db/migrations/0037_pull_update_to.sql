-- The merge commit GitHub answered the coordinator's update of a PR's branch with (POST /merges):
-- only a push to exactly that commit carries the approval of the head it merged the base into. An
-- update recorded before this column, whose answer it never held, is spent at its run's next merge
-- turn: its push is taken for new work.
ALTER TABLE "pull_requests" ADD COLUMN "updated_by_coordinator_to" text;