import { afterEach, describe, expect, it } from 'vitest';
import {
  branchUpdates,
  MAINTAINER,
  REPO,
  repositoryIdOf,
  taskOf,
  type Scenario,
} from './harness.js';
import { startRealWorkerScenario, type RealWorkerScenario } from './real-worker.js';

// Stands in for Claude Code. Task a writes src/a.txt. Task b fails its first attempt when its
// title says so, else writes src/b.txt; a fix of b rewrites it.
const FAKE_AGENT = String.raw`
const { writeFileSync, mkdirSync } = require('node:fs');
const prompt = require('node:fs').readFileSync(0, 'utf8');
const task = /task (\w+)/.exec(prompt)[1];
const attempt = /attempt (\d+)/.exec(prompt)[1];
if (/fails first/.test(prompt) && attempt === '1') process.exit(3);
mkdirSync('src', { recursive: true });
writeFileSync('src/' + task + '.txt', task + (/You are fixing/.test(prompt) ? ' fixed' : '') + '\n');
console.log(JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: 'Wrote ' + task + '.' }));
`;

const chain = (bTitle: string) =>
  ['```tasks', '- id: a', '  title: A', '- id: b', `  title: ${bTitle}`, '  deps: [a]', '```'].join(
    '\n',
  );

type Pull = {
  number: number;
  merged?: boolean;
  head: { ref: string; sha: string };
  base: { ref: string };
};

/**
 * docs/stacking.md with the committed worker bundle: a child stacked on its parent's PR whose
 * parent merges by squash or rebase (new commits, none of the parent's own on the base) while
 * the child's `work` retry or `fix` runs. The attempt started from the parent's commits; the
 * publish job accepts them as the parent PR's, and the child's PR lands on the base.
 */
