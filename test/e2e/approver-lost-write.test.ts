import { afterEach, describe, expect, it } from 'vitest';
import { TEST_APP_ID } from '../helpers/app.js';
import { closeScenario, REPO, startRun, startScenario, taskOf, type Scenario } from './harness.js';

type Pull = { number: number; state: string; merged?: boolean; head: { ref: string; sha: string } };
type Comment = { body: string };

const CAROL = 'carol';
const DAVE = 'dave';
const ORDER = 'agent-coordinator/order';
/** The coordinator remembers a person's permission for a minute (engine/roles.ts). */
const PAST_ROLE_CACHE_MS = 61_000;

/**
 * GitHub counts an approving review toward required reviews only from people with write access
 * when the PR merges; so does the coordinator with its approvals (docs/commands.md, "Approvals"):
 * an approval whose author has lost write access since no longer merges anything.
 */
describe('an approval whose author lost write access before the merge', () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  const pullOf = () => (s.double.pulls(REPO) as Pull[]).find((p) => p.head.ref === 'agent/1/a')!;
  const toldLost = (pr: number) =>
    (s.double.comments(REPO, pr) as Comment[]).filter((c) =>
      c.body.startsWith('<!-- agent-coordinator:approver-lost-write '),
    );

  /** The agent PR is open with CI running, and carol (write) has approved it. */
  const approvedWhileCiRuns = async (how: '/approve' | 'an approving review') => {
    s = await startScenario({ config: 'merge:\n  requireApproval: true\n' });
    await s.double.setPermission(REPO, CAROL, 'write');
    await s.double.setPermission(REPO, DAVE, 'write');
    s.double.setWorker(() => ({ kind: 'pr' }));
    const issue = await startRun(s);
    const pr = pullOf();
    await s.double.setCheck(REPO, pr.head.sha, 'ci', 'in_progress');
    if (how === '/approve') await s.double.comment(REPO, pr.number, '/approve', CAROL);
    else await s.double.approvePr(REPO, pr.number, CAROL);
    await s.settle();
    const task = await taskOf(s, issue, 'a');
    expect(task?.state).toBe('approved');
    expect(task?.approvedSha).toBe(pr.head.sha);
    expect(task?.approvedBy).toBe(CAROL);
    return { issue, pr };
  };

  /** The agent PR in the merge queue on carol's `/approve`; dave has write access too. */
  const queuedOnCarolsApproval = async () => {
    s = await startScenario({ config: 'merge:\n  requireApproval: true\n' });
    await s.double.enableMergeQueue(REPO, 'main');
    // docs/worker.md: the order check is required, from the App, as `doctor` asks.
    await s.double.setRequiredChecks(REPO, 'main', [ORDER], { apps: { [ORDER]: TEST_APP_ID } });
    await s.double.setPermission(REPO, CAROL, 'write');
    await s.double.setPermission(REPO, DAVE, 'write');
    s.double.setWorker(() => ({ kind: 'pr' }));
    const issue = await startRun(s);
    const pr = pullOf();
    await s.double.comment(REPO, pr.number, '/approve', CAROL);
    await s.settle();
    expect(s.double.mergeQueue(REPO, 'main')).toEqual([pr.number]);
    return { issue, pr };
  };

  it.each(['/approve', 'an approving review'] as const)(
    'does not merge on it (given by %s), withdraws it and says so once; a writer approves again',
    async (how) => {
      const { issue, pr } = await approvedWhileCiRuns(how);
      // The maintainer lowers carol to read while CI runs, within the minute the coordinator
      // remembers her write access: the merge asks GitHub again all the same.
      await s.double.setPermission(REPO, CAROL, 'read');
      await s.double.setCheck(REPO, pr.head.sha, 'ci', 'completed', 'success');
      await s.settle();

      expect(pullOf().state).toBe('open');
      const task = await taskOf(s, issue, 'a');
      expect(task?.state).toBe('in_review');
      expect(task?.approvedSha).toBeNull();
      expect(task?.approvedBy).toBeNull();
      const told = toldLost(pr.number);
      expect(told).toHaveLength(1);
      expect(told[0]!.body).toContain(
        `the approval of \`${pr.head.sha.slice(0, 7)}\` by @carol no longer counts: they no longer have write access to this repository`,
      );

      // Another turn (the sweep) neither merges nor tells the PR again.
      await s.app.sweep();
      await s.settle();
      expect(pullOf().state).toBe('open');
      expect(toldLost(pr.number)).toHaveLength(1);

      await s.double.comment(REPO, pr.number, '/approve', DAVE);
      await s.settle();
      expect(pullOf().merged).toBe(true);
      const merged = await taskOf(s, issue, 'a');
      expect(merged?.state).toBe('merged');
      expect(merged?.approvedBy).toBe(DAVE);
    },
  );

  it('tells the PR no second time after a crash between telling it and withdrawing', async () => {
    const { issue, pr } = await approvedWhileCiRuns('/approve');
    await s.double.setPermission(REPO, CAROL, 'read');
    s.clock.advance(PAST_ROLE_CACHE_MS);
    // What a process killed right after telling the PR leaves: its comment, the approval still held.
    await s.double.commentAsApp(
      REPO,
      pr.number,
      `<!-- agent-coordinator:approver-lost-write sha=${pr.head.sha} by=carol -->\ntold before the crash`,
    );
    await s.double.setCheck(REPO, pr.head.sha, 'ci', 'completed', 'success');
    await s.settle();
    expect(pullOf().state).toBe('open');
    expect((await taskOf(s, issue, 'a'))?.approvedSha).toBeNull();
    expect(toldLost(pr.number).map((c) => c.body)).toEqual([
      `<!-- agent-coordinator:approver-lost-write sha=${pr.head.sha} by=carol -->\ntold before the crash`,
    ]);
  });

  it('merges nothing and withdraws nothing while GitHub does not answer, then merges', async () => {
    const { issue, pr } = await approvedWhileCiRuns('/approve');
    s.clock.advance(PAST_ROLE_CACHE_MS);
    // GitHub answers no read of carol's permission until the faults are cleared below.
    const FAULTS = 50;
    s.double.faults.add({
      method: 'GET',
      path: new RegExp(`/collaborators/${CAROL}/permission$`),
      status: 502,
      times: FAULTS,
    });
    await s.double.setCheck(REPO, pr.head.sha, 'ci', 'completed', 'success');
    await s.settle();
    expect(s.double.faults.pending).toBeLessThan(FAULTS);
    s.double.faults.clear();
    expect(pullOf().state).toBe('open');
    const task = await taskOf(s, issue, 'a');
    expect(task?.state).toBe('approved');
    expect(task?.approvedBy).toBe(CAROL);
    expect(toldLost(pr.number)).toEqual([]);

    // Carol still has write access: the next turn asks again and merges.
    await s.app.sweep();
    await s.settle();
    expect(pullOf().merged).toBe(true);
  });

  it('fails the merge group of a PR queued on it, withdraws it and does not send the PR to its worker', async () => {
    const { issue, pr } = await queuedOnCarolsApproval();

    // Lowered to read while the PR waits in the queue; the queue then builds its group. GitHub
    // refuses the first try at telling the PR: the group is judged again, nothing half done.
    await s.double.setPermission(REPO, CAROL, 'read');
    s.clock.advance(PAST_ROLE_CACHE_MS);
    s.double.faults.add({
      method: 'POST',
      path: new RegExp(`/issues/${pr.number}/comments$`),
      status: 502,
      times: 1,
    });
    const result = await s.double.processMergeQueue(REPO, 'main');
    await s.settle();
    expect(result.merged).toEqual([]);
    const group = (
      s.double.checkRuns(REPO, result.headSha!) as Array<{
        name: string;
        conclusion: string;
        output: { summary: string };
      }>
    ).find((c) => c.name === ORDER);
    expect(group?.conclusion).toBe('failure');
    expect(group?.output.summary).toBe(
      `#${pr.number} (a) is approved by @carol, who no longer has write access`,
    );
    expect(pullOf().state).toBe('open');
    expect(toldLost(pr.number)).toHaveLength(1);
    expect(await taskOf(s, issue, 'a')).toMatchObject({ state: 'in_review', approvedSha: null });
    // A person's approval is missing, not the worker's work: no fix attempt.
    expect(s.double.runs(REPO).filter((r) => r.head_branch === 'agent/1/a')).toHaveLength(1);

    await s.double.comment(REPO, pr.number, '/approve', DAVE);
    await s.settle();
    expect(s.double.mergeQueue(REPO, 'main')).toEqual([pr.number]);
    await s.double.processMergeQueue(REPO, 'main');
    await s.settle();
    expect(pullOf().merged).toBe(true);
  });

  it('judges a merge group again when GitHub did not say whether its approver still has write access', async () => {
    const { issue, pr } = await queuedOnCarolsApproval();

    s.clock.advance(PAST_ROLE_CACHE_MS);
    s.double.faults.add({
      method: 'GET',
      path: new RegExp(`/collaborators/${CAROL}/permission$`),
      status: 502,
      times: 1,
    });
    const result = await s.double.processMergeQueue(REPO, 'main');
    await s.settle();
    expect(s.double.faults.pending).toBe(0);
    // Carol still has write access: the group's check, asked again, passes; nothing went back.
    expect(result.merged).toEqual([pr.number]);
    expect(await taskOf(s, issue, 'a')).toMatchObject({ state: 'merged', approvedBy: CAROL });
    expect(s.double.runs(REPO).filter((r) => r.head_branch === 'agent/1/a')).toHaveLength(1);
  });
});
