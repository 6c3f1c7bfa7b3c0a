import { afterEach, describe, expect, it } from 'vitest';
import { TEST_APP_ID } from '../helpers/app.js';
import {
  assignmentFor,
  closeScenario,
  MAINTAINER,
  REPO,
  startRun,
  startScenario,
  taskOf,
  type Scenario,
} from '../e2e/harness.js';
import { orderCheckOf, type Pull } from './security-helpers.js';

const ORDER = 'agent-coordinator/order';
const CAROL = 'carol';
const DAVE = 'dave';

/**
 * A writer who asks for changes on an agent PR already in GitHub's merge queue has said no: the
 * PR must not land with its merge group. GitHub's queue does not take it out for a review (its
 * removal reasons name none, test/github-double/README.md), so the coordinator does: it sends the
 * task back to its worker, withdraws the order check, takes the PR out of the queue (which destroys
 * a group formed with it), and fails the order check of a group it judges after
 * (docs/lifecycle.md, "Reviews"; docs/security.md).
 */
describe("a request for changes on a PR in GitHub's merge queue", () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  const pullOf = () => (s.double.pulls(REPO) as Pull[]).find((p) => p.head.ref === 'agent/1/a')!;
  const fixRuns = () => s.double.runs(REPO).filter((r) => r.inputs.mode === 'fix');
  const requestChanges = (pr: number, by: string) =>
    s.double.review(REPO, pr, { event: 'REQUEST_CHANGES', body: 'The session must expire.', by });
  const checksRequested = () =>
    s.double.deliveries({ event: 'merge_group', action: 'checks_requested' });

  /**
   * The agent's PR, approved and in the merge queue of `main`, which requires the order check
   * from the App and `checks` besides. Carol has write access, Dave only read.
   */
  const queued = async (checks: string[] = []) => {
    s = await startScenario();
    await s.double.setRequiredChecks(REPO, 'main', [ORDER, ...checks], {
      apps: { [ORDER]: TEST_APP_ID },
    });
    await s.double.enableMergeQueue(REPO, 'main');
    await s.double.setPermission(REPO, CAROL, 'write');
    await s.double.setPermission(REPO, DAVE, 'read');
    s.double.setWorker(() => ({ kind: 'pr' }));
    const issue = await startRun(s);
    const pr = pullOf();
    for (const name of checks)
      await s.double.setCheck(REPO, pr.head.sha, name, 'completed', 'success');
    await s.double.comment(REPO, pr.number, '/approve', MAINTAINER);
    await s.settle();
    expect(s.double.mergeQueue(REPO, 'main')).toEqual([pr.number]);
    expect(await taskOf(s, issue, 'a')).toMatchObject({ state: 'merging' });
    // The fix stays queued: the approved head is being reworked.
    s.double.setWorker(null);
    return { issue, pr };
  };

  /** The task went back to its worker with Carol's review, its PR's order check withdrawn. */
  const sentBack = async (issue: number, pr: Pull) => {
    expect(fixRuns()).toHaveLength(1);
    expect(['pending', 'dispatched', 'running']).toContain((await taskOf(s, issue, 'a'))?.state);
    expect((await assignmentFor(s, fixRuns()[0]!)).feedback).toContain(
      `${CAROL} requested changes in a review`,
    );
    expect(orderCheckOf(s, pr.head.sha)).toMatchObject({ status: 'in_progress' });
  };

  it('takes the PR out of the queue and sends the task back to its worker', async () => {
    const { issue, pr } = await queued();
    await requestChanges(pr.number, CAROL);
    await s.settle();

    expect(s.double.mergeQueue(REPO, 'main')).toEqual([]);
    await sentBack(issue, pr);
    expect((await s.double.processMergeQueue(REPO, 'main')).merged).toEqual([]);
    expect(pullOf().merged).toBe(false);
  });

  it('destroys the merge group formed with it, though the group passed its order check', async () => {
    const { issue, pr } = await queued(['ci']);
    const processing = s.double.processMergeQueue(REPO, 'main');
    await s.settle();
    const groupSha = (checksRequested()[0]!.payload['merge_group'] as { head_sha: string })
      .head_sha;
    // The coordinator passed the group; the queue waits for its CI.
    expect(orderCheckOf(s, groupSha)).toMatchObject({ conclusion: 'success' });

    await requestChanges(pr.number, CAROL);
    await s.settle();
    expect(s.double.mergeQueue(REPO, 'main')).toEqual([]);
    expect(await processing).toMatchObject({ merged: [] });
    await s.double.setCheck(REPO, groupSha, 'ci', 'completed', 'success');
    await s.settle();
    expect(pullOf().merged).toBe(false);
    expect(
      s.double
        .deliveries({ event: 'merge_group', action: 'destroyed' })
        .map((d) => d.payload['reason']),
    ).toEqual(['dequeued']);
    await sentBack(issue, pr);
  });

  it('fails the order check of a merge group formed with it and judged after', async () => {
    const { issue, pr } = await queued();
    // The queue forms its group and Carol asks for changes while the app is unreachable; the
    // review's delivery is handled before the group's.
    s.double.webhooksDown = true;
    const processing = s.double.processMergeQueue(REPO, 'main');
    const requested = await s.double.waitFor(() => checksRequested()[0], {
      description: 'merge_group.checks_requested',
    });
    await requestChanges(pr.number, CAROL);
    s.double.webhooksDown = false;
    const review = s.double
      .deliveries({ event: 'pull_request_review', action: 'submitted' })
      .at(-1)!;
    expect((await s.app.send(review.event, review.payload, { id: review.guid })).ok).toBe(true);
    await s.settle();
    expect(s.double.mergeQueue(REPO, 'main')).toEqual([]);
    expect(await processing).toMatchObject({ merged: [] });

    expect((await s.app.send(requested.event, requested.payload, { id: requested.guid })).ok).toBe(
      true,
    );
    await s.settle();
    const groupSha = (requested.payload['merge_group'] as { head_sha: string }).head_sha;
    expect(orderCheckOf(s, groupSha)).toMatchObject({
      conclusion: 'failure',
      output: { summary: expect.stringMatching(/^#\d+ \(a\) is (pending|dispatched|running)$/) },
    });
    expect(pullOf().merged).toBe(false);
    await sentBack(issue, pr);
  });

  it('changes nothing when it comes from someone with read access only', async () => {
    const { issue, pr } = await queued();
    await requestChanges(pr.number, DAVE);
    await s.settle();

    expect(s.double.mergeQueue(REPO, 'main')).toEqual([pr.number]);
    expect(await taskOf(s, issue, 'a')).toMatchObject({ state: 'merging' });
    expect(fixRuns()).toEqual([]);
    expect(orderCheckOf(s, pr.head.sha)).toMatchObject({ conclusion: 'success' });
    expect((await s.double.processMergeQueue(REPO, 'main')).merged).toEqual([pr.number]);
    await s.settle();
    expect(pullOf().merged).toBe(true);
    expect(await taskOf(s, issue, 'a')).toMatchObject({ state: 'merged' });
  });
});
