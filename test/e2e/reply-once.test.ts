import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  APP_BOT,
  closeScenario,
  MAINTAINER,
  ONE_TASK_PLAN,
  REPO,
  repositoryIdOf,
  startRun,
  startScenario,
  type Scenario,
  workerOpensPr,
} from './harness.js';
import { answerMarker } from '../../src/core/commands/index.js';

type Comment = { id: number; body: string; user: { login: string } };

const OUTSIDER = 'outsider';
const TRIAGER = 'triager';
const CUT_SHORT = new Error('connection to the database lost');

/**
 * docs/commands.md, "Each comment once": a delivery handled again after its answer was posted,
 * but before the answer was recorded, finds the answer by its marker and posts it no second time.
 */
describe('an answer posted once when its handling is cut short after it', () => {
  let s: Scenario;
  afterEach(async () => {
    vi.restoreAllMocks();
    await closeScenario(s);
  });

  /** A scenario with no worker, and OUTSIDER a reader of the repository. */
  const open = async () => {
    s = await startScenario();
    s.double.setWorker(null);
    await s.double.setPermission(REPO, OUTSIDER, 'read');
  };
  const start = async () => {
    await open();
    return startRun(s, { title: 'Feature' });
  };
  const replies = (issue: number) =>
    (s.double.comments(REPO, issue) as Comment[]).filter(
      (c) => c.user.login === APP_BOT && c.body.startsWith('@'),
    );
  const commentReads = (issue: number) =>
    s.double.requests.filter(
      (r) => r.method === 'GET' && r.path.endsWith(`/issues/${issue}/comments`),
    ).length;
  const commandLog = async () => s.app.store.commands.ofRepository(repositoryIdOf(s.double));

  it.each([
    ['someone with write access', MAINTAINER, /^@maintainer `\/approve`: /],
    ['someone without write access', OUTSIDER, /^@outsider `\/approve`: only people with write/],
  ])('replies once to %s', async (_, author, reply) => {
    const issue = await start();
    const answered = vi.spyOn(s.app.store.commands, 'answered').mockRejectedValueOnce(CUT_SHORT);
    const command = await s.double.comment(REPO, issue, '/approve zz', author);
    await s.settle();

    // Handled twice: the second handling recorded the answer the first one posted.
    expect(answered).toHaveBeenCalledTimes(2);
    expect(replies(issue).map((c) => c.body)).toEqual([expect.stringMatching(reply) as string]);
    expect(replies(issue)[0]!.body.endsWith(answerMarker(command))).toBe(true);
    const log = await commandLog();
    expect(log.map((c) => [c.commentId, c.accepted, c.answeredAt !== null])).toEqual([
      [command, false, true],
    ]);
  });

  it('reads no comments to answer a command handled once', async () => {
    const issue = await start();
    const before = commentReads(issue);
    await s.double.comment(REPO, issue, '/approve zz', OUTSIDER);
    await s.settle();
    expect(replies(issue)).toHaveLength(1);
    expect(commentReads(issue)).toBe(before);
  });

  /**
   * The first delivery of `event.action` is handled, its answer posted, and the inbox fails to
   * mark it done: it is handled again. Returns how often the inbox was asked to mark it done.
   */
  const failToMarkDoneOnce = (event: string, action: string) => {
    const { deliveries } = s.app.store;
    const complete = deliveries.complete.bind(deliveries);
    const guid = () => s.double.deliveries({ event, action })[0]?.guid;
    let completions = 0;
    vi.spyOn(deliveries, 'complete').mockImplementation(async (id) => {
      if (id !== guid()) return complete(id);
      completions++;
      if (completions === 1) throw CUT_SHORT;
      return complete(id);
    });
    return () => completions;
  };

  it('tells someone without write access once that their label started nothing', async () => {
    await open();
    const issue = await s.double.openIssue(REPO, {
      title: 'Feature',
      body: ONE_TASK_PLAN,
      user: MAINTAINER,
    });
    await s.settle();
    const completions = failToMarkDoneOnce('issues', 'labeled');
    await s.double.addLabel(REPO, issue, 'agent', OUTSIDER);
    await s.settle();

    expect(completions()).toBe(2);
    expect(replies(issue).map((c) => c.body)).toEqual([
      expect.stringMatching(/^@outsider only people with write access can start/) as string,
    ]);
    expect(await s.app.store.runs.latestRun(repositoryIdOf(s.double), issue)).toBeUndefined();
  });

  it('tells a triager once that their close of an agent PR is refused', async () => {
    s = await startScenario();
    await s.double.setPermission(REPO, TRIAGER, 'triage');
    const { pr } = await workerOpensPr(s);
    // GitHub refuses to open the PR again, in both handlings: it stays closed, the close refused.
    s.double.faults.add({
      method: 'PATCH',
      path: new RegExp(`/pulls/${pr}$`),
      status: 422,
      times: 2,
    });
    const completions = failToMarkDoneOnce('pull_request', 'closed');
    await s.double.closePr(REPO, pr, TRIAGER);
    await s.settle();

    expect(completions()).toBe(2);
    expect(s.double.faults.pending).toBe(0);
    expect(replies(pr).map((c) => c.body)).toEqual([
      expect.stringMatching(
        /^@triager closing the pull request does not reject .* GitHub refused/,
      ) as string,
    ]);
  });
});
