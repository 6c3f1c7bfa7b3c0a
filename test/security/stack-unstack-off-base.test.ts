import { afterEach, describe, expect, it } from 'vitest';
import { userOctokit } from '../github-double-tests/helpers.js';
import {
  CHAIN_OF_TWO,
  closeScenario,
  MAINTAINER,
  OWNER,
  REPO,
  REPO_NAME,
  startStackedRun,
  taskOf,
  type Scenario,
} from '../e2e/harness.js';

type Pull = { number: number; merged?: boolean; head: { ref: string; sha: string } };

/**
 * docs/stacking.md, `unstack`: once the parent merged, a child whose PR no longer targets the
 * parent's branch is brought up to date with the run's base. Whoever may edit the child's PR (a
 * person, or a workflow token running the agent's code) may have pointed it at another branch
 * meanwhile. Updated from that branch, the child would hold its commits under the coordinator's
 * own push, which keeps the approval given to the child's diff against its parent: pointed back
 * at the base, it would land them there approved by nobody.
 */
describe('a stacked child retargeted to another branch before its parent merges', () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  it('is never updated from that branch, and merges only its own change once back on the base', async () => {
    const started = await startStackedRun(CHAIN_OF_TWO);
    s = started.s;
    const { issue } = started;
    const prOf = (task: string) =>
      (s.double.pulls(REPO) as Pull[]).find((p) => p.head.ref.endsWith(`/${task}`))!;
    const retarget = (pull: number, base: string) =>
      userOctokit(s.double, MAINTAINER).rest.pulls.update({
        owner: OWNER,
        repo: REPO_NAME,
        pull_number: pull,
        base,
      });
    await s.double.pushCommit(REPO, 'unreviewed', {
      message: 'Not reviewed by anyone',
      files: { 'src/unreviewed.txt': 'nobody approved this\n' },
      by: MAINTAINER,
    });
    const b = prOf('b');
    s.double.advanceClock(1_000);
    await s.double.comment(REPO, b.number, '/approve', MAINTAINER);
    await s.settle();
    expect((await taskOf(s, issue, 'b'))?.approvedSha).toBe(b.head.sha);

    await retarget(b.number, 'unreviewed');
    await s.settle();
    s.double.advanceClock(1_000);
    await s.double.comment(REPO, prOf('a').number, '/approve', MAINTAINER);
    await s.settle();
    expect((s.double.pull(REPO, prOf('a').number) as Pull).merged).toBe(true);

    // a merged: b is let go of its stack, but not brought up to date with the branch it targets.
    expect(s.double.file(REPO, prOf('b').head.ref, 'src/unreviewed.txt')).toBeUndefined();

    await retarget(b.number, 'main');
    await s.settle();
    await s.app.sweep();
    await s.settle();
    expect((s.double.pull(REPO, b.number) as Pull).merged).toBe(true);
    expect(s.double.file(REPO, 'main', 'src/b.txt')).toBe('b attempt 1\n');
    expect(s.double.file(REPO, 'main', 'src/unreviewed.txt')).toBeUndefined();
  });
});
