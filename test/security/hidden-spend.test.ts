import { afterEach, describe, expect, it } from 'vitest';
import { MAINTAINER, REPO, repositoryIdOf } from '../e2e/harness.js';
import { startRealWorkerScenario, type RealWorkerScenario } from '../e2e/real-worker.js';
import { usageMarker } from '../../src/protocol/markers.js';
import { apiCallingAgent, SONNET_ANSWER_COST } from '../worker/helpers/sonnet-answer.js';
import { useSonnetApi } from './sonnet-api.js';

/**
 * An agent steered into spending while keeping the spend from the run's budget
 * (`budget.maxCostUsdPerRun`, docs/worker.md "What the agent spent"): it calls the API through
 * the worker's key proxy, says it spent nothing, and then tries to keep what the worker measured
 * from reaching the coordinator. The committed bundle in the real workflow's three jobs, on the
 * GitHub double's runner, which reads workflow commands as GitHub's does.
 */

/**
 * Calls the API once through the proxy, then does what `TRICK` says, and prints a result that
 * says it spent nothing.
 */
const HIDING_AGENT = apiCallingAgent(String.raw`
  const { execFileSync } = require('node:child_process');
  const { readFileSync, writeFileSync } = require('node:fs');
  const attempt = Number(/attempt (\d+)/.exec(readFileSync(0, 'utf8'))?.[1]);
  const result = { type: 'result', subtype: 'success', is_error: false, result: 'Done.',
    total_cost_usd: 0, usage: { input_tokens: 0, output_tokens: 0 } };
  switch (process.env.TRICK) {
    case 'mask-by-file-name':
      // The worker logs the FIFOs it removes; the runner reads '##[…]' anywhere in a line.
      execFileSync('mkfifo', ['##[add-mask]agent-coordinator-usage']);
      break;
    case 'refused-result':
      // A change, and a final message longer than the result the publish job takes.
      writeFileSync('feature.txt', 'done\n');
      result.result = 'x'.repeat(1_000_001);
      break;
    case 'time-out-first':
      // Spends, leaves work, and runs into its deadline: the publish job pushes it as partial.
      if (attempt > 1) {
        writeFileSync('rest.txt', 'rest\n');
        break;
      }
      writeFileSync('half.txt', 'half\n');
      return setInterval(() => {}, 1000);
    case 'publish':
      writeFileSync('work-' + attempt + '.txt', 'done\n');
      break;
    case 'report-huge':
      // More than it spent, which counts over the measure: but past 1e21 a number prints as 1e+21.
      result.usage.input_tokens = 1e21;
      break;
  }
  console.log(JSON.stringify(result));
  // Its last words, on the stream the runner may read after the worker's next line.
  if (process.env.TRICK === 'mask-on-stderr')
    process.stderr.write('::add-mask::agent-coordinator-usage\n');
`);

const api = useSonnetApi();

