import type { Engine, RunScope } from './context.js';

/**
 * docs/configuration.md budget: once the summed spend of all attempts reaches `budget.maxCostUsdPerRun`, the
 * run is held — nothing new is dispatched, merges go on — until someone `/unhold`s it.
 */
export async function enforceBudget(
  engine: Engine,
  scope: RunScope,
  /** The run's spend, when the caller read it along with its own write. */
  known?: number,
): Promise<boolean> {
  // The run as the delivery read it: a change since is caught by the hold's own guard.
  const { run } = scope;
  if (run.finishedAt || run.budgetWaived || run.state !== 'running') return false;
  const spent = known ?? (await engine.store.attempts.spentByRun(run.id));
  const budget = scope.config.budget.maxCostUsdPerRun;
  if (spent < budget) return false;
  const reason = `budget reached: $${spent.toFixed(2)} of $${budget.toFixed(2)} spent`;
  // State `held` stops dispatch; the `held` flag (a person's /hold) stays off so merges go on.
  if (!(await engine.store.runs.holdForBudget(run.id, reason))) return false;
  await scope.port.createIssueComment(
    scope.repo,
    run.issueNumber,
    `**agent-coordinator**: ${reason}. Nothing new will be dispatched; open PRs can still merge. Raise \`budget.maxCostUsdPerRun\` or comment \`/unhold\` to go on.`,
  );
  engine.log.warn({ run: run.id, spent, budget }, 'run held: budget reached');
  engine.requestStatus(run.id);
  return true;
}
