import { afterEach, describe, expect, it } from 'vitest';
import {
  closeScenario,
  OWNER,
  MAINTAINER,
  REPO,
  repositoryIdOf,
  startRun,
  startScenario,
  type Scenario,
  ONE_TASK_PLAN,
} from './harness.js';
import { REFUSAL_REPLY_LIMITS } from '../../src/core/commands/index.js';
import { answerText } from '../helpers/answer-text.js';

type Comment = { id: number; body: string; user: { login: string } };

const APP_BOT = 'agent-coordinator[bot]';
const HOUR = 60 * 60_000;

/**
 * People without write access get one refusal reply per issue an hour; what they post after is
 * recorded in the command log, not answered, so nobody can spend the installation's writes.
 */
describe('the refusal reply budget', () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  const start = async () => {
    s = await startScenario();
    s.double.setWorker(null);
    return startRun(s, { title: 'Feature' });
  };
  const replies = (issue: number) =>
    (s.double.comments(REPO, issue) as Comment[]).filter(
      (c) => c.user.login === APP_BOT && c.body.startsWith('@'),
    );
  const refusals = async () =>
    (await s.app.store.commands.ofRepository(repositoryIdOf(s.double))).filter((c) => !c.accepted);
  const flood = async (issue: number, authors: string[]) => {
    await Promise.all(authors.map((by) => s.double.comment(REPO, issue, '/approve a', by)));
    await s.settle();
  };

  it(
    'answers a flood of 100 commands from one outsider once, and records all of them',
    { timeout: 60_000 },
    async () => {
      const issue = await start();
      await flood(issue, Array<string>(100).fill('outsider'));
      expect(replies(issue)).toHaveLength(1);
      expect(replies(issue)[0]!.body).toMatch(/^@outsider `\/approve`: only people with write/);
      const log = await refusals();
      expect(log).toHaveLength(100);
      expect(log.every((c) => c.actorLogin === 'outsider' && c.name === 'approve')).toBe(true);
      expect(log.filter((c) => c.outcome?.includes('not answered'))).toHaveLength(99);

      // An hour on, the next one is answered again.
      s.clock.advance(HOUR + 1);
      await flood(issue, ['outsider']);
      expect(replies(issue)).toHaveLength(2);
    },
  );

  it('answers each of 20 outsiders once', async () => {
    const issue = await start();
    const outsiders = Array.from({ length: 20 }, (_, i) => `outsider-${i}`);
    await flood(issue, [...outsiders, ...outsiders]);
    expect(
      replies(issue)
        .map((c) => c.body.split(' ')[0])
        .sort(),
    ).toEqual(outsiders.map((o) => `@${o}`).sort());
    expect(await refusals()).toHaveLength(40);
  });

  // Anyone can comment on every issue and PR of a public repository: one reply per issue alone
  // would let one account have the coordinator write once for each of them.
  const commentEverywhere = async (issues: number, authors: (i: number) => string) => {
    s = await startScenario({ private: false });
    const numbers: number[] = [];
    for (let i = 0; i < issues; i++)
      numbers.push(await s.double.openIssue(REPO, { title: `Old ${i}`, user: MAINTAINER }));
    await Promise.all(numbers.map((n, i) => s.double.comment(REPO, n, '/help', authors(i))));
    await s.settle();
    return numbers.flatMap((n) => replies(n));
  };

  it('answers one outsider on at most 3 issues an hour', async () => {
    const sent = await commentEverywhere(10, () => 'outsider');
    expect(sent).toHaveLength(REFUSAL_REPLY_LIMITS.perPerson);
    expect(await refusals()).toHaveLength(10);
  });

  it('answers at most 30 refusals an hour in the installation, however many accounts', async () => {
    const sent = await commentEverywhere(40, (i) => `outsider-${i}`);
    expect(sent).toHaveLength(REFUSAL_REPLY_LIMITS.perInstallation);
    expect(await refusals()).toHaveLength(40);
  });

  it('counts a refused label against the same budget', async () => {
    const issue = await start();
    const other = await s.double.openIssue(REPO, { title: 'Another', user: 'outsider' });
    await s.double.addLabel(REPO, other, 'agent', 'outsider');
    await s.double.removeLabel(REPO, other, 'agent', 'outsider');
    await s.double.addLabel(REPO, other, 'agent', 'outsider');
    await s.double.comment(REPO, other, '/approve', 'outsider');
    await s.settle();
    expect(replies(other)).toHaveLength(1);
    expect(replies(other)[0]!.body).toContain('only people with write access can start');
    expect((await refusals()).map((c) => c.name)).toEqual(['label', 'label', 'approve']);
    expect(replies(issue)).toEqual([]);
  });
});

