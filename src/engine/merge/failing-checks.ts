import { decideChecksRerun } from '../../core/merge/index.js';
import { isCheckPending } from '../../core/lifecycle/index.js';
import type { CheckInfo } from '../../github/port.js';
import type { PullRow } from '../../store/pulls.js';
import type { Engine, RunScope } from '../context.js';
import { checksFeedbackOf } from '../feedback.js';
import type { MergeTarget } from './merge-target.js';
import { sendBack } from './outcomes.js';

/**
 * Failing checks: a flaky Actions job gets `checks.rerunFailed` re-runs on the same head first,
 * which spend no attempt (docs/configuration.md); then the task goes back to its worker with
 * what each check says (title, summary, annotations, the end of the job's log).
 */
export async function sendBackFailingChecks(
  engine: Engine,
  scope: RunScope,
  target: MergeTarget,
  feedback: string,
  names: readonly string[],
): Promise<void> {
  const failing = target.checks.filter((c) => names.includes(c.name));
  const { row, pull } = target;
  const verdict = decideChecksRerun(
    failing.map((c) => ({ name: c.name, rerunnable: c.actionsJob !== null })),
    {
      rerunsForHead: row.checksRerunSha === pull.headSha ? row.checksReruns : 0,
      rerunFailed: scope.config.checks.rerunFailed,
    },
  );
  if (verdict.kind === 'rerun' && (await rerunFailedJobs(engine, scope, target, failing))) return;
  const checks = await checksFeedbackOf(engine, scope, failing);
  await sendBack(engine, scope, target, feedback, { checks });
}

/** Re-runs the failed jobs of each workflow run behind `failing`; false when GitHub would not. */
async function rerunFailedJobs(
  engine: Engine,
  scope: RunScope,
  { row, pull, task }: MergeTarget,
  failing: readonly CheckInfo[],
): Promise<boolean> {
  const log = engine.log.child({ run: scope.run.id, task: task.taskKey, pr: row.number });
  const names = failing.map((c) => c.name).join(', ');
  // Merge decisions of a repository take turns (advanceRun), so the count read is current.
  const claimed = await engine.store.pulls.claimChecksRerun(
    row.id,
    pull.headSha,
    scope.config.checks.rerunFailed,
    names,
  );
  if (!claimed) return false;
  for (const runId of new Set(failing.map((c) => c.actionsJob!.runId))) {
    const outcome = await scope.port.rerunFailedJobs(scope.repo, runId);
    // Someone clicked "Re-run failed jobs" first: it is being re-run all the same.
    if (outcome.ok || /already running/i.test(outcome.message)) continue;
    log.warn(
      { workflowRun: runId, status: outcome.status, message: outcome.message },
      'GitHub would not re-run the failed jobs; sending the task back',
    );
    await engine.store.pulls.update(row.id, { checksRerunning: null });
    return false;
  }
  log.info({ checks: names, head: pull.headSha }, 're-running failing checks (flaky?)');
  await statusChanged(engine, scope);
  return true;
}

// What the status comment shows changed: a refresh writes only a run whose wanted version is
// ahead of the one rendered, so asking for one is not enough.
async function statusChanged(engine: Engine, scope: RunScope): Promise<void> {
  await engine.store.runs.bumpStatus(scope.run.id);
  engine.requestStatus(scope.run.id);
}

/**
 * The status comment says a check is being re-run until its re-run completes (or the head
 * moves on): returns what `checksRerunning` is now.
 */
export async function settleRerun(
  engine: Engine,
  scope: RunScope,
  row: PullRow,
  headSha: string,
  checks: readonly CheckInfo[],
): Promise<string | null> {
  if (row.checksRerunning === null) return null;
  const names = row.checksRerunning.split(', ');
  const stillRunning =
    row.checksRerunSha === headSha &&
    checks.some((c) => names.includes(c.name) && isCheckPending(c));
  if (stillRunning) return row.checksRerunning;
  await engine.store.pulls.update(row.id, { checksRerunning: null });
  await statusChanged(engine, scope);
  return null;
}
