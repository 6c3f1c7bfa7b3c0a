import { afterEach, describe, expect, it } from 'vitest';
import { closeScenario, MAINTAINER, REPO, startScenario, type Scenario } from './harness.js';

const CHAIN = [
  '```tasks',
  '- id: a',
  '  title: A',
  '- id: b',
  '  title: B',
  '  deps: [a]',
  '- id: c',
  '  title: C',
  '  deps: [b]',
  '```',
].join('\n');

/**
 * What the coordinator reads of each agent PR (issue 25: GitHub's primary limit binds): the
 * opened delivery's PR is taken as delivered, and the attempt's completion reads the PR once,
 * by number, for the merge decision that follows. The checks are read once a head.
 */
describe('reads of agent PRs (GitHub double)', () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  it('reads each PR once from its worker run to its merge, and never looks it up by branch', async () => {
    s = await startScenario({ config: 'merge:\n  requireApproval: false\n' });
    s.double.setWorker(() => ({ kind: 'pr', costUsd: 0.1 }));
    const issue = await s.double.openIssue(REPO, { title: 'Chain', body: CHAIN, user: MAINTAINER });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();
    expect((s.double.issue(REPO, issue) as { state: string }).state).toBe('closed');

    const pulls = s.double.pulls(REPO) as Array<{ number: number; merged: boolean }>;
    expect(pulls).toHaveLength(3);
    const app = s.double.requests.filter((r) => r.actor !== MAINTAINER);
    const count = (route: string) => app.filter((r) => r.route === route).length;
    for (const pull of pulls) {
      expect(pull.merged).toBe(true);
      expect(
        app.filter(
          (r) =>
            r.route === 'GET /repos/{owner}/{repo}/pulls/{pull_number}' &&
            r.path.endsWith(`/pulls/${pull.number}`),
        ),
      ).toHaveLength(1);
    }
    expect(count('GET /repos/{owner}/{repo}/pulls')).toBe(0);
    expect(count('GET /repos/{owner}/{repo}/commits/{ref}/check-runs')).toBe(3);
    expect(count('GET /repos/{owner}/{repo}/commits/{ref}/status')).toBe(3);
  });
});
