import { afterEach, describe, expect, it } from 'vitest';
import {
  closeScenario,
  MAINTAINER,
  REPO,
  CHAIN_OF_TWO,
  startStackedRun,
  taskOf,
  type Scenario,
} from './harness.js';

type Pull = { number: number; head: { ref: string; sha: string }; base: { ref: string } };

/**
 * docs/stacking.md, "A parent that merged at a head the child never took in": the child's
 * approval covers its diff against the parent's head it last took in. When the parent merges at
 * another head (a rewrite or a revert the child never followed: the push's delivery lost, or
 * handled after the merge's), the child still holds what the parent took out, and its update
 * from the base after a squash merge keeps it: that approval is withdrawn before the retarget.
 */
describe('a stacked child whose parent merged at a head it never took in', () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  const prOf = (task: string) =>
    (s.double.pulls(REPO) as Pull[]).find((p) => p.head.ref.endsWith(`/${task}`))!;
  const merged = () =>
    s.double
      .deliveries({ event: 'pull_request', action: 'closed' })
      .filter((d) => (d.payload.pull_request as { merged: boolean }).merged)
      .map((d) => (d.payload.pull_request as { head: { ref: string } }).head.ref.split('/')[2]);

  const start = async () => {
    let issue: number;
    ({ s, issue } = await startStackedRun(CHAIN_OF_TWO));
    await s.double.comment(REPO, prOf('b').number, '/approve', MAINTAINER);
    await s.settle();
    return issue;
  };

  /**
   * A maintainer changes a's branch and squash-merges a by hand while GitHub cannot reach the
   * app: the push's delivery is lost, the merge's is delivered later.
   */
  const changeAndMergeUnseen = async (change: {
    files: Record<string, string | null>;
    parent?: string;
  }) => {
    s.double.webhooksDown = true;
    await s.double.pushCommit(REPO, prOf('a').head.ref, {
      message: 'Not this: document it instead',
      by: MAINTAINER,
      ...change,
    });
    await s.double.mergePrByHand(REPO, prOf('a').number, MAINTAINER, 'squash');
    s.double.webhooksDown = false;
    const closed = s.double.deliveries({ event: 'pull_request', action: 'closed' }).at(-1)!;
    expect((await s.app.send(closed.event, closed.payload, { id: closed.guid })).ok).toBe(true);
    await s.settle();
  };

  it.each([
    { how: 'rewritten: a force-push onto main drops its commit', rewrite: true },
    { how: 'reverted: a commit on top takes its file out', rewrite: false },
  ])('withdraws the child’s approval when the parent was $how', async ({ rewrite }) => {
    const issue = await start();
    const b = prOf('b');
    expect((await taskOf(s, issue, 'b'))?.approvedSha).toBe(b.head.sha);
    await changeAndMergeUnseen(
      rewrite
        ? { files: { 'docs/a.md': 'a\n' }, parent: s.double.branch(REPO, 'main')!.sha }
        : { files: { 'docs/a.md': 'a\n', 'src/a.txt': null } },
    );
    expect(merged()).toEqual(['a']);
    expect(s.double.file(REPO, 'main', 'src/a.txt')).toBeUndefined();
    // b is on main now and still holds a's first file, which the maintainer took out of a: its
    // diff against main shows it, and the approval b had, given to its own change, is void.
    expect((s.double.pull(REPO, b.number) as Pull).base.ref).toBe('main');
    expect(s.double.pullDiff(REPO, b.number)).toMatchObject({ 'src/a.txt': 'a attempt 1\n' });
    expect((await taskOf(s, issue, 'b'))?.approvedSha).toBeNull();
    expect(merged()).toEqual(['a']);
    const told = (s.double.comments(REPO, b.number) as Array<{ body: string }>).filter((c) =>
      c.body.startsWith('<!-- agent-coordinator:parent-merged-unseen '),
    );
    expect(told).toHaveLength(1);
    // The lost push, redelivered late, changes nothing: no second comment, no approval back.
    const push = s.double.deliveries({ event: 'pull_request', action: 'synchronize' }).at(-1)!;
    expect((await s.app.send(push.event, push.payload, { id: push.guid })).ok).toBe(true);
    await s.app.sweep();
    await s.settle();
    expect(merged()).toEqual(['a']);
    expect(
      (s.double.comments(REPO, b.number) as Array<{ body: string }>).filter((c) =>
        c.body.startsWith('<!-- agent-coordinator:parent-merged-unseen '),
      ),
    ).toHaveLength(1);
  });
  it('merges the approved child into the base, not into the parent’s branch, when a person merges the parent by hand', async () => {
    await start();
    await s.double.mergePrByHand(REPO, prOf('a').number, MAINTAINER, 'squash');
    await s.settle();
    // The merge's delivery is the first the app hears of it: b's merge waits for its retarget
    // (its PR still targets a's branch until then), and lands on main.
    const bases = s.double
      .deliveries({ event: 'pull_request', action: 'closed' })
      .map((d) => (d.payload.pull_request as { base: { ref: string } }).base.ref);
    expect(merged()).toEqual(['a', 'b']);
    expect(bases).toEqual(['main', 'main']);
    expect(s.double.file(REPO, 'main', 'src/b.txt')).toBe('b attempt 1\n');
  });
});
