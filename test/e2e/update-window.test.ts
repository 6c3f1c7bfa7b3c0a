import { afterEach, describe, expect, it } from 'vitest';
import {
  branchUpdateAnswers,
  DELIVERY_SEEDS,
  MAINTAINER,
  REPO,
  chaoticDelivery,
  closeScenario,
  startRun,
  startScenario,
  statusComment,
  taskOf,
  type Scenario,
} from './harness.js';
import type { DeliveryChaos } from '../github-double/index.js';

type Pull = { number: number; merged?: boolean; head: { ref: string; sha: string } };

let s: Scenario;
afterEach(() => closeScenario(s));

const pullOf = (number: number) =>
  (s.double.pulls(REPO) as Pull[]).find((p) => p.number === number)!;
const lastReply = (pr: number) =>
  (s.double.comments(REPO, pr) as { body: string }[]).map((c) => c.body).at(-1) ?? '';
const short = (sha: string) => sha.slice(0, 7);

/** Until GitHub holds the coordinator's update of the PR's branch, not merged yet. */
const updateAsked = (pr: number) =>
  s.double.waitFor(() => s.double.heldBranchUpdates(REPO).includes(pr) || undefined, {
    timeoutMs: 10_000,
    description: `the update of #${pr} asked for`,
  });

/**
 * A's PR approved while behind main: the coordinator asks GitHub to merge main into its branch,
 * and GitHub has not merged yet (the double holds the call until `releaseBranchUpdates`).
 */
async function approveBehind(delivery?: DeliveryChaos) {
  s = await startScenario({ delivery });
  await s.double.setRequiredChecks(REPO, 'main', [], { strict: true });
  await s.double.setPermission(REPO, 'dev', 'write');
  s.double.setWorker(() => ({ kind: 'pr' }));
  const issue = await startRun(s);
  const pr = (s.double.pulls(REPO) as Pull[])[0]!;
  const main = await s.double.advanceBranch(REPO, 'main');
  await s.settle();
  s.double.deferBranchUpdates = true;
  await s.double.comment(REPO, pr.number, '/approve', MAINTAINER);
  await updateAsked(pr.number);
  expect(await taskOf(s, issue, 'a')).toMatchObject({
    state: 'approved',
    approvedSha: pr.head.sha,
  });
  return { issue, pr, main };
}

/**
 * docs/lifecycle.md step 8: only the coordinator's own update of a behind branch keeps its
 * approval, and the coordinator knows which commit that is: the merge commit GitHub answered its
 * update with. Anyone who may push to the branch can push a commit meanwhile, a merge of main into
 * the approved head with more in its tree included: new work, approved again before it merges.
 */
