import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  MAINTAINER,
  REPO,
  repositoryIdOf,
  startScenario,
  statusComment,
  taskOf,
  type Scenario,
  closeScenario,
  chaoticDelivery,
  DELIVERY_SEEDS,
  assignmentFor,
  ONE_TASK_PLAN,
} from './harness.js';

type Pull = { number: number; state: string; head: { ref: string; sha: string } };
type Comment = { id: number; body: string; user: { login: string }; reaction_contents: string[] };

const CHAIN = [
  '```tasks',
  '- id: a',
  '  title: A',
  '- id: b',
  '  title: B',
  '  deps: [a]',
  '```',
].join('\n');

/** The issue-level commands of docs/commands.md, replies, reactions and the command log. */
describe.each(DELIVERY_SEEDS)('commands on the issue (GitHub double, delivery seed %i)', (seed) => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  const repositoryId = () => repositoryIdOf(s.double);
  const pulls = () => s.double.pulls(REPO) as Pull[];
  const prOf = (task: string) => pulls().find((p) => p.head.ref.endsWith(`/${task}`));
  const task = (issue: number, key: string) => taskOf(s, issue, key);
  const comments = (n: number) => s.double.comments(REPO, n) as Comment[];
  const say = async (n: number, body: string, by = MAINTAINER) => {
    const id = await s.double.comment(REPO, n, body, by);
    await s.settle();
    return comments(n).find((c) => c.id === id)!;
  };
  const start = async (body: string, config?: string) => {
    s = await startScenario({ config, delivery: chaoticDelivery(seed) });
    s.double.setWorker(() => ({ kind: 'pr' }));
    const issue = await s.double.openIssue(REPO, { title: 'Feature', body, user: MAINTAINER });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();
    return issue;
  };

  it('approves a task by id from the issue, reacting to the command', async () => {
    const issue = await start(CHAIN);
    const command = await say(issue, '/approve a');
    expect(command.reaction_contents).toEqual(['agent-coordinator[bot]:+1']);
    expect((await task(issue, 'a'))?.state).toBe('merged');
    const log = await s.app.store.commands.ofRepository(repositoryId());
    expect(log.map((c) => [c.name, c.actorLogin, c.accepted])).toEqual([
      ['approve', MAINTAINER, true],
    ]);
  });

  it('vetoes and retries a task by id from the issue', async () => {
    const issue = await start(CHAIN);
    await say(issue, '/veto a not like this');
    expect((await task(issue, 'a'))?.vetoReason).toBe('not like this');
    expect((await task(issue, 'b'))?.state).toBe('blocked');
    await say(issue, '/retry a\nplease use the builder pattern\nand add tests');
    const runs = s.double.runs(REPO).filter((r) => r.head_branch === 'agent/1/a');
    expect(runs).toHaveLength(2);
    expect(runs[1]?.inputs.mode).toBe('fix');
    expect((await assignmentFor(s, runs[1]!)).feedback).toContain(
      'please use the builder pattern\nand add tests',
    );
    expect((await task(issue, 'b'))?.state).toBe('pending');
  });

  it('holds and resumes dispatch and merges for the run', async () => {
    const issue = await start(CHAIN);
    await say(issue, '/hold');
    expect((await s.app.store.runs.latestRun(repositoryId(), issue))?.state).toBe('held');
    await say(prOf('a')!.number, '/approve');
    expect((await task(issue, 'a'))?.state).not.toBe('merged');
    await say(issue, '/unhold');
    expect((await task(issue, 'a'))?.state).toBe('merged');
    expect(s.double.runs(REPO).some((r) => r.head_branch === 'agent/1/b')).toBe(true);
  });

  it('carries out a comment’s commands once: a replay under a new delivery id or an edit does nothing', async () => {
    const issue = await start(CHAIN);
    const a = prOf('a')!;
    const hold = await say(a.number, '/hold');
    await say(a.number, '/unhold');
    const before = comments(a.number);
    expect(before.map((c) => c.reaction_contents)).toEqual([
      ['agent-coordinator[bot]:+1'],
      ['agent-coordinator[bot]:+1'],
    ]);
    // The /hold delivery as GitHub signed it, posted again under a delivery id of the attacker's
    // choosing: the same body, so the same X-Hub-Signature-256.
    const captured = s.double
      .deliveries({ event: 'issue_comment', action: 'created' })
      .find((d) => (d.payload as { comment: { id: number } }).comment.id === hold.id)!;
    const replayed = await s.app.send('issue_comment', captured.payload, { id: randomUUID() });
    expect(replayed.ok).toBe(true);
    await s.settle();
    // Edited into another command: edits are never read for commands.
    await s.double.editComment(REPO, hold.id, '/veto edited in', MAINTAINER);
    await s.settle();

    const after = await task(issue, 'a');
    expect(after?.held).toBe(false);
    expect(after?.state).toBe('in_review');
    expect(comments(a.number).map((c) => [c.body, c.reaction_contents])).toEqual([
      ['/veto edited in', ['agent-coordinator[bot]:+1']],
      ['/unhold', ['agent-coordinator[bot]:+1']],
    ]);
    const log = await s.app.store.commands.ofRepository(repositoryId());
    expect(log.map((c) => [c.name, c.commentId, c.accepted, c.deliveryId])).toEqual([
      ['hold', hold.id, true, captured.guid],
      ['unhold', expect.any(Number), true, expect.any(String)],
    ]);
  });

  it('holds one task from its PR', async () => {
    const issue = await start(CHAIN);
    const a = prOf('a')!;
    await say(a.number, '/hold');
    await say(a.number, '/approve');
    expect((await task(issue, 'a'))?.state).toBe('approved');
    await say(a.number, '/unhold');
    expect((await task(issue, 'a'))?.state).toBe('merged');
  });

  it('replaces the plan with /plan before the first merge, and refuses after it', async () => {
    const issue = await start(ONE_TASK_PLAN);
    await say(issue, '/hold');
    await say(issue, `/plan\n${CHAIN.replace('title: B', 'title: Second')}`);
    const run = await s.app.store.runs.latestRun(repositoryId(), issue);
    expect((await s.app.store.runs.tasksOf(run!.id)).map((t) => t.taskKey)).toEqual(['a', 'b']);
    expect(run?.planSource).toBe('command');
    await say(issue, '/unhold');
    // A person reviews the head the new plan's worker pushed: GitHub dates the comment after it.
    s.double.advanceClock(1_000);
    await say(prOf('a')!.number, '/approve');
    expect((await task(issue, 'a'))?.state).toBe('merged');
    const refused = await say(issue, `/plan\n${CHAIN}`);
    expect(refused.reaction_contents).toEqual([]);
    const reply = comments(issue).at(-1)!;
    expect(reply.body).toContain('already been merged');
  });

  it('shows an invalid /plan in the status comment and changes nothing', async () => {
    const issue = await start(CHAIN);
    await say(issue, '/hold');
    await say(issue, '/plan\n```tasks\n- id: x\n  title: X\n  deps: [nope]\n```');
    expect(statusComment(s.double, issue)).toContain('nope');
    expect(comments(issue).at(-1)!.body).toContain('the plan is invalid');
  });

  it('answers /help and /status, and suggests the command meant by a near miss', async () => {
    const issue = await start(CHAIN);
    await say(issue, '/help');
    expect(comments(issue).at(-1)!.body).toContain('/approve');
    const before = statusComment(s.double, issue);
    s.clock.advance(60_000); // the comment carries its update time
    const status = await say(issue, '/status');
    expect(status.reaction_contents).toEqual(['agent-coordinator[bot]:+1']);
    expect(statusComment(s.double, issue)).not.toBe(before); // rewritten (timestamp) in place
    await say(issue, '/aprove a');
    expect(comments(issue).at(-1)!.body).toContain('approve');
    expect(comments(issue).at(-1)!.body.toLowerCase()).toContain('did you mean');
    expect((await task(issue, 'a'))?.state).toBe('in_review');
  });

  it('cancels the run with /cancel, and when the issue is closed', async () => {
    const issue = await start(CHAIN);
    await say(issue, '/cancel');
    expect((await s.app.store.runs.latestRun(repositoryId(), issue))?.state).toBe('cancelled');
    expect(pulls().filter((p) => p.state === 'open')).toHaveLength(1); // PRs are left open
    await s.double.removeLabel(REPO, issue, 'agent', MAINTAINER);
    // GitHub dates the relabel to the second, after the first label (a person takes seconds).
    s.double.advanceClock(5_000);
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();
    const second = await s.app.store.runs.latestRun(repositoryId(), issue);
    expect(second?.generation).toBe(2);
    expect(second?.state).toBe('running');
    await s.double.closeIssue(REPO, issue, MAINTAINER);
    await s.settle();
    expect((await s.app.store.runs.latestRun(repositoryId(), issue))?.state).toBe('cancelled');
  });

  it('needs a new approval after new work is pushed to an approved PR', async () => {
    const issue = await start(ONE_TASK_PLAN, 'merge:\n  requireApproval: true\n');
    const a = prOf('a')!;
    await s.double.setCheck(REPO, a.head.sha, 'ci', 'in_progress');
    await say(a.number, '/approve');
    expect((await task(issue, 'a'))?.approvedSha).toBe(a.head.sha);
    await s.double.pushCommit(REPO, 'agent/1/a', {
      message: 'more work',
      files: { 'more.txt': 'x' },
      by: 'someone',
    });
    await s.settle();
    const newHead = prOf('a')!.head.sha;
    await s.double.setCheck(REPO, a.head.sha, 'ci', 'completed', 'success');
    await s.settle();
    expect((await task(issue, 'a'))?.state).not.toBe('merged');
    // A person reviews the new head: GitHub dates their comment after the push.
    s.double.advanceClock(1_000);
    await say(a.number, '/approve');
    expect((await task(issue, 'a'))?.approvedSha).toBe(newHead);
    expect((await task(issue, 'a'))?.state).toBe('merged');
  });
});