// Deliveries of different repositories are handled side by side (src/store/deliveries.ts): the
// installation's budget holds across them, not only within one repository's turn.
describe('the refusal reply budget across the repositories of one installation', () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  it('answers one outsider commenting in 8 repositories at once on at most 3 issues', async () => {
    s = await startScenario({ private: false });
    const repos = [REPO];
    for (let i = 1; i < 8; i++)
      repos.push(await s.double.createRepo({ owner: OWNER, name: `widgets-${i}`, private: false }));
    const issues = await Promise.all(
      repos.map((repo) => s.double.openIssue(repo, { title: 'Old', user: MAINTAINER })),
    );
    await s.settle();
    await Promise.all(
      repos.map((repo, i) => s.double.comment(repo, issues[i]!, '/help', 'outsider')),
    );
    await s.settle();
    const sent = repos.flatMap((repo, i) =>
      (s.double.comments(repo, issues[i]!) as Comment[]).filter((c) => c.user.login === APP_BOT),
    );
    expect(sent).toHaveLength(REFUSAL_REPLY_LIMITS.perPerson);
    const recorded = await Promise.all(
      repos.map((repo) =>
        s.app.store.commands.ofRepository((s.double.repository(repo) as { id: number }).id),
      ),
    );
    expect(recorded.flat().filter((c) => c.actorLogin === 'outsider')).toHaveLength(8);
  });

  it('opens again the agent PRs one triager closes in 8 repositories at once on at most 3', async () => {
    s = await startScenario({ private: false });
    s.double.setWorker(() => ({ kind: 'pr' }));
    const repos = [REPO];
    for (let i = 1; i < 8; i++)
      repos.push(await s.double.createRepo({ owner: OWNER, name: `widgets-${i}`, private: false }));
    const prs = await Promise.all(
      repos.map(async (repo) => {
        await s.double.setPermission(repo, MAINTAINER, 'maintain');
        await s.double.setPermission(repo, 'triager', 'triage');
        const issue = await s.double.openIssue(repo, {
          title: 'Feature',
          body: ONE_TASK_PLAN,
          user: MAINTAINER,
        });
        await s.double.addLabel(repo, issue, 'agent', MAINTAINER);
        return issue;
      }),
    );
    await s.settle();
    const numbers = repos.map((repo, i) => {
      const pull = (s.double.pulls(repo) as { number: number; head: { ref: string } }[]).find(
        (p) => p.head.ref === `agent/${prs[i]}/a`,
      );
      expect(pull, repo).toBeDefined();
      return pull!.number;
    });

    // Each reopen is a write of the installation's and runs the PR's workflows again as the App's.
    await Promise.all(repos.map((repo, i) => s.double.closePr(repo, numbers[i]!, 'triager')));
    await s.settle();
    const reopened = s.double
      .deliveries({ event: 'pull_request', action: 'reopened' })
      .filter((d) => (d.payload.sender as { login: string }).login === APP_BOT);
    expect(reopened).toHaveLength(REFUSAL_REPLY_LIMITS.perPerson);
    const sent = repos.flatMap((repo, i) =>
      (s.double.comments(repo, numbers[i]!) as Comment[]).filter(
        (c) => c.user.login === APP_BOT && c.body.startsWith('@triager'),
      ),
    );
    expect(sent).toHaveLength(REFUSAL_REPLY_LIMITS.perPerson);
    expect(sent.every((c) => answerText(c.body).endsWith('; it was reopened.'))).toBe(true);
    const recorded = await Promise.all(
      repos.map((repo) =>
        s.app.store.commands.ofRepository((s.double.repository(repo) as { id: number }).id),
      ),
    );
    const closes = recorded.flat().filter((c) => c.name === 'close');
    expect(closes).toHaveLength(8);
    expect(closes.filter((c) => c.outcome!.endsWith('; it was reopened'))).toHaveLength(
      REFUSAL_REPLY_LIMITS.perPerson,
    );
  });
});
