import { afterEach, describe, expect, it } from 'vitest';
import {
  assignmentFor,
  CHAIN_OF_TWO,
  closeScenario,
  MAINTAINER,
  REPO,
  startStackedRun,
  taskOf,
  type Scenario,
} from '../e2e/harness.js';
import { orderCheckOf } from './security-helpers.js';

type Pull = { number: number; head: { ref: string; sha: string } };
/**
 * docs/stacking.md, `cancel`: the parent will not merge, and the child's PR is pointed at the
 * base. An approval of the child covered its diff against the parent's branch; on the base its
 * diff holds the parent's commits too, which were vetoed. Kept, that approval would turn the
 * required order check green on the old head once the parent merges at other work (its `/retry`),
 * while the child waits to start over: anyone who may merge, or a workflow token running the
 * agent's code, could then land the vetoed commits past it.
 */
describe('a stacked child cancelled because its parent was vetoed', () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  it('loses its approval, so the order check on its old head never passes', async () => {
    const started = await startStackedRun(CHAIN_OF_TWO);
    s = started.s;
    const { issue } = started;
    const prOf = (task: string) =>
      (s.double.pulls(REPO) as Pull[]).find((p) => p.head.ref.endsWith(`/${task}`))!;
    const b = prOf('b');
    await s.double.comment(REPO, b.number, '/approve', MAINTAINER);
    await s.settle();
    expect((await taskOf(s, issue, 'b'))?.approvedSha).toBe(b.head.sha);

    await s.double.comment(REPO, prOf('a').number, '/veto not this way', MAINTAINER);
    await s.settle();
    expect(await taskOf(s, issue, 'b')).toMatchObject({ state: 'blocked', approvedSha: null });

    let waiting: Record<string, string | null> = {};
    // a is retried and fixed; b, stacked anew, waits to start over while a merges.
    s.double.setWorker(async (run) => {
      const task = run.inputs['task_id']!;
      const files = { [`src/${task}.txt`]: `${task} attempt ${run.inputs['attempt']}\n` };
      if (task === 'b') {
        const a = prOf('a');
        // a's fix reviewed: GitHub dates the /approve a second after its push.
        s.double.advanceClock(1_000);
        await s.double.comment(REPO, a.number, '/approve', MAINTAINER);
        await s.double.waitFor((d) => (d.pull(REPO, a.number) as { merged?: boolean }).merged, {
          description: 'a merged',
        });
        // The order check on b's first head is decided again with a merged (the sweep, or any
        // later event of the run).
        await s.app.sweep();
        await s.double.waitFor(
          () => {
            const check = orderCheckOf(s, b.head.sha);
            return check?.conclusion === 'success' || check?.output.title.includes('/approve');
          },
          { description: "a merged, and b's first head's order check decided again" },
        );
        waiting = s.double.pullDiff(REPO, b.number);
      }
      const { base } = await assignmentFor(s, run);
      return { kind: 'pr', ...(base !== null && { base }), files };
    });
    await s.double.comment(REPO, prOf('a').number, '/retry do it the other way', MAINTAINER);
    await s.settle();

    expect(s.double.file(REPO, 'main', 'src/a.txt')).toBe('a attempt 2\n');
    // On main, b's first head shows a's vetoed attempt as its own change, which nobody approved:
    // its order check waits for an approval of it.
    expect(waiting).toEqual({ 'src/a.txt': 'a attempt 1\n', 'src/b.txt': 'b attempt 1\n' });
    expect(orderCheckOf(s, b.head.sha)).toMatchObject({
      status: 'in_progress',
      conclusion: null,
      output: { title: `waiting for /approve of ${b.head.sha.slice(0, 7)}` },
    });
  });
});
