import { nothing, type NoEffect } from '../no-effect.js';

/** A run with an agent PR whose head the finished checks ran on, as the store has it. */
export interface ChecksCompletedRun {
  runId: number;
  finished: boolean;
}

export type ChecksCompletedEffect =
  | NoEffect
  /** Decide the run's merges again: its PR's checks changed. */
  | { kind: 'advance'; runId: number };

/**
 * Checks finished on a head (`check_run.completed`, `check_suite.completed`): each active run
 * with an agent PR of that head decides its merges again, once (docs/lifecycle.md step 9).
 */
export function decideChecksCompleted(snapshot: {
  runs: readonly ChecksCompletedRun[];
}): ChecksCompletedEffect[] {
  if (snapshot.runs.length === 0) return nothing('no agent PR has this head');
  const active = [...new Set(snapshot.runs.filter((r) => !r.finished).map((r) => r.runId))];
  if (active.length === 0) return nothing('the runs of the PRs with this head have finished');
  return active.map((runId) => ({ kind: 'advance', runId }));
}
