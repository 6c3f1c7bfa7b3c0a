-- The stack parent's PR an attempt was dispatched on (docs/stacking.md): its publish job accepts a
-- start from that PR's commits, which a squash or rebase merge of the parent leaves off the base.
ALTER TABLE "attempts" ADD COLUMN "stack_parent_pr" integer;