import { summarizeChecks } from '../merge/checks.js';
import type { MergeCheck } from '../merge/types.js';

/**
 * A PR head a task may stack on: no check pending or failing, as for a merge (a head with none
 * counts as green; our own order check left out by the caller).
 */
export function checksLetStack(
  checks: readonly { name: string; status: string; conclusion: string | null }[],
): boolean {
  const { pending, failing } = summarizeChecks(
    checks.map((c) => ({ ...c, status: c.status as MergeCheck['status'] })),
  );
  return pending.length === 0 && failing.length === 0;
}
