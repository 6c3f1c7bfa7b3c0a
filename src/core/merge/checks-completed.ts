import { nothing, type NoEffect } from '../no-effect.js';
import { isOrderCheck } from './order-check.js';

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

/**
 * A `check_run.completed` or `check_suite.completed` payload, read defensively: ingest sees it as
 * any JSON. A check suite has no name.
 */
export interface CheckResultFacts {
  /** The check run's name. */
  name?: string;
  /** The GitHub App whose check run or suite this is. */
  appId?: number;
  headSha?: string;
}

export function checkResultFactsOf(
  event: 'check_run' | 'check_suite',
  payload: Record<string, unknown>,
): CheckResultFacts {
  const check = record(payload[event]);
  const app = record(check.app);
  return {
    ...(typeof check.name === 'string' ? { name: check.name } : {}),
    ...(typeof app.id === 'number' ? { appId: app.id } : {}),
    ...(typeof check.head_sha === 'string' && check.head_sha ? { headSha: check.head_sha } : {}),
  };
}

/**
 * Which completed check results re-decide merges (docs/lifecycle.md step 9): those of a head,
 * except the coordinator's own (its order checks: it wrote their results itself, and no merge
 * decision waits on them). Ingest stores the others as handled (`webhooks/handled-events.ts`);
 * `ownAppId` unknown takes none for the App's own but the order check, by its name.
 */
export function decideCheckResult(
  facts: CheckResultFacts,
  ownAppId: number | undefined,
): [{ kind: 'decideHead'; sha: string }] | [NoEffect] {
  if (isOrderCheck(facts))
    return nothing('the order check is the coordinator’s own: no merge waits on its result');
  if (ownAppId !== undefined && facts.appId === ownAppId)
    return nothing('a check result of this App: no merge waits on it');
  if (facts.headSha === undefined) return nothing('the payload names no head');
  return [{ kind: 'decideHead', sha: facts.headSha }];
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}
