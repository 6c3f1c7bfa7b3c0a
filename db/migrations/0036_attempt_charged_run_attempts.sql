-- A person's re-run of a worker run's jobs (run_attempt 2 and on) runs the agent again: each
-- re-run's spend is charged to the attempt once, and the attempt keeps which were.
ALTER TABLE "attempts" ADD COLUMN "charged_run_attempts" integer[] DEFAULT '{}'::integer[] NOT NULL;
