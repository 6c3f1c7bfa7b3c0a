import type { MergeCheck } from './types.js';

// Conclusions GitHub itself treats as passing for required checks.
const PASSING = new Set(['success', 'neutral', 'skipped']);

export interface ChecksSummary {
  /** Names of checks not completed yet, each once, in input order. */
  pending: string[];
  /** Names of completed checks that did not pass, each once, in input order. */
  failing: string[];
}

/** A completed check that did not pass; a null conclusion on a completed check is not a pass. */
export function isFailingCheck(check: { status: string; conclusion: string | null }): boolean {
  return check.status === 'completed' && !PASSING.has(check.conclusion ?? '');
}

/** A head with no checks is green: both lists empty. */
export function summarizeChecks(checks: readonly MergeCheck[]): ChecksSummary {
  const pending = new Set<string>();
  const failing = new Set<string>();
  for (const check of checks) {
    if (check.status !== 'completed') pending.add(check.name);
    else if (isFailingCheck(check)) failing.add(check.name);
  }
  return { pending: [...pending], failing: [...failing] };
}
