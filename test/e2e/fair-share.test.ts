import { afterEach, describe, expect, it } from 'vitest';
import { MAINTAINER, REPO, startScenario, type Scenario, closeScenario } from './harness.js';

const independent = (n: number) =>
  [
    '```tasks',
    ...Array.from({ length: n }, (_, i) => [`- id: t${i}`, `  title: Task ${i}`]).flat(),
    '```',
  ].join('\n');

/** A second installation, on another account, with a repository of its own. */
const OTHER = 'initech/gadgets';
const CONFIG = 'concurrency:\n  maxParallel: 10\n';

/**
 * Installations share COORDINATOR_MAX_PARALLEL (docs/running.md, "Sharing the capacity"): writers
 * of one installation who label many issues first do not keep the slots another installation's
 * ready task waits for.
 */
describe('installations sharing the coordinator’s capacity (GitHub double)', () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  const start = async (repo: string, body: string) => {
    const issue = await s.double.openIssue(repo, { title: 'Many', body, user: MAINTAINER });
    await s.double.addLabel(repo, issue, 'agent', MAINTAINER);
    await s.settle();
    return issue;
  };
  const inFlight = (repo: string) =>
    s.double
      .runs(repo)
      .filter((r) => r.status !== 'completed')
      .map((r) => r.inputs.task_id);

  it('gives a slot freed by the installation that labelled first to the other installation’s waiting task', async () => {
    s = await startScenario({ config: CONFIG, env: { COORDINATOR_MAX_PARALLEL: '2' } });
    await s.double.createRepo({
      owner: 'initech',
      name: 'gadgets',
      private: true,
      files: { '.github/agent-coordinator.yml': CONFIG },
    });
    await s.double.setPermission(OTHER, MAINTAINER, 'maintain');
    s.double.setWorker(() => ({ kind: 'hang' }));

    // The first installation labels an issue of four tasks: it takes both slots.
    await start(REPO, independent(4));
    expect(inFlight(REPO).sort()).toEqual(['t0', 't1']);
    // The other installation's one task waits for the cap.
    const issue = await start(OTHER, independent(1));
    expect(inFlight(OTHER)).toEqual([]);
    expect(statusOf(s, OTHER, issue)).toContain(
      'waiting: 2/2 workers busy across all repositories',
    );

    // A slot frees in the first installation: its share is one of two while the other waits, so
    // the slot goes to the other installation's task, not to its own third.
    const [first] = s.double.runs(REPO).filter((r) => r.status !== 'completed');
    await s.double.completeWorkflowRun(first!.id as number, 'failure');
    await s.settle();
    expect(inFlight(OTHER)).toEqual(['t0']);
    expect(inFlight(REPO)).toHaveLength(1);
  });
});

function statusOf(s: Scenario, repo: string, issue: number): string {
  const comments = s.double.comments(repo, issue) as Array<{ body: string }>;
  return comments.find((c) => c.body.includes('<!-- agent-coordinator:status -->'))?.body ?? '';
}
