-- The repository's dispatch limit (concurrency.maxParallel) as its newest run saw its config,
-- read with the repository instead of from a run; filled from each repository's newest run.
ALTER TABLE "repositories" ADD COLUMN "max_parallel" integer;--> statement-breakpoint
UPDATE "repositories" SET "max_parallel" = (
  SELECT ("runs"."config" -> 'concurrency' ->> 'maxParallel')::integer
    FROM "runs" WHERE "runs"."repository_id" = "repositories"."id"
   ORDER BY "runs"."id" DESC LIMIT 1
);
