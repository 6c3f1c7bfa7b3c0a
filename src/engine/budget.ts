import { budgetApplies, decideBudget } from '../core/lifecycle/index.js';
import type { Engine, RunScope } from './context.js';

/** Holds the run when core's budget rule says so (docs/configuration.md budget). */
export async function enforceBudget(
  engine: Engine,
  scope: RunScope,
  /** The run's spend, when the caller read it along with its own write. */
  known?: number,
): Promise<boolean> {
  // The run as the delivery read it: a change since is caught by the hold's own guard.
  const { run } = scope;
  const ruled = { state: run.state, finished: run.finishedAt !== null, waived: run.budgetWaived };
  // No need to read the spend of a run it cannot hold.
  if (!budgetApplies(ruled)) return false;
  const spentUsd = known ?? (await engine.store.attempts.spentByRun(run.id));
  const maxCostUsdPerRun = scope.config.budget.maxCostUsdPerRun;
  const decision = decideBudget({ ...ruled, spentUsd, maxCostUsdPerRun });
  if (decision.kind === 'within') return false;
  if (!(await engine.store.runs.holdForBudget(run.id, decision.reason))) return false;
  await scope.port.createIssueComment(scope.repo, run.issueNumber, decision.comment);
  engine.log.warn(
    { run: run.id, spent: spentUsd, budget: maxCostUsdPerRun },
    'run held: budget reached',
  );
  engine.requestStatus(run.id);
  return true;
}
