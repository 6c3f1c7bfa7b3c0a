import { afterEach, describe, expect, it } from 'vitest';
import {
  CHAIN_OF_TWO,
  closeScenario,
  MAINTAINER,
  REPO,
  startStackedRun,
  taskOf,
  type Scenario,
} from '../e2e/harness.js';

type Pull = {
  number: number;
  state: string;
  merged?: boolean;
  head: { ref: string; sha: string };
  base: { ref: string };
};

/** A read collaborator of the private repository: GitHub lets them fork it and open PRs. */
const READER = 'a-reader';

/**
 * docs/stacking.md: the stack follows the run's own PRs (the App's, linked to tasks) and no
 * other. A PR someone without write access opens onto a stack parent's or a child's branch (from
 * a fork, whose branch may even be named like a task's) is not a child: the parent's merge does
 * not retarget or update it, it changes no order check or restack, and closing it cancels
 * nothing.
 */
describe("an outsider's PR whose base is a stacked task's branch", () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  it('is never retargeted, updated or counted, and the stack merges in order', async () => {
    const started = await startStackedRun(CHAIN_OF_TWO);
    s = started.s;
    const { issue } = started;
    await s.double.setPermission(REPO, READER, 'read');
    const [a, b] = ['a', 'b'].map((task) =>
      (s.double.pulls(REPO) as Pull[]).find((p) => p.head.ref === `agent/${issue}/${task}`)!,
    ) as [Pull, Pull];
    const onParent = await s.double.openPr(REPO, {
      head: `agent/${issue}/b`,
      base: a.head.ref,
      title: 'A better b',
      files: { 'src/b.txt': 'evil\n' },
      by: READER,
      fromFork: true,
    });
    const onChild = await s.double.openPr(REPO, {
      head: 'more',
      base: b.head.ref,
      title: 'More for b',
      by: READER,
      fromFork: true,
    });
    await s.settle();
    await s.double.closePr(REPO, onChild, READER);
    await s.double.reopenPr(REPO, onChild, READER);
    await s.settle();
    expect(await taskOf(s, issue, 'b')).toMatchObject({
      state: 'in_review',
      stackParent: 'a',
      prNumber: b.number,
    });

    for (const pull of [b, a]) {
      await s.double.comment(REPO, pull.number, '/approve', MAINTAINER);
      await s.settle();
    }
    const after = (n: number) => s.double.pull(REPO, n) as Pull;
    expect([a, b].map((p) => after(p.number).merged)).toEqual([true, true]);
    expect(s.double.file(REPO, 'main', 'src/b.txt')).toBe('b attempt 1\n');
    // b was retargeted to main; the outsider's PRs stay where they were opened, untouched.
    expect(after(b.number).base.ref).toBe('main');
    expect([after(onParent).base.ref, after(onChild).base.ref]).toEqual([a.head.ref, b.head.ref]);
    const touched = s.double.requests.filter(
      (r) =>
        r.method !== 'GET' &&
        [onParent, onChild].some((n) => new RegExp(`/(pulls|issues)/${n}(/|$)`).test(r.path)),
    );
    expect(touched).toEqual([]);
  });
});
