import { afterEach, describe, expect, it } from 'vitest';
import {
  closeScenario,
  REPO,
  startRun,
  startScenario,
  taskOf,
  type Scenario,
} from '../e2e/harness.js';

type Pull = { number: number; state: string; merged?: boolean; head: { ref: string; sha: string } };
type Comment = { body: string; user: { login: string } };

const CAROL = 'carol';

/**
 * Someone the maintainers just removed keeps nothing of their write access: the coordinator asks
 * GitHub for each command (docs/commands.md), not the minute it remembers a person's permission.
 */
describe('a command from someone whose write access was just removed', () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  it('is refused, though the coordinator saw their write access a moment before', async () => {
    s = await startScenario({ config: 'merge:\n  requireApproval: true\n' });
    await s.double.setPermission(REPO, CAROL, 'write');
    s.double.setWorker(() => ({ kind: 'pr' }));
    const issue = await startRun(s);
    const pr = (s.double.pulls(REPO) as Pull[]).find((p) => p.head.ref === 'agent/1/a')!;
    await s.double.setCheck(REPO, pr.head.sha, 'ci', 'in_progress');
    // Carol's command while she has write access: the coordinator now knows her as a writer.
    await s.double.comment(REPO, pr.number, '/hold', CAROL);
    await s.settle();
    expect((await taskOf(s, issue, 'a'))?.held).toBe(true);

    // The maintainer removes her; no time passes on the coordinator's clock.
    await s.double.setPermission(REPO, CAROL, 'read');
    await s.double.comment(REPO, pr.number, '/approve', CAROL);
    await s.double.comment(REPO, pr.number, '/unhold', CAROL);
    await s.settle();

    const task = await taskOf(s, issue, 'a');
    expect(task?.approvedSha).toBeNull();
    expect(task?.held).toBe(true);
    const replies = (s.double.comments(REPO, pr.number) as Comment[]).filter((c) =>
      c.body.startsWith(`@${CAROL} \`/approve\`: only people with write`),
    );
    expect(replies).toHaveLength(1);
    await s.double.setCheck(REPO, pr.head.sha, 'ci', 'completed', 'success');
    await s.settle();
    expect((s.double.pulls(REPO) as Pull[]).find((p) => p.number === pr.number)?.merged).not.toBe(
      true,
    );
  });
});
