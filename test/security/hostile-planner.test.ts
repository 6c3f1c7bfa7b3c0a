import { readdirSync, rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { agentSharedFolder } from '../helpers/agent-scratch.js';
import { MAINTAINER, REPO } from '../e2e/harness.js';
import { startRealWorkerScenario, type RealWorkerScenario } from '../e2e/real-worker.js';
import { taskState } from './security-helpers.js';

/**
 * The planner agent reads the issue's text, which anyone may have written (SPEC §2): it is as
 * untrusted as a task's agent. It owns the checkout's `.git/` while it runs, and actions/checkout's
 * post step later runs git there as the runner's user (`git submodule foreach`, which reads the
 * index and so runs a `core.fsmonitor`). A planner that plants one must not get it run.
 */
const HOSTILE_PLANNER = String.raw`
const cp = require('node:child_process');
const path = require('node:path');
const marker = (name) => 'id -u >> ' + JSON.stringify(path.join(process.env.HOSTILE_REPORT, 'ran-' + name));
cp.spawnSync('git', ['config', 'core.fsmonitor', marker('fsmonitor')]);
// The task's agent (the same script) has some work to show.
require('node:fs').writeFileSync('work.txt', 'work\n');
const fence = '\x60\x60\x60';
const plan = ['Plan:', '', fence + 'tasks', '- id: a', '  title: A', fence].join('\n');
console.log(JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: plan, total_cost_usd: 0.01, usage: { input_tokens: 1, output_tokens: 1 } }));
`;

describe('a hostile planner agent', () => {
  let scenario: RealWorkerScenario | undefined;
  let report: string | undefined;
  afterEach(async () => {
    await scenario?.close();
    if (report) rmSync(report, { recursive: true, force: true });
  });

  it("leaves no .git/ config for the agent job's later steps to run", async () => {
    report = agentSharedFolder('hostile-planner-');
    scenario = await startRealWorkerScenario(HOSTILE_PLANNER, { env: { HOSTILE_REPORT: report } });
    const { s, runs } = scenario;

    const issue = await s.double.openIssue(REPO, {
      title: 'Plan this',
      body: 'Split the work.',
      user: 'a-stranger',
    });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();

    // The planner's run, then the task's, went through their three jobs; the task is in review.
    for (const run of runs)
      expect(run.jobs.map((j) => `${j.job}:${j.conclusion}`)).toEqual([
        'assignment:success',
        'agent:success',
        'publish:success',
      ]);
    expect(runs).toHaveLength(2);
    expect(await taskState(s, issue, 'a')).toBe('in_review');
    // Nothing it planted ran, in its job or any other.
    expect(readdirSync(report).filter((f) => f.startsWith('ran-'))).toEqual([]);
  }, 120_000);
});