describe('an agent that hides what it spent', () => {
  let scenario: RealWorkerScenario | undefined;
  afterEach(async () => {
    await scenario?.close();
    scenario = undefined;
  });

  /** A run of one task, `a`, labelled and played until nothing moves; its id and issue. */
  async function runOneTask(trick: string, config: string, { realTime = false } = {}) {
    scenario = await startRealWorkerScenario(HIDING_AGENT, {
      env: { ANTHROPIC_BASE_URL: api.url(), CALLS: '1', TRICK: trick },
      config,
    });
    const { s } = scenario;
    // Deadlines count from each dispatch, and the agent runs in real time: so does the app then.
    if (realTime) Object.defineProperty(s.clock, 'now', { get: () => new Date() });
    const issue = await s.double.openIssue(REPO, {
      title: 'Spend',
      body: ['```tasks', '- id: a', '  title: A', '```'].join('\n'),
      user: MAINTAINER,
    });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();
    const run = await s.app.store.runs.latestRun(repositoryIdOf(s.double), issue);
    return { s, runs: scenario.runs, issue, runId: run!.id };
  }

  /** One task, one attempt (no retry): what the run was charged for it. */
  async function spentWith(trick: string): Promise<number> {
    const { s, runId } = await runOneTask(trick, 'retries:\n  max: 0\n');
    return s.app.store.attempts.spentByRun(runId);
  }

  it('is charged, though a file name it chose asks the runner to mask the usage annotation', async () => {
    expect(await spentWith('mask-by-file-name')).toBeCloseTo(SONNET_ANSWER_COST, 6);
  }, 180_000);

  it('is charged, though its last line on stderr asks the runner to mask the usage annotation', async () => {
    expect(await spentWith('mask-on-stderr')).toBeCloseTo(SONNET_ANSWER_COST, 6);
  }, 180_000);

  it('is charged, though the publish job refuses the result it left', async () => {
    expect(await spentWith('refused-result')).toBeCloseTo(SONNET_ANSWER_COST, 6);
  }, 180_000);

  it('is charged, though it reports a figure too large to print as digits', async () => {
    expect(await spentWith('report-huge')).toBeCloseTo(SONNET_ANSWER_COST, 6);
  }, 180_000);

  it('is charged when its attempt runs into its deadline, and the budget holds the run before a retry', async () => {
    const { s, runs, runId, issue } = await runOneTask(
      'time-out-first',
      `worker:\n  timeoutMinutes: 1\nbudget:\n  maxCostUsdPerRun: ${SONNET_ANSWER_COST / 2}\nretries:\n  backoff: [0s]\n`,
      { realTime: true },
    );
    // Its partial work was pushed, and the PR marker counts it: the attempt failed all the same.
    expect(runs.map((r) => r.jobs.map((j) => `${j.job}:${j.conclusion}`))).toEqual([
      ['assignment:success', 'agent:success', 'publish:failure'],
    ]);
    const [attempt] = await s.app.store.attempts.ofRun(runId);
    expect(attempt!.failureReason).toMatch(/^timed_out: /);
    expect(attempt!.costUsd).toBeCloseTo(SONNET_ANSWER_COST, 4);
    expect((await s.app.store.runs.latestRun(repositoryIdOf(s.double), issue))?.state).toBe('held');
    // Lifted, the next attempt finishes the work: charged its own spend, not the PR marker's
    // total, which holds the first attempt's too.
    await s.double.comment(REPO, issue, '/unhold', MAINTAINER);
    await s.settle();
    const attempts = await s.app.store.attempts.ofRun(runId);
    expect(attempts.map((a) => a.conclusion)).toEqual(['failure', 'success']);
    expect(attempts[1]!.costUsd).toBeCloseTo(SONNET_ANSWER_COST, 4);
    expect(await s.app.store.attempts.spentByRun(runId)).toBeCloseTo(2 * SONNET_ANSWER_COST, 4);
  }, 180_000);

  it("is charged what each attempt's job said, though the PR's usage marker was edited between them", async () => {
    const { s, runId } = await runOneTask('publish', 'retries:\n  max: 0\n');
    const task = await s.app.store.runs.task(runId, 'a');
    const pr = task!.prNumber!;
    // A workflow whose token may write pull requests (or a person) sets the running total to 0.
    const body = (s.double.pull(REPO, pr) as { body: string }).body;
    const zero = usageMarker({ costUsd: 0, inputTokens: 0, outputTokens: 0 });
    await s.double.editPullBody(
      REPO,
      pr,
      body.replace(/<!-- agent-coordinator:usage [^>]*-->/, zero),
      'github-actions[bot]',
    );
    await s.double.comment(REPO, pr, '/retry Add the second part.', MAINTAINER);
    await s.settle();
    const attempts = await s.app.store.attempts.ofRun(runId);
    expect(attempts.map((a) => [a.conclusion, a.failureReason, a.costUsd])).toEqual([
      ['success', null, SONNET_ANSWER_COST],
      ['success', null, SONNET_ANSWER_COST],
    ]);
    expect(await s.app.store.attempts.spentByRun(runId)).toBeCloseTo(2 * SONNET_ANSWER_COST, 6);
    // The publish job said it with its request for a token: no annotation of a succeeded run
    // was read (benchmark 6's api_calls_per_task).
    expect(s.double.requests.filter((r) => r.path.endsWith('/annotations'))).toEqual([]);
  }, 180_000);
});
