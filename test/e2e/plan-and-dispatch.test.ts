import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  MAINTAINER,
  REPO,
  SPEC_EXAMPLE_PLAN,
  startScenario,
  statusComment,
  type Scenario,
  closeScenario,
  chaoticDelivery,
  DELIVERY_SEEDS,
  assignmentFor,
} from './harness.js';
import { TEST_PUBLIC_URL } from '../helpers/app.js';

/** docs/lifecycle.md steps 1–6 on the GitHub double, with the real app and real Postgres. */
describe.each(DELIVERY_SEEDS)(
  'label → plan → dispatch (GitHub double, delivery seed %i)',
  (seed) => {
    let s: Scenario;
    beforeEach(async () => {
      s = await startScenario({ delivery: chaoticDelivery(seed) });
    });
    afterEach(() => closeScenario(s));

    const branchesDispatched = () =>
      s.double
        .runs(REPO)
        .map((r) => r.head_branch as string)
        .sort();
    const taskRow = async (issue: number, key: string) => {
      const run = await s.app.store.runs.latestRun(
        (s.double.repository(REPO) as { id: number }).id,
        issue,
      );
      return s.app.store.runs.task(run!.id, key);
    };
    const mergeByHand = async (branch: string) => {
      const pr = (s.double.pulls(REPO) as Array<{ number: number; head: { ref: string } }>).find(
        (p) => p.head.ref === branch,
      );
      if (!pr) throw new Error(`no PR for ${branch}`);
      await s.double.mergePrByHand(REPO, pr.number, MAINTAINER);
      await s.settle();
    };

    it('runs the docs/tasks-block.md example: task_001 first, then task_002 and task_003 together, task_004 after both', async () => {
      s.double.setWorker(() => ({
        kind: 'pr',
        costUsd: 0.25,
        inputTokens: 1000,
        outputTokens: 200,
      }));
      const issue = await s.double.openIssue(REPO, {
        title: 'Login',
        body: `Add login.\n\n${SPEC_EXAMPLE_PLAN}`,
        user: MAINTAINER,
      });
      await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
      await s.settle();

      expect(branchesDispatched()).toEqual(['agent/1/task_001']);
      expect((await taskRow(issue, 'task_001'))?.state).toBe('in_review');
      expect((await taskRow(issue, 'task_002'))?.state).toBe('pending');
      const status = statusComment(s.double, issue);
      expect(status).toContain('graph TD');
      expect(status).toContain('task_001');
      expect(status).toContain('waiting for task_001 (#');

      await mergeByHand('agent/1/task_001');
      expect(branchesDispatched()).toEqual([
        'agent/1/task_001',
        'agent/1/task_002',
        'agent/1/task_003',
      ]);
      const run2 = s.double.runs(REPO).find((r) => r.head_branch === 'agent/1/task_002')!;
      expect(run2.inputs).toEqual({
        task_id: 'task_002',
        issue: '1',
        attempt: '1',
        mode: 'work',
        coordinator_url: TEST_PUBLIC_URL,
      });
      expect(await assignmentFor(s, run2)).toMatchObject({
        mode: 'work',
        title: 'Implement login',
        base: 'main',
        timeout_minutes: '15',
        model: 'claude-sonnet-4-5',
        max_turns: '50',
        feedback: null,
      });
      expect((await assignmentFor(s, run2)).prompt).toContain(
        'Implement POST /login using the signature from task_001.',
      );
      expect(run2.display_title).toBe('agent-coordinator #1 task_002 attempt 1');

      await mergeByHand('agent/1/task_002');
      expect(branchesDispatched()).not.toContain('agent/1/task_004');
      await mergeByHand('agent/1/task_003');
      expect(branchesDispatched()).toContain('agent/1/task_004');
      expect(s.double.runs(REPO)).toHaveLength(4);
      expect((await taskRow(issue, 'task_004'))?.state).toBe('in_review');
      const open = (s.double.pulls(REPO) as Array<{ state: string; head: { ref: string } }>).filter(
        (p) => p.state === 'open',
      );
      expect(open.map((p) => p.head.ref)).toEqual(['agent/1/task_004']);
      const finalStatus = statusComment(s.double, issue);
      expect(finalStatus).toMatch(/\$1\.00 \/ \$20\.00/);
    });
  },
);
