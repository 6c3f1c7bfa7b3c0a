import { afterEach, describe, expect, it } from 'vitest';
import {
  DELIVERY_SEEDS,
  MAINTAINER,
  REPO,
  chaoticDelivery,
  closeScenario,
  startRun,
  startScenario,
  taskOf,
  updateBranchAnswers,
  type Scenario,
} from './harness.js';
import type { DeliveryChaos } from '../github-double/index.js';

type Pull = { number: number; merged?: boolean; head: { ref: string; sha: string } };

let s: Scenario;
afterEach(() => closeScenario(s));

const pullOf = (number: number) =>
  (s.double.pulls(REPO) as Pull[]).find((p) => p.number === number)!;

/** A's PR approved while behind main: the coordinator's update answered 202, not yet merged. */
async function approveBehind(delivery?: DeliveryChaos) {
  s = await startScenario({ delivery });
  await s.double.setRequiredChecks(REPO, 'main', [], { strict: true });
  await s.double.setPermission(REPO, 'dev', 'write');
  s.double.setWorker(() => ({ kind: 'pr' }));
  const issue = await startRun(s);
  const pr = (s.double.pulls(REPO) as Pull[])[0]!;
  await s.double.advanceBranch(REPO, 'main');
  await s.settle();
  s.double.deferBranchUpdates = true;
  await s.double.comment(REPO, pr.number, '/approve', MAINTAINER);
  await s.settle();
  expect(updateBranchAnswers(s, pr.number)).toEqual([202]);
  expect(s.double.heldBranchUpdates(REPO)).toEqual([pr.number]);
  expect(await taskOf(s, issue, 'a')).toMatchObject({
    state: 'approved',
    approvedSha: pr.head.sha,
  });
  return { issue, pr };
}

/**
 * docs/lifecycle.md step 8: GitHub answers the coordinator's update-branch with 202 and merges
 * the base into the approved head later. Only that merge keeps the approval: a commit someone
 * pushes on the approved head in the meantime is new work, however its push's `before` reads.
 */
describe.each(DELIVERY_SEEDS)(
  'the update-branch window (GitHub double, delivery seed %i)',
  (seed) => {
    const delivery = chaoticDelivery(seed);

    it('does not approve a commit pushed on the approved head before the update lands', async () => {
      const { issue, pr } = await approveBehind(delivery);
      // GitHub dates the push after the `/approve` (its clock counts seconds).
      s.double.advanceClock(2_000);
      const work = await s.double.pushCommit(REPO, pr.head.ref, {
        message: 'Unreviewed change',
        files: { 'src/unreviewed.ts': 'export const unreviewed = true;\n' },
        by: 'dev',
      });
      await s.settle();
      // GitHub carries out every update the coordinator asked for, until none is left.
      for (let round = 0; round < 5 && s.double.heldBranchUpdates(REPO).length > 0; round++) {
        await s.double.releaseBranchUpdates();
        await s.settle();
      }
      await s.app.sweep();
      await s.settle();
      // GitHub made no update of the moved head; the new commit waits for a review of its own.
      expect(s.double.heldBranchUpdates(REPO)).toEqual([]);
      expect(pullOf(pr.number)).toMatchObject({ merged: false, head: { sha: work } });
      expect(await taskOf(s, issue, 'a')).toMatchObject({ state: 'in_review', approvedSha: null });
    });

    it("keeps the approval for the update's own merge, which then merges", async () => {
      const { issue, pr } = await approveBehind(delivery);
      const [landed] = await s.double.releaseBranchUpdates();
      expect(landed?.sha).toBeDefined();
      await s.settle();
      expect(await taskOf(s, issue, 'a')).toMatchObject({
        state: 'merged',
        approvedSha: landed!.sha,
      });
      expect(pullOf(pr.number).merged).toBe(true);
      expect(updateBranchAnswers(s, pr.number)).toEqual([202]);
    });
  },
);

describe('the update-branch window: a failed read of the pushed commit', () => {
  const commitReads = () =>
    s.double.requests
      .filter((r) => r.method === 'GET' && r.path.includes('/git/commits/'))
      .map((r) => r.status);

  it('grants nothing while the read fails; the delivery handled again grants it', async () => {
    const { issue, pr } = await approveBehind();
    s.double.faults.add({
      method: 'GET',
      path: /\/git\/commits\//,
      status: 502,
      times: Number.POSITIVE_INFINITY,
    });
    const [landed] = await s.double.releaseBranchUpdates();
    await s.settle();
    expect(commitReads().length).toBeGreaterThan(0);
    expect(commitReads().every((status) => status === 502)).toBe(true);
    expect(await taskOf(s, issue, 'a')).toMatchObject({
      state: 'approved',
      approvedSha: pr.head.sha,
    });
    expect(pullOf(pr.number).merged).toBe(false);

    s.double.faults.clear();
    const push = s.double.deliveries({ event: 'pull_request', action: 'synchronize' }).at(-1)!;
    expect(push.payload.after).toBe(landed!.sha);
    expect((await s.app.send(push.event, push.payload, { id: push.guid })).ok).toBe(true);
    await s.settle();
    expect(commitReads().at(-1)).toBe(200);
    expect(await taskOf(s, issue, 'a')).toMatchObject({
      state: 'merged',
      approvedSha: landed!.sha,
    });
  });
});
