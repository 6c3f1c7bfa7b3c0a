import { afterEach, describe, expect, it } from 'vitest';
import { userOctokit } from '../github-double-tests/helpers.js';
import {
  CHAIN_OF_TWO,
  closeScenario,
  MAINTAINER,
  OWNER,
  REPO,
  REPO_NAME,
  repositoryIdOf,
  startRun,
  startScenario,
  statusComment,
  taskOf,
  type Scenario,
} from './harness.js';

type Pull = { number: number; state: string; merged?: boolean; head: { ref: string } };

/**
 * docs/lifecycle.md "Which base counts": a task is merged when its PR merged into the run's base.
 * Someone with write access may retarget an agent PR; the App never merges it there, and a merge
 * there by hand does not free the task's dependents, whose change would reach the base without it.
 */
describe('an agent PR retargeted off the run’s base (GitHub double)', () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  const pulls = () => s.double.pulls(REPO) as Pull[];
  const prOf = (task: string) => pulls().find((p) => p.head.ref.endsWith(`/${task}`))!;

  // A run recorded before its base was (a crash between the run's row and its base) merges into
  // the default branch, and is judged so by the merge, the close and the status comment alike.
  it.each([
    { base: 'recorded', forget: false },
    { base: 'not recorded', forget: true },
  ])(
    'is not merged by the App, and a merge there by hand rejects its task and blocks the rest (base $base)',
    async ({ forget }) => {
      s = await startScenario();
      s.double.setWorker(() => ({ kind: 'pr' }));
      await s.double.pushCommit(REPO, 'release', { message: 'Release line', by: MAINTAINER });
      const issue = await startRun(s, { body: CHAIN_OF_TWO });
      if (forget) {
        const run = await s.app.store.runs.latestRun(repositoryIdOf(s.double), issue);
        await s.app.store.runs.updateRun(run!.id, { baseBranch: null });
      }
      const a = prOf('a');

      await userOctokit(s.double, MAINTAINER).rest.pulls.update({
        owner: OWNER,
        repo: REPO_NAME,
        pull_number: a.number,
        base: 'release',
      });
      s.double.advanceClock(1_000);
      await s.double.comment(REPO, a.number, '/approve', MAINTAINER);
      await s.settle();

      // Approved and green, but into another branch: it waits.
      expect(prOf('a')).toMatchObject({ state: 'open', merged: false });
      expect((await taskOf(s, issue, 'a'))?.state).toBe('approved');
      expect(s.double.runs(REPO)).toHaveLength(1);
      await s.double.comment(REPO, issue, '/status', MAINTAINER);
      await s.settle();
      expect(statusComment(s.double, issue)).toContain("targets release, not the run's base main");

      await s.double.mergePrByHand(REPO, a.number, MAINTAINER);
      await s.settle();

      expect((await taskOf(s, issue, 'a'))?.state).toBe('rejected');
      expect((await taskOf(s, issue, 'b'))?.state).toBe('blocked');
      // b was never dispatched: its change cannot reach main without a's.
      expect(s.double.runs(REPO)).toHaveLength(1);
    },
  );
});
