import { afterEach, describe, expect, it } from 'vitest';
import { MAINTAINER, ONE_TASK_PLAN, REPO, repositoryIdOf, SPEC_EXAMPLE_PLAN } from './harness.js';
import { startRealWorkerScenario, type RealWorkerScenario } from './real-worker.js';

/**
 * The worker as users run it (real-worker.ts): it gets its assignment by OIDC, clones and
 * pushes with real git over HTTP, opens its PR, and the coordinator merges it. The repository
 * is private and holds no App key in any secret.
 */

// Stands in for Claude Code: writes one file named after the task's title (so tasks never
// conflict) and reports as Claude Code does, cache tokens apart from input tokens.
const FAKE_AGENT = String.raw`
const { readFileSync, writeFileSync, mkdirSync } = require('node:fs');
const prompt = readFileSync(0, 'utf8');
const title = prompt.split('\n')[0].trim();
const slug = title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
mkdirSync('work', { recursive: true });
writeFileSync('work/' + slug + '.txt', title + '\n');
console.log(JSON.stringify({
  type: 'result', subtype: 'success', is_error: false, result: 'Wrote work/' + slug + '.txt.',
  total_cost_usd: 0.25,
  usage: { input_tokens: 10, cache_read_input_tokens: 900, cache_creation_input_tokens: 90, output_tokens: 200 },
}));
`;

