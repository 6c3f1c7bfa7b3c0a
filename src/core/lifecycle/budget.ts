/** The run as the budget rule sees it (docs/configuration.md `budget`). */
export interface BudgetedRun {
  state: string;
  finished: boolean;
  /** `/unhold` after a budget hold waives the budget for the rest of the run. */
  waived: boolean;
}

export interface BudgetSnapshot extends BudgetedRun {
  spentUsd: number;
  maxCostUsdPerRun: number;
}

/** Whether the run's spend can hold it at all: only a running run, its budget not waived. */
export function budgetApplies(run: BudgetedRun): boolean {
  return !run.finished && !run.waived && run.state === 'running';
}

export type BudgetDecision =
  | { kind: 'within'; reason: string }
  /** Hold the run: state `held` stops dispatch; merges go on (the person's `held` flag stays off). */
  | { kind: 'hold'; reason: string; comment: string };

/**
 * docs/configuration.md budget: once the summed spend of all attempts reaches
 * `budget.maxCostUsdPerRun`, the running run is held until someone `/unhold`s it.
 */
export function decideBudget(run: BudgetSnapshot): BudgetDecision {
  if (!budgetApplies(run)) return { kind: 'within', reason: 'the budget does not apply' };
  if (run.spentUsd < run.maxCostUsdPerRun) return { kind: 'within', reason: 'under budget' };
  const reason = `budget reached: $${run.spentUsd.toFixed(2)} of $${run.maxCostUsdPerRun.toFixed(2)} spent`;
  return {
    kind: 'hold',
    reason,
    comment: `**agent-coordinator**: ${reason}. Nothing new will be dispatched; open PRs can still merge. Raise \`budget.maxCostUsdPerRun\` or comment \`/unhold\` to go on.`,
  };
}
