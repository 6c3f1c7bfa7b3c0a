import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MAINTAINER, REPO, startScenario, type Scenario } from '../e2e/harness.js';
import {
  APP_BOT,
  comments,
  latestRun,
  orderCheckOf,
  prOf,
  pulls,
  repositoryId,
  taskState,
  tasksBlock,
  type Pull,
} from './security-helpers.js';
import { answerBody } from '../../src/core/commands/index.js';

/**
 * docs/worker.md: a PR belongs to a task only if its head repository is the base repository and its
 * head ref is exactly that task's branch. Fork PRs, look-alike branches, copied task markers
 * and task branches of issues with no run are never agent PRs: no task is linked, commands on
 * them do nothing, they get no order check, the app never merges them, and their fate (merged
 * or closed by hand) moves no task.
 */
describe('PRs that are not agent PRs', () => {
  let s: Scenario;
  let issue: number;
  let noRunIssue: number;
  const WRITER = 'a-writer';
  const FORKER = 'a-forker';
  const marker = (n: number, task: string) =>
    `<!-- agent-coordinator:task issue=${n} task=${task} attempt=1 -->`;

  beforeAll(async () => {
    s = await startScenario({ private: false });
    await s.double.setPermission(REPO, WRITER, 'write');
    // c's first attempt is driven by hand (see the last test); every other attempt opens its PR.
    s.double.setWorker((run, ctx) =>
      run.branch.endsWith('/c') && ctx.dispatchesOnBranch === 1
        ? { kind: 'manual' }
        : { kind: 'pr' },
    );
    noRunIssue = await s.double.openIssue(REPO, { title: 'Unrelated', user: MAINTAINER });
    issue = await s.double.openIssue(REPO, {
      title: 'Login',
      body: tasksBlock([
        ['a', 'A'],
        ['c', 'C', ['a']],
        ['z', 'Z', ['c']],
      ]),
      user: MAINTAINER,
    });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();
    expect(await taskState(s, issue, 'a')).toBe('in_review');
    expect(await taskState(s, issue, 'c')).toBe('pending');
  });
  afterEach(() => s.double.assertNoViolations());
  afterAll(async () => s?.close());

  const task = async (key: string) => {
    const run = await latestRun(s, issue);
    return s.app.store.runs.task(run!.id, key);
  };
  const linked = (pr: number) => s.app.store.pulls.withTask(repositoryId(s), pr);
  const mergedByApp = () =>
    s.double
      .deliveries({ event: 'pull_request', action: 'closed' })
      .filter(
        (d) =>
          (d.payload.pull_request as { merged: boolean }).merged &&
          (d.payload.sender as { login: string }).login === APP_BOT,
      )
      .map((d) => (d.payload.pull_request as { number: number }).number);

  const LOOKALIKES: Array<{
    label: string;
    head: () => string;
    fromFork?: boolean;
    body?: () => string;
  }> = [
    { label: 'a fork PR on the task branch', head: () => `agent/${issue}/c`, fromFork: true },
    { label: 'agent-<issue>/c', head: () => `agent-${issue}/c` },
    // Under z, which is never dispatched here: git keeps no branch `agent/N/z` beside `agent/N/z/x`.
    { label: 'agent/<issue>/z/x', head: () => `agent/${issue}/z/x` },
    { label: 'Agent/<issue>/c', head: () => `Agent/${issue}/c` },
    { label: 'agent/0<issue>/c', head: () => `agent/0${issue}/c` },
    { label: 'agent/<issue>/C', head: () => `agent/${issue}/C` },
    { label: 'agent/<issue>/c- (no such task)', head: () => `agent/${issue}/c-` },
    {
      label: 'a PR whose body copies the task marker',
      head: () => 'feature/copied-marker',
      body: () => `Totally the worker.\n\n${marker(issue, 'c')}`,
    },
    {
      label: 'the right branch name for an issue with no run',
      head: () => `agent/${noRunIssue}/c`,
    },
  ];

  it.each(LOOKALIKES.map((l) => [l.label, l] as const))('%s', async (_, lookalike) => {
    const pr = await s.double.openPr(REPO, {
      head: lookalike.head(),
      title: 'Looks like an agent PR',
      body: lookalike.body?.() ?? marker(issue, 'c'),
      by: lookalike.fromFork ? FORKER : WRITER,
      ...(lookalike.fromFork ? { fromFork: true } : {}),
    });
    await s.settle();
    const sha = (s.double.pull(REPO, pr) as Pull).head.sha;

    // Not linked to any task; no order check.
    expect(await linked(pr)).toBeUndefined();
    expect((await task('c'))?.prNumber).toBeNull();
    expect(orderCheckOf(s, sha)).toBeUndefined();

    // /approve and an approving review from a maintainer do nothing; the reply says why.
    const id = await s.double.comment(REPO, pr, '/approve', MAINTAINER);
    await s.double.approvePr(REPO, pr, MAINTAINER);
    await s.settle();
    const said = comments(s, pr);
    expect(said.find((c) => c.id === id)?.reaction_contents).toEqual([]);
    expect(said.filter((c) => c.user.login === APP_BOT).map((c) => c.body)).toEqual([
      answerBody(`@${MAINTAINER} \`/approve\`: this pull request is not an agent task.`, id),
    ]);
    expect((await task('c'))?.state).toBe('pending');
    expect((await task('c'))?.approvedSha).toBeNull();
    expect(mergedByApp()).not.toContain(pr);
    expect(orderCheckOf(s, sha)).toBeUndefined();

    // Merged by hand: no task counts as merged, nothing is dispatched for it.
    await s.double.mergePrByHand(REPO, pr, MAINTAINER);
    await s.settle();
    expect((s.double.pull(REPO, pr) as Pull).merged).toBe(true);
    expect((await task('c'))?.state).toBe('pending');
    expect((await task('z'))?.state).toBe('pending');
    expect(s.double.runs(REPO).map((r) => r.head_branch)).toEqual([`agent/${issue}/a`]);
    expect(await latestRun(s, noRunIssue)).toBeUndefined();
  });

  it('a fork PR on the branch of a task with a real PR: the real PR stays the task PR', async () => {
    const real = prOf(s, issue, 'a')!;
    const fork = await s.double.openPr(REPO, {
      head: `agent/${issue}/a`,
      title: 'Mine instead',
      body: marker(issue, 'a'),
      by: FORKER,
      fromFork: true,
    });
    await s.settle();
    expect(await linked(fork)).toBeUndefined();
    expect((await task('a'))?.prNumber).toBe(real.number);
    // A person closing the look-alike rejects nothing.
    await s.double.closePr(REPO, fork, MAINTAINER);
    await s.settle();
    expect((await task('a'))?.state).toBe('in_review');
    expect((await latestRun(s, issue))?.state).toBe('running');
  });

  it('the real agent PRs still work, and a worker run that leaves only a fork PR has no PR', async () => {
    await s.double.comment(REPO, prOf(s, issue, 'a')!.number, '/approve', MAINTAINER);
    await s.settle();
    expect((await task('a'))?.state).toBe('merged');
    expect(mergedByApp()).toEqual([prOf(s, issue, 'a')!.number]);

    // c's first run ends "successfully" with only the fork PR on agent/<issue>/c: no_changes.
    const first = s.double.runs(REPO).find((r) => r.head_branch === `agent/${issue}/c`)!;
    await s.double.startWorkflowRun(first.id as number);
    await s.double.completeWorkflowRun(first.id as number, 'success');
    await s.settle();
    const attempts = await s.app.store.attempts.ofRun((await latestRun(s, issue))!.id);
    const cId = (await task('c'))!.id;
    expect(attempts.find((a) => a.taskId === cId && a.attempt === 1)?.failureReason).toBe(
      'no_changes',
    );

    // The retry opens the real PR: that one is linked and gets the order check.
    const real = prOf(s, issue, 'c')!;
    expect(real).toBeDefined();
    expect((await task('c'))?.prNumber).toBe(real.number);
    expect((await task('c'))?.state).toBe('in_review');
    expect(orderCheckOf(s, real.head.sha)).toMatchObject({
      status: 'in_progress',
      output: { title: `waiting for /approve of ${real.head.sha.slice(0, 7)}` },
    });
    expect(pulls(s).filter((p) => p.head.ref === `agent/${issue}/c`)).toHaveLength(2);
  });
});