describe('the worker action on a stacked child whose parent merges while it works', () => {
  let scenario: RealWorkerScenario | undefined;
  afterEach(() => scenario?.close());

  const prOf = (s: Scenario, task: string) =>
    (s.double.pulls(REPO) as Pull[]).find((p) => p.head.ref === `agent/1/${task}`)!;

  /**
   * A person's `/approve` of the task's PR, after reading its head: GitHub dates the comment a
   * second after the push (docs/commands.md, "Approvals").
   */
  async function approve(s: Scenario, task: string): Promise<void> {
    s.double.advanceClock(1_000);
    await s.double.comment(REPO, prOf(s, task).number, '/approve', MAINTAINER);
  }

  /** The parent approved and merged, and the coordinator has recorded the merge. */
  async function mergeParent(s: Scenario): Promise<void> {
    await approve(s, 'a');
    await s.double.waitFor((d) => (d.pull(REPO, prOf(s, 'a').number) as Pull).merged, {
      description: 'a merged',
    });
    for (;;) {
      await s.double.waitForDeliveries();
      await s.app.processor.whenDrained();
      if ((await taskOf(s, 1, 'a'))?.state === 'merged') return;
    }
  }

  /** A person's review round of a: a push to its branch, delivered and handled. Its new head. */
  async function reviewRoundOfA(s: Scenario): Promise<string> {
    const head = await s.double.pushCommit(REPO, 'agent/1/a', {
      message: 'Review round of A',
      files: { 'src/a-notes.txt': 'notes\n' },
      by: MAINTAINER,
    });
    await s.double.waitForDeliveries();
    await s.app.processor.whenDrained();
    return head;
  }

  /** The issue with the chain a → b labelled, and everything it sets off settled. */
  async function labelChain(s: Scenario, bTitle: string): Promise<void> {
    const issue = await s.double.openIssue(REPO, {
      title: 'Stack',
      body: chain(bTitle),
      user: MAINTAINER,
    });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();
  }

  async function attemptsOfB(s: Scenario) {
    const run = await s.app.store.runs.latestRun(repositoryIdOf(s.double), 1);
    const b = await s.app.store.runs.task(run!.id, 'b');
    return (await s.app.store.attempts.ofRun(run!.id))
      .filter((a) => a.taskId === b!.id)
      .map((a) => [a.mode, a.conclusion, a.failureReason?.split(':')[0] ?? null]);
  }

  it.each(['squash', 'rebase'])(
    'publishes a work retry that started from the parent’s branch after the parent was %s-merged',
    async (method) => {
      scenario = await startRealWorkerScenario(FAKE_AGENT, {
        config: `dispatch:\n  stack: true\nmerge:\n  method: ${method}\nretries:\n  backoff: [0s]\n`,
      });
      const { s, runs, hooks } = scenario;
      hooks.beforeJob = async (run, job) => {
        if (run.inputs.task_id === 'b' && run.inputs.attempt === '2' && job === 'publish')
          await mergeParent(s);
      };
      await labelChain(s, 'B, which fails first');

      // The retry's agent job started again from the parent's branch, before the merge.
      const retry = runs.find((r) => r.log.includes('#1 b attempt 2'));
      expect(retry?.log).toContain('attempt 2: starting again from origin/agent/1/a');
      expect(await attemptsOfB(s)).toEqual([
        ['work', 'failure', 'agent_failed'],
        ['work', 'success', null],
      ]);
      const b = prOf(s, 'b');
      expect(b.base.ref).toBe('main');
      await approve(s, 'b');
      await s.settle();
      expect(prOf(s, 'b').merged).toBe(true);
      expect(s.double.file(REPO, 'main', 'src/a.txt')).toBe('a\n');
      expect(s.double.file(REPO, 'main', 'src/b.txt')).toBe('b\n');
    },
    180_000,
  );

  it('opens a first attempt’s PR up to date with a parent that moved while its agent worked', async () => {
    scenario = await startRealWorkerScenario(FAKE_AGENT, { config: 'dispatch:\n  stack: true\n' });
    const { s, hooks } = scenario;
    let parentHead = '';
    hooks.beforeJob = async (run, job) => {
      if (run.inputs.task_id !== 'b' || job !== 'publish') return;
      parentHead = await reviewRoundOfA(s);
    };
    await labelChain(s, 'B');

    const b = prOf(s, 'b');
    expect(b.base.ref).toBe('agent/1/a');
    // The publish job's merge is the head: the coordinator had nothing to bring up to date.
    expect(s.double.commitParents(REPO, b.head.sha)[1]).toBe(parentHead);
    expect(branchUpdates(s, b.number).filter((u) => u.status === 201)).toEqual([]);
    const run = await s.app.store.runs.latestRun(repositoryIdOf(s.double), 1);
    expect((await s.app.store.runs.task(run!.id, 'b'))?.stackParentHead).toBe(parentHead);
    await approve(s, 'a');
    await s.settle();
    await approve(s, 'b');
    await s.settle();
    expect(prOf(s, 'b').merged).toBe(true);
    expect(s.double.file(REPO, 'main', 'src/a-notes.txt')).toBe('notes\n');
  }, 180_000);

  it('publishes a work retry whose parent’s head moved while its agent worked, with that head merged in', async () => {
    scenario = await startRealWorkerScenario(FAKE_AGENT, {
      config: 'dispatch:\n  stack: true\nretries:\n  backoff: [0s]\n',
    });
    const { s, runs, hooks } = scenario;
    let started = '';
    let parentHead = '';
    hooks.beforeJob = async (run, job) => {
      if (run.inputs.task_id !== 'b' || run.inputs.attempt !== '2' || job !== 'publish') return;
      // A review round of the parent pushes while the child's retry is in its agent job.
      started = s.double.branch(REPO, 'agent/1/a')!.sha;
      parentHead = await reviewRoundOfA(s);
    };
    await labelChain(s, 'B, which fails first');

    const retry = runs.find((r) => r.log.includes('#1 b attempt 2'));
    expect(retry?.log).toContain(`agent/1/a moved to ${parentHead} while the agent worked`);
    expect(await attemptsOfB(s)).toEqual([
      ['work', 'failure', 'agent_failed'],
      ['work', 'success', null],
    ]);
    const b = prOf(s, 'b');
    expect(b.base.ref).toBe('agent/1/a');
    // The agent's commit on the head it started from, then the parent's new head merged in.
    const [own, merged] = s.double.commitParents(REPO, b.head.sha);
    expect(merged).toBe(parentHead);
    expect(s.double.commitParents(REPO, own!)).toEqual([started]);
    await approve(s, 'a');
    await s.settle();
    await approve(s, 'b');
    await s.settle();
    expect(prOf(s, 'b').merged).toBe(true);
    expect(s.double.file(REPO, 'main', 'src/a-notes.txt')).toBe('notes\n');
    expect(s.double.file(REPO, 'main', 'src/b.txt')).toBe('b\n');
  }, 180_000);

  it('publishes a fix that merged the parent’s new head when the parent is squash-merged before the publish job', async () => {
    scenario = await startRealWorkerScenario(FAKE_AGENT, {
      config: 'dispatch:\n  stack: true\nmerge:\n  method: squash\n',
    });
    const { s, hooks } = scenario;
    s.double.setDeleteBranchOnMerge(REPO, true);
    let parentHead = '';
    hooks.beforeJob = async (run, job) => {
      if (run.inputs.task_id !== 'b' || run.inputs.attempt !== '2') return;
      if (job === 'agent') {
        // The parent's head moves after the child's fix was dispatched: the fix merges it.
        parentHead = await reviewRoundOfA(s);
      }
      if (job === 'publish') await mergeParent(s);
    };
    await labelChain(s, 'B');
    const first = prOf(s, 'b');
    expect(first.base.ref).toBe('agent/1/a');

    await s.double.review(REPO, first.number, {
      event: 'REQUEST_CHANGES',
      body: 'Say it is fixed.',
      by: MAINTAINER,
    });
    await s.settle();

    expect(await attemptsOfB(s)).toEqual([
      ['work', 'success', null],
      ['fix', 'success', null],
    ]);
    const b = prOf(s, 'b');
    expect(b.base.ref).toBe('main');
    expect(s.double.file(REPO, 'agent/1/b', 'src/b.txt')).toBe('b fixed\n');
    // The fix merged the parent's head as its agent job found it, a commit main does not hold.
    const fixed = s.double.commitParents(REPO, b.head.sha);
    expect(fixed).toEqual([first.head.sha, parentHead]);
    expect(s.double.isAncestor(REPO, parentHead, s.double.branch(REPO, 'main')!.sha)).toBe(false);
    await s.double.review(REPO, b.number, { event: 'APPROVE', by: MAINTAINER });
    await s.settle();
    expect(prOf(s, 'b').merged).toBe(true);
    expect(s.double.file(REPO, 'main', 'src/a-notes.txt')).toBe('notes\n');
    expect(s.double.file(REPO, 'main', 'src/b.txt')).toBe('b fixed\n');
  }, 180_000);
});