describe('the worker action against the GitHub double', () => {
  let scenario: RealWorkerScenario | undefined;
  afterEach(() => scenario?.close());

  it('runs the docs/tasks-block.md plan to the closed issue with the committed bundle, OIDC and git over HTTP', async () => {
    scenario = await startRealWorkerScenario(FAKE_AGENT);
    const { s, runs } = scenario;

    const issue = await s.double.openIssue(REPO, {
      title: 'Login',
      body: `Add login.\n\n${SPEC_EXAMPLE_PLAN}`,
      user: MAINTAINER,
    });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    const pulls = () =>
      s.double.pulls(REPO) as Array<{
        number: number;
        state: string;
        merged: boolean;
        body: string;
      }>;
    for (let round = 0; round < 8; round++) {
      await s.settle();
      const open = pulls().filter((p) => p.state === 'open');
      if (open.length === 0) break;
      for (const pr of open) await s.double.comment(REPO, pr.number, '/approve', MAINTAINER);
    }
    await s.settle();

    const failed = runs.filter((r) => r.conclusion !== 'success');
    expect(failed.map((r) => r.log)).toEqual([]);
    expect(runs).toHaveLength(4);
    for (const run of runs) {
      // Three jobs, each with only what it needs; nothing installed at run time (the agent
      // CLI install is skipped for AGENT_COMMAND).
      expect(run.jobs.map((j) => [j.job, j.conclusion, j.steps])).toEqual([
        [
          'assignment',
          'success',
          [
            { step: 'Get the assignment', outcome: 'ran' },
            { step: 'Hand the assignment to the agent job', outcome: 'ran' },
          ],
        ],
        [
          'agent',
          'success',
          [
            { step: 'Check out the task branch', outcome: 'ran' },
            { step: expect.stringContaining('actions/setup-node@'), outcome: 'ran' },
            { step: 'Install Claude Code', outcome: 'skipped' },
            { step: 'Receive the assignment', outcome: 'ran' },
            { step: 'Run the agent', outcome: 'ran' },
            { step: 'Hand the result to the publish job', outcome: 'ran' },
          ],
        ],
        [
          'publish',
          'success',
          [
            { step: 'Check out the task branch', outcome: 'ran' },
            { step: 'Receive the result', outcome: 'ran' },
            { step: 'Publish the change', outcome: 'ran' },
          ],
        ],
      ]);
    }
    const merged = pulls().filter((p) => p.merged);
    expect(merged).toHaveLength(4);
    for (const pr of merged) {
      // Input tokens count the cache reads and writes, as the docs say.
      expect(pr.body).toContain(
        '<!-- agent-coordinator:usage cost_usd=0.25 input_tokens=1000 output_tokens=200 -->',
      );
    }
    expect((s.double.issue(REPO, issue) as { state: string }).state).toBe('closed');
    expect(s.double.labels(REPO, issue)).toContain('agent:done');
    // Every file the agents wrote is on main, pushed by git and merged by the coordinator.
    const written = runs.map((r) => /Wrote (work\/[a-z0-9-]+\.txt)\./.exec(r.log)?.[1]);
    expect(new Set(written).size).toBe(4);
    for (const path of written) expect(s.double.file(REPO, 'main', path!)).toBeDefined();
    // The dashboard's token columns: each attempt's share of the usage marker.
    const run = await s.app.store.runs.latestRun(repositoryIdOf(s.double), issue);
    const attempts = await s.app.store.attempts.ofRun(run!.id);
    expect(attempts.map((a) => [a.costUsd, a.inputTokens, a.outputTokens])).toEqual(
      Array(4).fill([0.25, 1000, 200]),
    );
    const metrics = await (await fetch(`${s.app.url}/metrics`)).text();
    // Two per run: the assignment job's and the publish job's; the agent job has no OIDC token.
    expect(metrics).toMatch(
      /agent_coordinator_worker_assignments_total\{outcome="granted",claim=""\} 8/,
    );
  }, 180_000);

  it('keeps the work of an agent stopped at its time limit through the three jobs, and the next attempt finishes it', async () => {
    // Attempt 1 writes, then never ends; attempt 2 (a fix on top of the kept work) finishes.
    scenario = await startRealWorkerScenario(
      String.raw`
const { writeFileSync, mkdirSync } = require('node:fs');
const attempt = /attempt (\d+)/.exec(require('node:fs').readFileSync(0, 'utf8'))[1];
mkdirSync('work', { recursive: true });
if (attempt === '1') {
  writeFileSync('work/half.txt', 'half\n');
  setInterval(() => {}, 1000);
} else {
  writeFileSync('work/rest.txt', 'rest\n');
  console.log(JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: 'Finished.' }));
}
`,
      { config: 'worker:\n  timeoutMinutes: 1\nretries:\n  backoff: [0s]\n' },
    );
    const { s, runs } = scenario;
    // Deadlines count from each dispatch, and the agent runs in real time: so does the app here.
    Object.defineProperty(s.clock, 'now', { get: () => new Date() });
    const issue = await s.double.openIssue(REPO, {
      title: 'Slow',
      body: ONE_TASK_PLAN,
      user: MAINTAINER,
    });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();

    expect(runs.map((r) => r.jobs.map((j) => `${j.job}:${j.conclusion}`))).toEqual([
      ['assignment:success', 'agent:success', 'publish:failure'],
      ['assignment:success', 'agent:success', 'publish:success'],
    ]);
    expect(runs[0]!.log).toMatch(/::error::agent-coordinator: timed_out \(/);
    const branch = 'agent/1/a';
    const modes = s.double
      .runs(REPO)
      .filter((r) => r.head_branch === branch)
      .map((r) => r.inputs.mode);
    expect(modes).toEqual(['work', 'fix']);
    const head = s.double.branch(REPO, branch)!.sha;
    const [kept] = s.double.commitParents(REPO, head);
    expect(s.double.commitMessage(REPO, kept!)).toMatch(/^\[partial\] a: A/);
    expect(s.double.file(REPO, branch, 'work/half.txt')).toBe('half\n');
    expect(s.double.file(REPO, branch, 'work/rest.txt')).toBe('rest\n');
    const attempts = await s.app.store.attempts.ofRun(
      (await s.app.store.runs.latestRun(repositoryIdOf(s.double), issue))!.id,
    );
    expect(attempts.map((a) => [a.conclusion, a.failureReason?.split(':')[0] ?? null])).toEqual([
      ['failure', 'timed_out'],
      ['success', null],
    ]);
  }, 180_000);
});
