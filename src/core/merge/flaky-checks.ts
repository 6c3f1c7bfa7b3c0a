/** A completed check that did not pass, and whether GitHub can re-run it. */
export interface FailingCheck {
  name: string;
  /** A job of a GitHub Actions workflow run: `rerun-failed-jobs` runs it again. */
  rerunnable: boolean;
}

export type ChecksRerunVerdict =
  { kind: 'rerun'; names: string[] } | { kind: 'send_back'; why: string };

/**
 * Failing checks on a head get `checks.rerunFailed` more chances before the task goes back to
 * its worker (docs/configuration.md): a flaky test should not cost an attempt. Only when every
 * failing check is an Actions job: a check nothing can re-run sends the task back anyway, and
 * the worker then hears about all of them at once.
 */
export function decideChecksRerun(
  failing: readonly FailingCheck[],
  policy: { rerunsForHead: number; rerunFailed: number },
): ChecksRerunVerdict {
  if (failing.length === 0) return { kind: 'send_back', why: 'no failing check' };
  const fixed = failing.filter((c) => !c.rerunnable).map((c) => c.name);
  if (fixed.length > 0) return { kind: 'send_back', why: `not re-runnable: ${fixed.join(', ')}` };
  if (policy.rerunsForHead >= policy.rerunFailed) {
    return {
      kind: 'send_back',
      why:
        policy.rerunFailed === 0
          ? 'checks.rerunFailed is 0'
          : `re-run ${policy.rerunsForHead} time${policy.rerunsForHead === 1 ? '' : 's'} already`,
    };
  }
  return { kind: 'rerun', names: failing.map((c) => c.name) };
}