describe.each(DELIVERY_SEEDS)('the update window (GitHub double, delivery seed %i)', (seed) => {
  const delivery = chaoticDelivery(seed);

  it('does not carry the approval to a look-alike of the update a writer pushes before it lands', async () => {
    const { issue, pr, main } = await approveBehind(delivery);
    // GitHub dates the push after the `/approve` (its clock counts seconds).
    s.double.advanceClock(2_000);
    // Main merged into the approved head, as the update would, and an unreviewed file with it.
    const lookAlike = await s.double.mergeInto(REPO, pr.head.ref, 'main', 'dev', {
      'src/unreviewed.ts': 'export const unreviewed = true;\n',
    });
    expect(s.double.commitParents(REPO, lookAlike)).toEqual([pr.head.sha, main]);
    // GitHub merges now: the branch holds main already.
    await s.double.releaseBranchUpdates();
    await s.settle();
    await s.app.sweep();
    await s.settle();
    expect(s.double.heldBranchUpdates(REPO)).toEqual([]);
    expect(pullOf(pr.number)).toMatchObject({ merged: false, head: { sha: lookAlike } });
    expect(await taskOf(s, issue, 'a')).toMatchObject({ state: 'in_review', approvedSha: null });
    // The PR says why: the approval does not count for the head it now has.
    expect(lastReply(pr.number)).toContain(
      `it does not count for its head \`${short(lookAlike)}\``,
    );
    expect(statusComment(s.double, issue)).toContain('in_review');

    // Reviewed and approved again, it merges.
    s.double.advanceClock(2_000);
    await s.double.comment(REPO, pr.number, '/approve', MAINTAINER);
    await s.settle();
    expect(pullOf(pr.number)).toMatchObject({ merged: true, head: { sha: lookAlike } });
    expect(await taskOf(s, issue, 'a')).toMatchObject({ state: 'merged', approvedSha: lookAlike });
  });

  it('does not approve a commit pushed on the approved head before the update lands', async () => {
    const { issue, pr, main } = await approveBehind(delivery);
    s.double.advanceClock(2_000);
    const work = await s.double.pushCommit(REPO, pr.head.ref, {
      message: 'Unreviewed change',
      files: { 'src/unreviewed.ts': 'export const unreviewed = true;\n' },
      by: 'dev',
    });
    // GitHub merges main into the branch as it is now: into the new commit.
    const [landed] = await s.double.releaseBranchUpdates();
    await s.settle();
    await s.app.sweep();
    await s.settle();
    expect(s.double.commitParents(REPO, landed!.sha!)).toEqual([work, main]);
    expect(pullOf(pr.number)).toMatchObject({ merged: false, head: { sha: landed!.sha } });
    expect(await taskOf(s, issue, 'a')).toMatchObject({ state: 'in_review', approvedSha: null });
    expect(branchUpdateAnswers(s, pr.number)).toEqual([201]);
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
    expect(branchUpdateAnswers(s, pr.number)).toEqual([201]);
  });
});

/**
 * The sweep updates a branch while the repository's deliveries go on: the update's push may be
 * handled before GitHub's answer, which names the update's commit, is recorded. The push waits
 * for the merge turn that asked for the update, and is decided on its answer.
 */
describe('the update window: its push handled before its answer is recorded', () => {
  it('keeps the approval: the push is decided once the merge turn that asked is over', async () => {
    // Check events are not delivered: the sweep finds the checks done, and updates the branch.
    s = await startScenario({
      subscribedEvents: ['issues', 'issue_comment', 'pull_request', 'pull_request_review'].concat([
        'workflow_run',
        'workflow_job',
        'merge_group',
      ]),
    });
    await s.double.setRequiredChecks(REPO, 'main', ['ci'], { strict: true });
    s.double.pullRequestCi(REPO, [{ name: 'ci', attempts: [{ conclusion: 'success' }] }]);
    s.double.setWorker(() => ({ kind: 'pr' }));
    const releaseCi = async () => {
      for (const run of s.double.runs(REPO))
        if (s.double.ciHeld(run.id as number)) await s.double.releaseCi(run.id as number);
    };
    const issue = await startRun(s);
    const pr = (s.double.pulls(REPO) as Pull[])[0]!;
    await s.double.comment(REPO, pr.number, '/approve', MAINTAINER);
    await s.settle();
    await s.double.advanceBranch(REPO, 'main');
    await releaseCi();
    s.double.deferBranchUpdates = true;
    const swept = s.app.sweep();
    await updateAsked(pr.number);

    // GitHub merges and sends the push's webhook; its answer comes once the push's handling
    // waits for the merge turn (the sweep's, which waits for the answer).
    const turns = s.app.engine.memory.repositoryMergeTurns;
    const run = turns.run.bind(turns);
    const waiting = new Promise<void>((resolve) => {
      turns.run = (key, fn) => {
        resolve();
        return run(key, fn);
      };
    });
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const [landed] = await s.double.releaseBranchUpdates({ answerAfter: answered });
    // A push decided without waiting would be handled (as new work) before the answer.
    await Promise.race([waiting, s.app.processor.whenDrained()]);
    turns.run = run;
    answer();
    await swept;
    await s.settle();
    expect(await taskOf(s, issue, 'a')).toMatchObject({
      state: 'approved',
      approvedSha: landed!.sha,
    });
    await releaseCi();
    await s.app.sweep();
    await s.settle();
    expect(pullOf(pr.number)).toMatchObject({ merged: true, head: { sha: landed!.sha } });
  });
});
