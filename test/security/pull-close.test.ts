import { afterEach, describe, expect, it } from 'vitest';
import {
  CHAIN_OF_TWO,
  closeScenario,
  MAINTAINER,
  REPO,
  startRun,
  startScenario,
  type Scenario,
} from '../e2e/harness.js';
import { APP_BOT, comments, prOf, pulls, taskState } from './security-helpers.js';
import { answerText } from '../helpers/answer-text.js';

const TRIAGER = 'triager';

/**
 * GitHub lets the triage role close any pull request. Closing an agent PR rejects its task and
 * blocks what depends on it, as `/veto` would, so only people with write access may
 * (docs/lifecycle.md): a triager's close is refused, the PR opened again.
 */
describe('closing an agent PR without write access', () => {
  let s: Scenario;
  afterEach(async () => {
    s.double.assertNoViolations();
    await closeScenario(s);
  });

  const start = async () => {
    s = await startScenario({ private: false });
    await s.double.setPermission(REPO, TRIAGER, 'triage');
    s.double.setWorker(() => ({ kind: 'pr' }));
    const issue = await startRun(s, { body: CHAIN_OF_TWO });
    expect(await taskState(s, issue, 'a')).toBe('in_review');
    return { issue, pr: prOf(s, issue, 'a')!.number };
  };
  const stateOf = (pr: number) => pulls(s).find((p) => p.number === pr)?.state;
  const replies = (pr: number) =>
    comments(s, pr).filter((c) => c.user.login === APP_BOT && c.body.startsWith('@'));

  it('rejects nothing: the PR is opened again, the triager told once, and it still merges', async () => {
    const { issue, pr } = await start();
    await s.double.closePr(REPO, pr, TRIAGER);
    await s.settle();
    expect(stateOf(pr)).toBe('open');
    expect(await taskState(s, issue, 'a')).toBe('in_review');
    expect(await taskState(s, issue, 'b')).toBe('pending');
    expect(replies(pr).map((c) => answerText(c.body))).toEqual([
      '@triager closing the pull request does not reject its agent-coordinator task: only people with write access can (your role: triage); it was reopened.',
    ]);

    await s.double.comment(REPO, pr, '/approve', MAINTAINER);
    await s.settle();
    expect(await taskState(s, issue, 'a')).toBe('merged');
  });

  it('opens it again as often as the refusal budget answers, then leaves it closed for a writer', async () => {
    const { issue, pr } = await start();
    const reopensByApp = () =>
      s.double
        .deliveries({ event: 'pull_request', action: 'reopened' })
        .filter((d) => (d.payload.sender as { login: string }).login === APP_BOT);
    // Each reopen is a write of the installation's and runs the PR's workflows again as the App's.
    for (let close = 0; close < 5; close++) {
      await s.double.closePr(REPO, pr, TRIAGER);
      await s.settle();
    }
    expect(reopensByApp()).toHaveLength(1);
    expect(replies(pr)).toHaveLength(1);
    expect(stateOf(pr)).toBe('closed');
    expect(await taskState(s, issue, 'a')).toBe('in_review');
    expect(await taskState(s, issue, 'b')).toBe('pending');

    // A writer opens it again, and it goes on.
    await s.double.reopenPr(REPO, pr, MAINTAINER);
    await s.double.comment(REPO, pr, '/approve', MAINTAINER);
    await s.settle();
    expect(await taskState(s, issue, 'a')).toBe('merged');
  });

  it('says so when GitHub refuses to open the PR again, and rejects nothing', async () => {
    const { issue, pr } = await start();
    // GitHub's 422 to a reopen: the head branch gone, or an open PR with the same head and base.
    s.double.faults.add({
      method: 'PATCH',
      path: new RegExp(`/pulls/${pr}$`),
      status: 422,
      times: 1,
    });
    await s.double.closePr(REPO, pr, TRIAGER);
    await s.settle();
    expect(stateOf(pr)).toBe('closed');
    expect(await taskState(s, issue, 'a')).toBe('in_review');
    expect(replies(pr).map((c) => answerText(c.body))).toEqual([
      '@triager closing the pull request does not reject its agent-coordinator task: only people with write access can (your role: triage); GitHub refused to open it again, so it waits for someone with write access.',
    ]);
  });

  it('a maintainer’s close still rejects the task and blocks its dependents', async () => {
    const { issue, pr } = await start();
    await s.double.closePr(REPO, pr, MAINTAINER);
    await s.settle();
    expect(stateOf(pr)).toBe('closed');
    expect(await taskState(s, issue, 'a')).toBe('rejected');
    expect(await taskState(s, issue, 'b')).toBe('blocked');
    expect(replies(pr)).toEqual([]);
  });
});
