-- The head GitHub refused the App's update-branch at with a 403 (a merge it may not push, such as a
-- workflow file's change) and GitHub's message: the PR waits for a person's push at that head.
ALTER TABLE "pull_requests" ADD COLUMN "update_refused_sha" text;--> statement-breakpoint
ALTER TABLE "pull_requests" ADD COLUMN "update_refused_message" text;